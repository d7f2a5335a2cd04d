import { describe, expect, test } from '../../fixtures.js';
import { carrierBody, fullBodies, loadBody, loadLegBody, loadUpdateBody, routes, seed, stopBody } from '../../factories/records.js';
import { gqlData, gqlError, toInput, upsertMutations } from '../../factories/graphql.js';
import { camelCase } from '../../../src/domain/declaration/fields.js';
import { recordSpecOf } from '../../../src/domain/registry.js';
import type { Api } from '../../helpers/app.js';

async function upsert(
  api: Api,
  kind: keyof typeof upsertMutations,
  input: Record<string, unknown>,
  extra: { syncRunTime?: string; headers?: Record<string, string> } = {},
) {
  const field = recordSpecOf[kind].graphql.mutation;
  const data = await gqlData(api, upsertMutations[kind], { input: toInput(input), syncRunTime: extra.syncRunTime }, extra.headers);
  return data[field];
}

describe('ingestion mutations', () => {
  test('a REST body, its fields in camelCase, is stored exactly as REST stores it, for all five kinds', async ({ api, tenant }) => {
    const carrier = fullBodies.carrier(tenant);
    const load = fullBodies.load(tenant);
    const leg = fullBodies.load_leg(tenant, load, carrier);
    const stop = fullBodies.stop(tenant, leg, { stop_type: 'delivery' });
    const update = fullBodies.load_update(tenant, load, leg, { update_type: 'gps_ping' });
    for (const [kind, body, permalinkField] of [
      ['carrier', carrier, 'native_system_carrier_permalink'],
      ['load', load, 'native_system_load_permalink'],
      ['load_leg', leg, 'native_system_load_leg_permalink'],
      ['stop', stop, 'native_system_stop_permalink'],
      ['load_update', update, 'native_system_load_update_permalink'],
    ] as const) {
      expect(await upsert(api, kind, body)).toEqual({
        status: 'PROCESSED',
        message: expect.stringContaining('processed (created)'),
        permalink: body[permalinkField],
      });
    }
    const data = await gqlData(
      api,
      `query ($p: String!) { load(permalink: $p) { customerName bolNumber legs { driverName carrier { email } stops { type appointmentEnd timezone } } updates { type latitude eta source } } }`,
      { p: load.native_system_load_permalink },
    );
    expect(data.load).toEqual({
      customerName: 'Acme Foods',
      bolNumber: load.bol_number,
      legs: [
        {
          driverName: 'Sam Driver',
          carrier: { email: 'dispatch@example.com' },
          stops: [{ type: 'DELIVERY', appointmentEnd: '2026-11-23T12:00:00.000Z', timezone: 'America/Chicago' }],
        },
      ],
      updates: [{ type: 'GPS_PING', latitude: 41.88, eta: '2026-11-24T10:00:00.000Z', source: 'ELD' }],
    });
  });

  test('answers the same outcomes as REST: updated, skipped by an older syncRunTime, duplicate update', async ({ api, tenant }) => {
    const load = loadBody(tenant);
    await upsert(api, 'load', load, { syncRunTime: '2026-01-02T00:00:00Z' });
    expect(await upsert(api, 'load', { ...load, bol_number: 'OLDER' }, { syncRunTime: '2026-01-01T00:00:00Z' })).toMatchObject({ status: 'SKIPPED' });
    expect(await upsert(api, 'load', { ...load, bol_number: 'NEWER' }, { syncRunTime: '2026-01-03T00:00:00Z' })).toMatchObject({
      status: 'PROCESSED',
      message: expect.stringContaining('updated'),
    });
    const update = loadUpdateBody(tenant, load);
    await upsert(api, 'load_update', update);
    expect(await upsert(api, 'load_update', update)).toMatchObject({ status: 'DUPLICATE', permalink: update.native_system_load_update_permalink });
    const stored = await gqlData(api, 'query ($p: String!) { load(permalink: $p) { bolNumber } }', { p: load.native_system_load_permalink });
    expect(stored.load.bolNumber).toBe('NEWER');
  });

  test('upsertCarrier ignores syncRunTime, as the REST route does', async ({ api, tenant }) => {
    const carrier = carrierBody(tenant);
    await upsert(api, 'carrier', carrier, { syncRunTime: '2026-01-02T00:00:00Z' });
    expect(await upsert(api, 'carrier', { ...carrier, carrier_name: 'Renamed' }, { syncRunTime: '2026-01-01T00:00:00Z' })).toMatchObject({
      status: 'PROCESSED',
    });
  });

  test("validation errors carry the same code and details as the REST answer to the same body (but for REST's presence rule)", async ({ api, tenant }) => {
    const body = { ...loadLegBody(tenant, loadBody(tenant)), load_leg_sequence: 0, driver_name: 'x'.repeat(251), native_system_reference_number: null };
    delete (body as Record<string, unknown>).native_system_load_id;
    const rest = await api.post(routes.load_leg, body);
    expect(rest.status).toBe(400);
    const { error } = await gqlError(api, upsertMutations.load_leg, { input: toInput(body) });
    expect(error.path).toEqual(['upsertLoadLeg']);
    const restDetails: { field: string; issue: string }[] = rest.body.error.details;
    // The absent native_system_load_id is REST's presence rule only: GraphQL counts it as null.
    const sameRules = restDetails.filter((d) => d.field !== 'native_system_load_id');
    expect(error.extensions).toEqual({ code: 'validation_failed', details: sameRules.map((d) => ({ ...d, field: camelCase(d.field) })) });
    expect(error.message).toContain('driverName');
    expect(rest.body.error.details.map((d: { field: string }) => d.field).sort()).toEqual(['driver_name', 'load_leg_sequence', 'native_system_load_id']);
  });

  test('parent_not_found and tenant_mismatch reach GraphQL with their REST codes', async ({ api, tenant }) => {
    const orphan = stopBody(tenant, { native_system_load_leg_permalink: `MISSING-${tenant.slug}` });
    const missing = await gqlError(api, upsertMutations.stop, { input: toInput(orphan) });
    expect(missing.error.extensions).toEqual({
      code: 'parent_not_found',
      details: [{ field: 'nativeSystemLoadLegPermalink', issue: expect.stringContaining(`MISSING-${tenant.slug}`) }],
    });
    const mismatch = await gqlError(api, upsertMutations.carrier, { input: toInput(carrierBody(tenant, { company_permalink: 'someone-else' })) });
    expect(mismatch.error.extensions?.code).toBe('tenant_mismatch');
  });

  test('extra fields are kept in `extra`; an extra that repeats an input field is rejected', async ({ api, tenant }) => {
    const load = loadBody(tenant);
    await upsert(api, 'load', { ...load, extra: { tms_flag: 'A', nested: { n: 1 } } });
    await upsert(api, 'load', { ...load, extra: { tms_flag: 'B' } });
    const data = await gqlData(api, 'query ($p: String!) { load(permalink: $p) { extra } }', { p: load.native_system_load_permalink });
    expect(data.load.extra).toEqual({ tms_flag: 'B', nested: { n: 1 } });

    const clash = await gqlError(api, upsertMutations.load, { input: { ...toInput(load), extra: { bol_number: 'sneaky', bolNumber: 'sneaky' } } });
    expect(clash.error.extensions).toEqual({
      code: 'validation_failed',
      details: [
        { field: 'extra.bol_number', issue: expect.any(String) },
        { field: 'extra.bolNumber', issue: expect.any(String) },
      ],
    });
    const notObject = await gqlError(api, upsertMutations.load, { input: { ...toInput(load), extra: [1, 2] } });
    expect(notObject.error.extensions?.details).toEqual([{ field: 'extra', issue: expect.any(String) }]);
  });

  test('a non-null permalink is required by the schema itself', async ({ api, tenant }) => {
    const { native_system_carrier_permalink: _, ...body } = carrierBody(tenant);
    const res = await api.graphql(upsertMutations.carrier, { input: toInput(body) });
    expect(res.body.errors[0].message).toContain('nativeSystemCarrierPermalink');
  });

  test('every mutation is counted in ingest health by Service-Ingest-Source, rejections included', async ({ api, tenant }) => {
    const load = loadBody(tenant);
    await upsert(api, 'load', load, { headers: { 'service-ingest-source': 'pull' } });
    await upsert(api, 'load', load, { headers: { 'service-ingest-source': 'pull' }, syncRunTime: '2000-01-01T00:00:00Z' });
    await upsert(api, 'load_update', loadUpdateBody(tenant, load), { headers: { 'service-ingest-source': ' WEBHOOK ' } });
    const bad = await gqlError(api, upsertMutations.load, { input: toInput({ ...load, bol_number: 'x'.repeat(300) }) }, { 'service-ingest-source': 'pull' });
    expect(bad.error.extensions?.code).toBe('validation_failed');
    const badSource = await gqlError(api, upsertMutations.carrier, { input: toInput(carrierBody(tenant)) }, { 'service-ingest-source': 'carrier-pigeon' });
    expect(badSource.error.extensions?.details).toEqual([{ field: 'Service-Ingest-Source', issue: expect.any(String) }]);

    const health = await gqlData(
      api,
      `{ ingestHealth {
      sources { source lastHour { processed skipped duplicate rejected } byKind { kind lastHour { processed skipped rejected } } }
      recentRejections { code field permalink kind source }
    } }`,
    );
    const source = (name: string) => health.ingestHealth.sources.find((s: { source: string }) => s.source === name);
    expect(source('PULL').lastHour).toEqual({ processed: 1, skipped: 1, duplicate: 0, rejected: 1 });
    expect(source('WEBHOOK').lastHour).toEqual({ processed: 1, skipped: 0, duplicate: 0, rejected: 0 });
    expect(source('UNSPECIFIED').lastHour).toEqual({ processed: 0, skipped: 0, duplicate: 0, rejected: 1 });
    expect(health.ingestHealth.recentRejections).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ code: 'validation_failed', field: 'bol_number', permalink: load.native_system_load_permalink, source: 'PULL' }),
        expect.objectContaining({ code: 'validation_failed', field: 'Service-Ingest-Source', source: 'UNSPECIFIED' }),
      ]),
    );
  });
});

