/**
 * GraphQL `loadEvents` (paging, filters, tenancy), ingest-health transitions and retention.
 */
import { describe, expect, test } from '../../fixtures.js';
import { loadBody, routes, seed } from '../../factories/records.js';
import { gqlData } from '../../factories/graphql.js';
import { eventMaintenanceOf } from '../../helpers/maintenance.js';

const eventsQuery = /* GraphQL */ `query ($after: String, $first: Int, $filter: LoadEventFilter) {
  loadEvents(after: $after, first: $first, filter: $filter) {
    edges { cursor node { cursor type loadPermalink data occurredAt } }
    pageInfo { hasNextPage endCursor }
  }
}`;

// The file's first test also waits for the app's database to be created and migrated.
describe('loadEvents query', { timeout: 120_000 }, () => {
  test("pages through the tenant's events in seq order with cursors", async ({ api, tenant, otherApi, otherTenant }) => {
    const loads = Array.from({ length: 5 }, () => loadBody(tenant));
    for (const body of loads) await seed(api, routes.load, body);
    await seed(otherApi, routes.load, loadBody(otherTenant));
    const first = await gqlData(api, eventsQuery, { first: 3 });
    expect(first.loadEvents.edges.map((e: any) => e.cursor)).toEqual(['1', '2', '3']);
    expect(first.loadEvents.pageInfo).toEqual({ hasNextPage: true, endCursor: '3' });
    expect(first.loadEvents.edges[0].node).toMatchObject({ type: 'load.created', loadPermalink: loads[0]!.native_system_load_permalink });
    const rest = await gqlData(api, eventsQuery, { first: 3, after: first.loadEvents.pageInfo.endCursor });
    expect(rest.loadEvents.edges.map((e: any) => e.node.loadPermalink)).toEqual(loads.slice(3).map((l) => l.native_system_load_permalink));
    expect(rest.loadEvents.pageInfo).toEqual({ hasNextPage: false, endCursor: '5' });
    // An empty page keeps the cursor, so a poller passes it back unchanged.
    const empty = await gqlData(api, eventsQuery, { after: '5' });
    expect(empty.loadEvents).toEqual({ edges: [], pageInfo: { hasNextPage: false, endCursor: '5' } });
    // The other tenant sees only its own.
    const theirs = await gqlData(otherApi, eventsQuery, {});
    expect(theirs.loadEvents.edges.map((e: any) => e.node.loadPermalink)).toEqual([expect.stringContaining(otherTenant.slug)]);
  });

  test('filters by types and load permalinks', async ({ api, tenant }) => {
    const a = await seed(api, routes.load, loadBody(tenant));
    const b = await seed(api, routes.load, loadBody(tenant));
    await seed(api, routes.load, { ...a, bol_number: 'A2' });
    await seed(api, routes.load, { ...b, bol_number: 'B2' });
    const changed = await gqlData(api, eventsQuery, { filter: { types: ['load.changed'] } });
    expect(changed.loadEvents.edges.map((e: any) => e.node.loadPermalink)).toEqual([a.native_system_load_permalink, b.native_system_load_permalink]);
    const ofB = await gqlData(api, eventsQuery, { filter: { loadPermalinks: [b.native_system_load_permalink] } });
    expect(ofB.loadEvents.edges.map((e: any) => [e.node.type, e.cursor])).toEqual([
      ['load.created', '2'],
      ['load.changed', '4'],
    ]);
  });
});

describe('ingest_health.state_changed and retention', { timeout: 120_000 }, () => {
  test('a source that starts receiving, then falls silent, records its state changes once each', async ({ testApp, api, tenant }) => {
    const maintenance = eventMaintenanceOf(testApp, { retentionMs: 7 * 86_400_000 });
    await seed(api, routes.load, loadBody(tenant));
    await maintenance.runOnce();
    await maintenance.runOnce(); // unchanged: nothing more
    testApp.clock.advance(2 * 86_400_000); // longer than the unspecified source's expected interval (1 day)
    try {
      await maintenance.runOnce();
    } finally {
      testApp.clock.reset();
    }
    const data = await gqlData(api, eventsQuery, { filter: { types: ['ingest_health.state_changed'] } });
    expect(data.loadEvents.edges.map((e: any) => [e.node.loadPermalink, e.node.data])).toEqual([
      [null, expect.objectContaining({ source: 'UNSPECIFIED', from: 'NO_TRAFFIC', to: 'HEALTHY' })],
      [null, expect.objectContaining({ source: 'UNSPECIFIED', from: 'HEALTHY', to: 'STALE' })],
    ]);
  });

  test('events older than the retention are pruned; the cursor keeps counting', async ({ testApp, api, tenant }) => {
    const maintenance = eventMaintenanceOf(testApp, { retentionMs: 3_600_000 });
    await seed(api, routes.load, loadBody(tenant));
    await seed(api, routes.load, loadBody(tenant));
    testApp.clock.advance(2 * 3_600_000);
    try {
      await seed(api, routes.load, loadBody(tenant));
      await maintenance.runOnce();
    } finally {
      testApp.clock.reset();
    }
    const data = await gqlData(api, eventsQuery, { filter: { types: ['load.created'] } });
    expect(data.loadEvents.edges.map((e: any) => e.cursor)).toEqual(['3']);
  });
});
