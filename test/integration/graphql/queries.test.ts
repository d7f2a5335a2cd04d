import { describe, expect, test } from '../../fixtures.js';
import { carrierBody, fullBodies, loadBody, loadLegBody, loadUpdateBody, routes, seed, seedLoadTree, stopBody } from '../../factories/records.js';
import { gqlData, loadTreeFields } from '../../factories/graphql.js';
import { apiFor } from '../../helpers/app.js';

describe('viewer', () => {
  test("answers the key's tenant", async ({ api, tenant }) => {
    const data = await gqlData(api, '{ viewer { slug name } }');
    expect(data.viewer).toEqual({ slug: tenant.slug, name: tenant.name });
  });
});

describe('load(permalink)', () => {
  test('answers every field of the load, its legs in sequence, each with carrier and stops in sequence, updates newest first and the phase history', async ({
    api,
    tenant,
  }) => {
    const carrier = await seed(api, routes.carrier, fullBodies.carrier(tenant, { extra_carrier_field: 'x' }));
    const load = await seed(api, routes.load, fullBodies.load(tenant, { custom_flag: true }));
    const leg2 = await seed(api, routes.load_leg, fullBodies.load_leg(tenant, load, carrier, { load_leg_sequence: 2 }));
    const leg1 = await seed(api, routes.load_leg, loadLegBody(tenant, load, { load_leg_sequence: 1 }));
    const stopB = await seed(api, routes.stop, fullBodies.stop(tenant, leg2, { stop_sequence: 2, stop_type: 'delivery' }));
    const stopA = await seed(api, routes.stop, stopBody(tenant, leg2, { stop_sequence: 1 }));
    const older = await seed(api, routes.load_update, loadUpdateBody(tenant, load, { occurred_at: '2026-11-20T10:00:00Z', message: 'older' }));
    const newer = await seed(
      api,
      routes.load_update,
      fullBodies.load_update(tenant, load, leg2, { occurred_at: '2026-11-21T10:00:00Z', message: 'newer', update_type: 'gps_ping' }),
    );

    const data = await gqlData(api, `query ($p: String!) { load(permalink: $p) { ${loadTreeFields} } }`, { p: load.native_system_load_permalink });
    const l = data.load;
    expect(l).toMatchObject({
      permalink: load.native_system_load_permalink,
      tmsId: load.native_system_load_id,
      status: 'Booked',
      phase: 'UNMAPPED',
      customerReferenceNumber: load.native_system_customer_reference_number,
      orderType: 'FTL',
      bolNumber: load.bol_number,
      poNumber: load.po_number,
      loadMode: 'truckload',
      customerName: 'Acme Foods',
      extra: { custom_flag: true },
    });
    expect(l.legs.map((g: { permalink: string }) => g.permalink)).toEqual([leg1.native_system_load_leg_permalink, leg2.native_system_load_leg_permalink]);
    const [first, second] = l.legs;
    expect(first.carrier).toBeNull();
    expect(second).toMatchObject({
      sequence: 2,
      driverName: 'Sam Driver',
      driverPhone: '+1 312 555 0101',
      truckNumber: 'T-100',
      trailerNumber: 'TR-200',
      carrierRepName: 'Casey Rep',
      carrierRepEmail: 'casey@example.com',
      customerRepName: 'Robin Rep',
      customerRepEmail: 'robin@example.com',
      referenceNumber: leg2.native_system_reference_number,
      pickupReferenceNumber: leg2.pickup_reference_number,
      status: 'Dispatched',
      loadUniqueKey: leg2.native_system_load_unique_key,
      load: { permalink: load.native_system_load_permalink },
      carrier: {
        permalink: carrier.native_system_carrier_permalink,
        name: carrier.carrier_name,
        mcNumber: carrier.mc_number,
        email: 'dispatch@example.com',
        extra: { extra_carrier_field: 'x' },
      },
    });
    expect(second.stops.map((s: { permalink: string }) => s.permalink)).toEqual([stopA.native_system_stop_permalink, stopB.native_system_stop_permalink]);
    expect(second.stops[1]).toMatchObject({
      type: 'DELIVERY',
      locationName: 'Acme DC',
      addressLine1: '1 Main St',
      postalCode: '60601',
      latitude: 41.88,
      longitude: -87.63,
      timezone: 'America/Chicago',
      appointmentStart: '2026-11-23T08:00:00.000Z',
      departedAt: '2026-11-23T11:00:00.000Z',
      status: 'Arrived',
    });
    expect(l.updates.map((u: { message: string }) => u.message)).toEqual(['newer', 'older']);
    expect(l.updates[0]).toMatchObject({
      permalink: newer.native_system_load_update_permalink,
      type: 'GPS_PING',
      status: 'In Transit',
      phase: 'UNMAPPED',
      source: 'ELD',
      eta: '2026-11-24T10:00:00.000Z',
    });
    expect(older.native_system_load_update_permalink).toBe(l.updates[1].permalink);
    expect(l.phaseHistory).toEqual([{ fromPhase: null, toPhase: 'UNMAPPED', status: 'Booked', changedAt: expect.any(String) }]);
  });

  test('updates(first) returns only the newest ones', async ({ api, tenant }) => {
    const load = await seed(api, routes.load, loadBody(tenant));
    for (const day of [20, 22, 21])
      await seed(api, routes.load_update, loadUpdateBody(tenant, load, { occurred_at: `2026-11-${day}T10:00:00Z`, message: `day ${day}` }));
    const data = await gqlData(api, `query ($p: String!) { load(permalink: $p) { updates(first: 2) { message } } }`, { p: load.native_system_load_permalink });
    expect(data.load.updates).toEqual([{ message: 'day 22' }, { message: 'day 21' }]);
  });

  test('answers null for a permalink that names no load', async ({ api, tenant }) => {
    const data = await gqlData(api, `{ load(permalink: "NOPE-${tenant.slug}") { permalink } }`);
    expect(data.load).toBeNull();
  });
});

