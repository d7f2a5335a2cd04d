/**
 * The `loads` page is answered by the compiled reads (src/graphql/compiled-read.ts: one statement in
 * which PostgreSQL builds the JSON); the resolvers read through Prisma. These tests hold the two to
 * the same answers on chosen trees: every field of the load board document and of the whole load tree
 * (against `load(permalink)` answered by the resolvers), the filters (compared with Prisma's
 * `loadFilterWhere` on the same rows), orders and cursors. The generated cases are compiled-differential.test.ts's.
 */
import { describe, expect, test } from '../../fixtures.js';
import { carrierBody, loadBody, loadLegBody, loadUpdateBody, routes, seed, stopBody } from '../../factories/records.js';
import { gqlData, loadTreeFields } from '../../factories/graphql.js';
import { apiFor, resolversApp, type TestApp, type TestTenant } from '../../helpers/app.js';
import { loadFilterWhere, loadOrderBy, type LoadFilter } from '../../../src/domain/load/queries.js';

/** The load board of bench/run.ts, plus the dashboard's activity fields and the rest of the tree. */
const nodeFields = /* GraphQL */ `
  id ${loadTreeFields} phaseHistory { fromPhase toPhase status }
  lastActivityAt lastUpdate { permalink occurredAt message } lastLocation { latitude longitude occurredAt } nextStop { permalink city }
  latest: updates(first: 1) { type occurredAt status phase latitude longitude city state message }
  none: updates(first: 0) { permalink }`;

/** Three loads with varied trees: legs without sequence or carrier, stops departed, updates without time or position. */
async function seedBoard(testApp: TestApp, tenant: TestTenant) {
  const api = apiFor(testApp, tenant.apiKey);
  const carrier = await seed(api, routes.carrier, carrierBody(tenant, { email: 'dispatch@example.com' }));
  const loads = [];
  for (let i = 0; i < 3; i++) {
    const load = await seed(
      api,
      routes.load,
      loadBody(tenant, { native_system_load_status: ['Booked', 'In Transit', 'Del_vered'][i], load_mode: 'FTL', extra_field: { n: i } }),
    );
    loads.push(load);
    testApp.clock.advance(1000);
    const legs = [];
    for (const sequence of i === 1 ? [2, null, 1] : [1]) {
      legs.push(
        await seed(
          api,
          routes.load_leg,
          loadLegBody(tenant, load, {
            load_leg_sequence: sequence,
            native_system_load_unique_key: sequence === 1 ? `key ${i}/x` : null,
            native_system_carrier_permalink: sequence === null ? null : carrier.native_system_carrier_permalink,
            driver_name: `Driver ${i}`,
          }),
        ),
      );
    }
    for (const [n, leg] of legs.entries()) {
      await seed(
        api,
        routes.stop,
        stopBody(tenant, leg, { stop_sequence: 2, stop_type: 'delivery', city: n ? 'Dallas' : 'Chicago', latitude: 41.5, longitude: -87.25 }),
      );
      await seed(
        api,
        routes.stop,
        stopBody(tenant, leg, { stop_sequence: 1, departed_at: '2026-11-20T08:00:00.123Z', appointment_start: '2026-11-20T07:00:00Z', city: 'Gary' }),
      );
    }
    await seed(api, routes.load_update, loadUpdateBody(tenant, load, { occurred_at: '2026-11-20T10:00:00.5Z', latitude: 41.1, longitude: -87.9 }));
    await seed(
      api,
      routes.load_update,
      loadUpdateBody(tenant, load, { occurred_at: null, update_type: 'status_remark', native_system_load_status: 'Delayed' }),
    );
    if (i !== 2) await seed(api, routes.load_update, loadUpdateBody(tenant, load, { occurred_at: '2026-11-21T10:00:00Z', message: `late ${i}` }));
  }
  return { api, carrier, loads };
}