describe('status mapping mutations', () => {
  test('setStatusMapping re-phases stored loads (recorded in phaseHistory); removeStatusMapping makes them UNMAPPED', async ({ api, tenant }) => {
    const load = await seed(api, routes.load, loadBody(tenant, { native_system_load_status: 'Picked Up' }));
    const set = await gqlData(api, 'mutation { setStatusMapping(status: " picked up ", phase: AT_PICKUP) { status phase } }');
    expect(set.setStatusMapping).toEqual({ status: 'picked up', phase: 'AT_PICKUP' });
    const phased = await gqlData(api, 'query ($p: String!) { load(permalink: $p) { phase phaseHistory { fromPhase toPhase } } }', {
      p: load.native_system_load_permalink,
    });
    expect(phased.load).toEqual({
      phase: 'AT_PICKUP',
      phaseHistory: [
        { fromPhase: null, toPhase: 'UNMAPPED' },
        { fromPhase: 'UNMAPPED', toPhase: 'AT_PICKUP' },
      ],
    });

    expect((await gqlData(api, 'mutation { removeStatusMapping(status: "PICKED UP") }')).removeStatusMapping).toBe(true);
    expect((await gqlData(api, 'mutation { removeStatusMapping(status: "PICKED UP") }')).removeStatusMapping).toBe(false);
    const unmapped = await gqlData(api, 'query ($p: String!) { load(permalink: $p) { phase } statusMappings { status } }', {
      p: load.native_system_load_permalink,
    });
    expect(unmapped).toEqual({ load: { phase: 'UNMAPPED' }, statusMappings: [] });
  });

  test('a blank status is a validation_failed', async ({ api }) => {
    const { error } = await gqlError(api, 'mutation { setStatusMapping(status: "  ", phase: COVERED) { status } }');
    expect(error.extensions?.code).toBe('validation_failed');
  });
});