describe('Load.tmsUrl', () => {
  test("fills the tenant's template with the unique key of the first leg (by sequence) that has one", async ({ testApp }) => {
    const tenant = await testApp.createTenant({ tmsUrlTemplate: 'https://tms.example/loads/{key}?tab=1' });
    const api = apiFor(testApp, tenant.apiKey);
    const load = await seed(api, routes.load, loadBody(tenant));
    await seed(api, routes.load_leg, loadLegBody(tenant, load, { load_leg_sequence: 1 }));
    await seed(api, routes.load_leg, loadLegBody(tenant, load, { load_leg_sequence: 3, native_system_load_unique_key: 'LATER' }));
    await seed(api, routes.load_leg, loadLegBody(tenant, load, { load_leg_sequence: 2, native_system_load_unique_key: 'A B/1' }));
    const data = await gqlData(api, `query ($p: String!) { load(permalink: $p) { tmsUrl } }`, { p: load.native_system_load_permalink });
    expect(data.load.tmsUrl).toBe('https://tms.example/loads/A%20B%2F1?tab=1');
  });

  test('is null when no leg carries a unique key, or the tenant has no template', async ({ api, tenant, testApp }) => {
    const withTemplate = await testApp.createTenant({ tmsUrlTemplate: 'https://tms.example/{key}' });
    const templated = apiFor(testApp, withTemplate.apiKey);
    const keyless = await seed(templated, routes.load, loadBody(withTemplate));
    await seed(templated, routes.load_leg, loadLegBody(withTemplate, keyless));
    const noTemplate = await seed(api, routes.load, loadBody(tenant));
    await seed(api, routes.load_leg, loadLegBody(tenant, noTemplate, { native_system_load_unique_key: 'K1' }));

    expect(
      (await gqlData(templated, `query ($p: String!) { load(permalink: $p) { tmsUrl } }`, { p: keyless.native_system_load_permalink })).load.tmsUrl,
    ).toBeNull();
    expect(
      (await gqlData(api, `query ($p: String!) { load(permalink: $p) { tmsUrl } }`, { p: noTemplate.native_system_load_permalink })).load.tmsUrl,
    ).toBeNull();
  });
});