describe('the loads page read in one SQL statement', { timeout: 120_000 }, () => {
  test('every field of every load of the page equals what the resolvers read for load(permalink)', async ({ testApp }) => {
    const tenant = await testApp.createTenant({ tmsUrlTemplate: 'https://tms.example/{key}' });
    const { api: compiledApi, loads } = await seedBoard(testApp, tenant);
    const api = apiFor(await resolversApp(testApp), tenant.apiKey);
    for (const orderBy of ['CREATED_DESC', 'ACTIVITY_DESC']) {
      const page = await gqlData(compiledApi, `{ loads(first: 50, orderBy: ${orderBy}) { totalCount edges { cursor node { ${nodeFields} } } } }`);
      expect(page.loads.totalCount).toBe(3);
      expect(page.loads.edges).toHaveLength(3);
      for (const { node } of page.loads.edges) {
        const one = await gqlData(api, `query ($p: String!) { load(permalink: $p) { ${nodeFields} } }`, { p: node.permalink });
        expect(node).toEqual(one.load);
      }
    }
    const middle = (await gqlData(api, `query ($p: String!) { load(permalink: $p) { ${nodeFields} } }`, { p: loads[1]!.native_system_load_permalink })).load;
    // The tree really is varied: legs by sequence with the sequence-less one last, stops by sequence, updates newest first.
    expect(middle.legs.map((leg: any) => leg.sequence)).toEqual([1, 2, null]);
    expect(middle.legs[2].carrier).toBeNull();
    expect(middle.legs[0].stops.map((stop: any) => stop.sequence)).toEqual([1, 2]);
    expect(middle.updates.map((update: any) => update.occurredAt)).toEqual(['2026-11-21T10:00:00.000Z', '2026-11-20T10:00:00.500Z', null]);
    expect(middle.tmsUrl).toBe('https://tms.example/key%201%2Fx');
    expect(middle.legs[0].stops[0].departedAt).toBe('2026-11-20T08:00:00.123Z');
  });

  test('filters match the same loads as Prisma with loadFilterWhere, in both orders', async ({ testApp }) => {
    const tenant = await testApp.createTenant();
    const other = await testApp.createTenant();
    const { carrier, loads } = await seedBoard(testApp, tenant);
    await seedBoard(testApp, other);
    const api = apiFor(testApp, tenant.apiKey);
    const filters: LoadFilter[] = [
      {},
      { phase: [] },
      { phase: ['UNMAPPED', 'DELIVERED'] },
      { status: ' in transit ' },
      { status: 'del_vered' },
      { status: 'b%' },
      { status: '\\' },
      { search: 'bol-' },
      { search: loads[1]!.native_system_load_id as string },
      { search: 'SR-' },
      { search: '%' },
      { search: '_' },
      { search: '\\' },
      { search: '   ' },
      { city: 'dallas' },
      { city: 'gary ' },
      { city: 'nowhere' },
      { carrier: carrier.native_system_carrier_permalink as string },
      { carrier: 'unknown' },
      { changedSince: new Date(0), activitySince: new Date(0), city: 'CHICAGO' },
      { changedSince: new Date('2100-01-01T00:00:00Z') },
    ];
    for (const filter of filters) {
      for (const orderBy of ['CREATED_DESC', 'ACTIVITY_DESC'] as const) {
        const data = await gqlData(
          api,
          `query ($filter: LoadFilter) { loads(first: 50, orderBy: ${orderBy}, filter: $filter) { totalCount edges { node { permalink } } } }`,
          { filter: { ...filter, changedSince: filter.changedSince?.toISOString(), activitySince: filter.activitySince?.toISOString() } },
        );
        const expected = await testApp.database.db.prisma.load.findMany({
          where: loadFilterWhere(tenant.id, filter),
          orderBy: loadOrderBy(orderBy),
          select: { permalink: true },
        });
        const label = `${JSON.stringify(filter)} ${orderBy}`;
        expect(
          data.loads.edges.map((edge: any) => edge.node.permalink),
          label,
        ).toEqual(expected.map((load) => load.permalink));
        expect(data.loads.totalCount, label).toBe(expected.length);
      }
    }
  });

  test('cursors page forwards and backwards like Prisma, and a cursor of another tenant is rejected', async ({ testApp }) => {
    const tenant = await testApp.createTenant();
    const other = await testApp.createTenant();
    const api = apiFor(testApp, tenant.apiKey);
    const permalinks = [];
    for (let i = 0; i < 5; i++) {
      permalinks.unshift((await seed(api, routes.load, loadBody(tenant))).native_system_load_permalink);
      testApp.clock.advance(1000);
    }
    const page = (args: string) =>
      gqlData(api, `{ loads(${args}) { edges { cursor node { permalink } } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } }`).then(
        (data) => data.loads,
      );
    const first = await page('first: 2');
    expect(first.edges.map((edge: any) => edge.node.permalink)).toEqual(permalinks.slice(0, 2));
    expect(first.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: false });
    const second = await page(`first: 2, after: "${first.pageInfo.endCursor}"`);
    expect(second.edges.map((edge: any) => edge.node.permalink)).toEqual(permalinks.slice(2, 4));
    expect(second.pageInfo).toMatchObject({ hasNextPage: true, hasPreviousPage: true });
    const rest = await page(`first: 5, after: "${second.pageInfo.endCursor}"`);
    expect(rest.edges.map((edge: any) => edge.node.permalink)).toEqual(permalinks.slice(4));
    expect(rest.pageInfo.hasNextPage).toBe(false);
    const back = await page(`last: 2, before: "${rest.pageInfo.startCursor}"`);
    expect(back.edges.map((edge: any) => edge.node.permalink)).toEqual(permalinks.slice(2, 4));
    expect(back.pageInfo).toMatchObject({ hasPreviousPage: true });
    const last = await page('last: 3');
    expect(last.edges.map((edge: any) => edge.node.permalink)).toEqual(permalinks.slice(2));
    // A cursor from another tenant names no load here.
    await seed(apiFor(testApp, other.apiKey), routes.load, loadBody(other));
    const foreign = (await gqlData(apiFor(testApp, other.apiKey), '{ loads(first: 1) { pageInfo { endCursor } } }')).loads.pageInfo.endCursor;
    const res = await api.post('/graphql', { query: `{ loads(first: 2, after: "${foreign}") { edges { node { permalink } } } }` });
    expect(res.body.errors[0].extensions.code).toBe('validation_failed');
  });

  test('the board page is one statement, its relations and count included', async ({ testApp }) => {
    const tenant = await testApp.createTenant();
    const { api } = await seedBoard(testApp, tenant);
    const statements: string[] = [];
    const stop = testApp.database.db.onStatement((sql) => statements.push(sql));
    try {
      await gqlData(
        api,
        `{ loads(first: 50) { totalCount edges { node { permalink tmsUrl legs { driverName carrier { name } stops { city } } updates(first: 1) { message } } } } }`,
      );
    } finally {
      stop();
    }
    const reads = statements.filter((sql) => /\b(loads|load_legs|stops|load_updates|carriers)\b/.test(sql));
    expect(reads).toHaveLength(1);
    expect(reads[0]).toContain('count(*)');
  });
});
