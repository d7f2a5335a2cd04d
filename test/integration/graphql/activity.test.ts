/**
 * Load activity for dashboards: lastActivityAt (children's writes included), lastUpdate,
 * lastLocation, nextStop, the activitySince / carrier / city filters and ACTIVITY_DESC.
 */
import { describe, expect, test } from '../../fixtures.js';
import { carrierBody, loadBody, loadLegBody, loadUpdateBody, routes, seed, seedLoadTree, stopBody } from '../../factories/records.js';
import { compiledStatement } from '../../helpers/compiled.js';
import { gqlData } from '../../factories/graphql.js';

const activityFields = /* GraphQL */ `permalink changedAt lastActivityAt
  lastUpdate { permalink occurredAt message }
  lastLocation { latitude longitude occurredAt }
  nextStop { permalink sequence }`;

// The file's first test also waits for the app's database to be created and migrated.
describe('load activity', { timeout: 120_000 }, () => {
  test('lastActivityAt follows writes of the load, its legs, stops and updates; activitySince and ACTIVITY_DESC use it', async ({ testApp, api, tenant }) => {
    const quiet = await seed(api, routes.load, loadBody(tenant));
    const busy = await seed(api, routes.load, loadBody(tenant));
    const leg = await seed(api, routes.load_leg, loadLegBody(tenant, busy));
    const stop = await seed(api, routes.stop, stopBody(tenant, leg));
    testApp.clock.advance(60_000);
    try {
      const since = testApp.clock.now();
      // A stop's arrival is the only write after `since`: the load row itself is untouched.
      await seed(api, routes.stop, { ...stop, arrived_at: '2026-11-23T09:00:00Z' });
      const board = await gqlData(
        api,
        `query ($since: DateTime) {
        active: loads(filter: { activitySince: $since }) { edges { node { ${activityFields} } } }
        changed: loads(filter: { changedSince: $since }) { totalCount }
        byActivity: loads(orderBy: ACTIVITY_DESC) { edges { node { permalink } } }
        byCreation: loads { edges { node { permalink } } }
      }`,
        { since: since.toISOString() },
      );
      expect(board.active.edges.map((e: any) => e.node.permalink)).toEqual([busy.native_system_load_permalink]);
      const node = board.active.edges[0].node;
      expect(new Date(node.lastActivityAt).getTime()).toBeGreaterThanOrEqual(since.getTime());
      expect(new Date(node.changedAt).getTime()).toBeLessThan(since.getTime());
      expect(board.changed.totalCount).toBe(0);
      expect(board.byActivity.edges.map((e: any) => e.node.permalink)).toEqual([busy.native_system_load_permalink, quiet.native_system_load_permalink]);
      expect(board.byCreation.edges.map((e: any) => e.node.permalink)).toEqual([busy.native_system_load_permalink, quiet.native_system_load_permalink]);

      // A load update on the quiet load moves it to the top.
      testApp.clock.advance(60_000);
      await seed(api, routes.load_update, loadUpdateBody(tenant, quiet));
      const reordered = await gqlData(api, `{ loads(orderBy: ACTIVITY_DESC) { edges { node { permalink } } } }`);
      expect(reordered.loads.edges.map((e: any) => e.node.permalink)).toEqual([quiet.native_system_load_permalink, busy.native_system_load_permalink]);
    } finally {
      testApp.clock.reset();
    }
  });

  test('lastUpdate, lastLocation and nextStop', async ({ api, tenant }) => {
    const load = await seed(api, routes.load, loadBody(tenant));
    const empty = await gqlData(api, `query ($p: String!) { load(permalink: $p) { ${activityFields} } }`, { p: load.native_system_load_permalink });
    expect(empty.load).toMatchObject({ lastUpdate: null, lastLocation: null, nextStop: null });

    const leg2 = await seed(api, routes.load_leg, loadLegBody(tenant, load, { load_leg_sequence: 2 }));
    const leg1 = await seed(api, routes.load_leg, loadLegBody(tenant, load, { load_leg_sequence: 1 }));
    await seed(api, routes.stop, stopBody(tenant, leg1, { stop_sequence: 1, arrived_at: '2026-11-20T08:00:00Z', departed_at: '2026-11-20T09:00:00Z' }));
    const next = await seed(api, routes.stop, stopBody(tenant, leg1, { stop_sequence: 2, arrived_at: '2026-11-20T12:00:00Z' }));
    await seed(api, routes.stop, stopBody(tenant, leg2, { stop_sequence: 1 }));
    await seed(
      api,
      routes.load_update,
      loadUpdateBody(tenant, load, { update_type: 'gps_ping', occurred_at: '2026-11-20T10:00:00Z', latitude: 41.5, longitude: -88.1 }),
    );
    const newest = await seed(api, routes.load_update, loadUpdateBody(tenant, load, { occurred_at: '2026-11-20T11:00:00Z', message: 'Running late' }));
    await seed(
      api,
      routes.load_update,
      loadUpdateBody(tenant, load, { update_type: 'gps_ping', occurred_at: '2026-11-20T09:00:00Z', latitude: 40, longitude: -87 }),
    );

    const data = await gqlData(api, `query ($p: String!) { load(permalink: $p) { ${activityFields} } }`, { p: load.native_system_load_permalink });
    expect(data.load.lastUpdate).toEqual({
      permalink: newest.native_system_load_update_permalink,
      occurredAt: '2026-11-20T11:00:00.000Z',
      message: 'Running late',
    });
    expect(data.load.lastLocation).toEqual({ latitude: 41.5, longitude: -88.1, occurredAt: '2026-11-20T10:00:00.000Z' });
    expect(data.load.nextStop).toEqual({ permalink: next.native_system_stop_permalink, sequence: 2 });
  });

  test("carrier and city filters match any leg's carrier and any stop's city (case-insensitive)", async ({ api, tenant }) => {
    const carrier = await seed(api, routes.carrier, carrierBody(tenant));
    const withCarrier = await seed(api, routes.load, loadBody(tenant));
    const inDenver = await seed(api, routes.load, loadBody(tenant));
    await seed(api, routes.load, loadBody(tenant));
    await seed(
      api,
      routes.load_leg,
      loadLegBody(tenant, withCarrier, { load_leg_sequence: 2, native_system_carrier_permalink: carrier.native_system_carrier_permalink }),
    );
    const leg = await seed(api, routes.load_leg, loadLegBody(tenant, inDenver));
    await seed(api, routes.stop, stopBody(tenant, leg, { city: 'Denver' }));
    const data = await gqlData(
      api,
      `query ($carrier: String) {
      byCarrier: loads(filter: { carrier: $carrier }) { totalCount edges { node { permalink } } }
      byCity: loads(filter: { city: "  dENVER " }) { totalCount edges { node { permalink } } }
      both: loads(filter: { carrier: $carrier, city: "Denver" }) { totalCount }
    }`,
      { carrier: carrier.native_system_carrier_permalink },
    );
    expect(data.byCarrier.edges.map((e: any) => e.node.permalink)).toEqual([withCarrier.native_system_load_permalink]);
    expect(data.byCity.edges.map((e: any) => e.node.permalink)).toEqual([inDenver.native_system_load_permalink]);
    expect(data.both.totalCount).toBe(0);
  });

  test("city compares the stops' lower-cased city through the load city set, whose key serves it", async ({ testApp, api, tenant }) => {
    const { load, stop } = await seedLoadTree(api, tenant);
    // The stop's new city, through the write statement that keeps the set (decision 0036).
    expect((await api.post(routes.stop, { ...stop, city: 'Grand Rapids' })).status).toBe(200);
    const byCity = (city: string) =>
      gqlData(
        api,
        'query ($city: String) { loads(filter: { city: $city }) { totalCount edges { node { permalink } } } }',
        { city },
        { 'cache-control': 'no-cache' },
      );
    expect((await byCity('grand RAPIDS')).loads.edges.map((e: any) => e.node.permalink)).toEqual([load.native_system_load_permalink]);
    expect((await byCity('Chicago')).loads.totalCount).toBe(0);
    // Equality, not a pattern: `%` and `_` are characters.
    expect((await byCity('grand%')).loads.totalCount).toBe(0);
    expect((await byCity('grand_rapids')).loads.totalCount).toBe(0);

    // The count the board sends can use the index (sequential scans priced out, as on a big tenant).
    const captured = compiledStatement('{ loads(filter: { city: "grand rapids" }) { totalCount } }', {}, tenant);
    const plan = await testApp.database.db.prisma.$transaction(async (tx) => {
      await tx.$executeRawUnsafe('SET LOCAL enable_seqscan = off');
      return tx.$queryRawUnsafe<{ 'QUERY PLAN': string }[]>(`EXPLAIN ${captured.text}`, ...captured.params);
    });
    expect(plan.map((row) => row['QUERY PLAN']).join('\n')).toContain('load_cities_pkey');
  });
});