describe('loads(filter)', () => {
  const loadsQuery = `query ($filter: LoadFilter) { loads(first: 50, filter: $filter) { totalCount edges { node { permalink } } } }`;
  const permalinksOf = (data: any) => data.loads.edges.map((e: { node: { permalink: string } }) => e.node.permalink).sort();

  test('search matches any reference number: customer reference, BOL, PO, leg reference, pickup reference, stop reference', async ({ api, tenant }) => {
    const byCustomerRef = await seed(api, routes.load, loadBody(tenant, { native_system_customer_reference_number: 'CUST-needle-1' }));
    const byBol = await seed(api, routes.load, loadBody(tenant, { bol_number: 'bol-NEEDLE-2' }));
    const byPo = await seed(api, routes.load, loadBody(tenant, { po_number: 'PO-1, PO-needle-3' }));
    const byLegRef = await seed(api, routes.load, loadBody(tenant));
    await seed(api, routes.load_leg, loadLegBody(tenant, byLegRef, { native_system_reference_number: 'LEG-needle-4' }));
    const byPickupRef = await seed(api, routes.load, loadBody(tenant));
    await seed(api, routes.load_leg, loadLegBody(tenant, byPickupRef, { pickup_reference_number: 'PU-needle-5' }));
    const byStopRef = await seed(api, routes.load, loadBody(tenant));
    const leg = await seed(api, routes.load_leg, loadLegBody(tenant, byStopRef));
    await seed(api, routes.stop, stopBody(tenant, leg, { reference_number: 'STOP-needle-6' }));
    await seed(api, routes.load, loadBody(tenant));

    const data = await gqlData(api, loadsQuery, { filter: { search: ' Needle ' } });
    expect(data.loads.totalCount).toBe(6);
    expect(permalinksOf(data)).toEqual([byCustomerRef, byBol, byPo, byLegRef, byPickupRef, byStopRef].map((l) => l.native_system_load_permalink).sort());
    expect(permalinksOf(await gqlData(api, loadsQuery, { filter: { search: 'needle-5' } }))).toEqual([byPickupRef.native_system_load_permalink]);
  });

  test('filters by phase list, status (trimmed, any case) and changedSince', async ({ api, tenant, testApp }) => {
    await gqlData(api, `mutation { setStatusMapping(status: "Delivered", phase: DELIVERED) { phase } }`);
    const delivered = await seed(api, routes.load, loadBody(tenant, { native_system_load_status: 'Delivered' }));
    const booked = await seed(api, routes.load, loadBody(tenant, { native_system_load_status: 'Booked' }));
    testApp.clock.advance(60_000);
    const since = testApp.clock.now().toISOString();
    const later = await seed(api, routes.load, loadBody(tenant, { native_system_load_status: 'Booked' }));

    expect(permalinksOf(await gqlData(api, loadsQuery, { filter: { phase: ['DELIVERED'] } }))).toEqual([delivered.native_system_load_permalink]);
    expect(permalinksOf(await gqlData(api, loadsQuery, { filter: { phase: ['DELIVERED', 'UNMAPPED'] } }))).toHaveLength(3);
    expect(permalinksOf(await gqlData(api, loadsQuery, { filter: { status: ' booked ' } }))).toEqual(
      [booked, later].map((l) => l.native_system_load_permalink).sort(),
    );
    expect(permalinksOf(await gqlData(api, loadsQuery, { filter: { changedSince: since } }))).toEqual([later.native_system_load_permalink]);
    expect(permalinksOf(await gqlData(api, loadsQuery, { filter: { changedSince: since, phase: ['DELIVERED'] } }))).toEqual([]);
  });

  test('status: a load is found by the status its phase was mapped from, however the TMS padded or cased it', async ({ api, tenant }) => {
    await gqlData(api, `mutation { setStatusMapping(status: "Picked Up", phase: IN_TRANSIT) { phase } }`);
    const padded = await seed(api, routes.load, loadBody(tenant, { native_system_load_status: '  Picked Up ' }));
    const shouted = await seed(api, routes.load, loadBody(tenant, { native_system_load_status: 'PICKED UP' }));
    await seed(api, routes.load, loadBody(tenant, { native_system_load_status: 'Picked' }));
    const mapped = [padded, shouted].map((l) => l.native_system_load_permalink).sort();

    // The mapping took both for "Picked Up"…
    expect(permalinksOf(await gqlData(api, loadsQuery, { filter: { phase: ['IN_TRANSIT'] } }))).toEqual(mapped);
    // …and so does the status filter, whichever way the status is asked for.
    for (const status of ['Picked Up', ' picked up  ', '  Picked Up ']) {
      expect(permalinksOf(await gqlData(api, loadsQuery, { filter: { status } })), status).toEqual(mapped);
    }
  });
});

describe('loadLeg, stop, carrier', () => {
  test('each answers its record by permalink with its relations', async ({ api, tenant }) => {
    const { carrier, load, leg, stop } = await seedLoadTree(api, tenant);
    const data = await gqlData(
      api,
      `query ($g: String!, $s: String!, $c: String!) {
        loadLeg(permalink: $g) { permalink load { permalink } carrier { permalink } stops { permalink } }
        stop(permalink: $s) { permalink city referenceNumber leg { permalink } }
        carrier(permalink: $c) { permalink name mcNumber dotNumber scac }
      }`,
      { g: leg.native_system_load_leg_permalink, s: stop.native_system_stop_permalink, c: carrier.native_system_carrier_permalink },
    );
    expect(data.loadLeg).toEqual({
      permalink: leg.native_system_load_leg_permalink,
      load: { permalink: load.native_system_load_permalink },
      carrier: { permalink: carrier.native_system_carrier_permalink },
      stops: [{ permalink: stop.native_system_stop_permalink }],
    });
    expect(data.stop).toEqual({
      permalink: stop.native_system_stop_permalink,
      city: 'Chicago',
      referenceNumber: stop.reference_number,
      leg: { permalink: leg.native_system_load_leg_permalink },
    });
    expect(data.carrier).toEqual({
      permalink: carrier.native_system_carrier_permalink,
      name: carrier.carrier_name,
      mcNumber: carrier.mc_number,
      dotNumber: carrier.dot_number,
      scac: 'ABCD',
    });
  });
});

describe('carriers(search)', () => {
  test('matches a part of the name, MC, DOT or SCAC, case-insensitively, and orders by name', async ({ api, tenant }) => {
    const byName = await seed(api, routes.carrier, carrierBody(tenant, { carrier_name: 'Zeta Haulers', scac: 'ZZZZ' }));
    const byMc = await seed(api, routes.carrier, carrierBody(tenant, { carrier_name: 'Beta', mc_number: 'MC-haul-77', scac: 'BBBB' }));
    const byDot = await seed(api, routes.carrier, carrierBody(tenant, { carrier_name: 'Alpha', dot_number: 'HAUL-DOT', scac: 'AAAA' }));
    const byScac = await seed(api, routes.carrier, carrierBody(tenant, { carrier_name: 'Gamma', scac: 'HAUL' }));
    await seed(api, routes.carrier, carrierBody(tenant, { carrier_name: 'Other', scac: 'OOOO' }));
    const query = `query ($s: String) { carriers(first: 10, search: $s) { totalCount edges { node { permalink name } } } }`;

    const data = await gqlData(api, query, { s: 'haul' });
    expect(data.carriers.totalCount).toBe(4);
    expect(data.carriers.edges.map((e: any) => e.node.permalink)).toEqual([byDot, byMc, byScac, byName].map((c) => c.native_system_carrier_permalink));
    expect((await gqlData(api, query, { s: 'mc-HAUL' })).carriers.edges.map((e: any) => e.node.name)).toEqual(['Beta']);
    expect((await gqlData(api, query, {})).carriers.totalCount).toBe(5);
  });
});

describe('statusMappings', () => {
  test("lists the tenant's mapping by status", async ({ api }) => {
    await gqlData(
      api,
      `mutation { a: setStatusMapping(status: " Picked up ", phase: AT_PICKUP) { status } b: setStatusMapping(status: "Booked", phase: COVERED) { status } }`,
    );
    const data = await gqlData(api, '{ statusMappings { status phase updatedAt } }');
    expect(data.statusMappings).toEqual([
      { status: 'Booked', phase: 'COVERED', updatedAt: expect.any(String) },
      { status: 'Picked up', phase: 'AT_PICKUP', updatedAt: expect.any(String) },
    ]);
  });
});
