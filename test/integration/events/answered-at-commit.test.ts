/**
 * A write is answered at its commit, not after its numbering pass (docs/decisions/0045-answered-at-the-commit.md):
 * its 200 means stored, and the client's next request still finds its event and its webhook delivery,
 * because every read that depends on numbered events runs the tenant's pass first.
 */
import { loadBody, routes, seed } from '../../factories/records.js';
import { onPostgres } from '../../setup/database.js';
import { createEndpoint, describe, expect, test } from '../webhooks/setup.js';

const eventsQuery = `{ loadEvents(first: 50) { edges { node { type loadPermalink } } } }`;
const deliveriesQuery = `query($id: ID!) { webhookEndpoint(id: $id) { deliveries { eventType state } } }`;

describe('a write answered at its commit', () => {
  test('the next request sees the write in loadEvents and under its webhook endpoint', async ({ api, tenant, receiver }) => {
    const { id } = await createEndpoint(api, receiver.url, ['load.created']);
    const load = loadBody(tenant);
    await seed(api, routes.load, load);
    // No wait of any kind between the answer and the next request.
    const events = await api.graphql(eventsQuery);
    expect(events.body.data.loadEvents.edges.map((e: any) => e.node)).toEqual([{ type: 'load.created', loadPermalink: load.native_system_load_permalink }]);
    const deliveries = await api.graphql(deliveriesQuery, { id });
    expect(deliveries.body.data.webhookEndpoint.deliveries).toEqual([{ eventType: 'load.created', state: 'PENDING' }]);
  });

  // Needs a second connection to hold the tenant's numbering: PostgreSQL only (PGlite has one connection).
  test.skipIf(!onPostgres())(
    'PostgreSQL (needs DATABASE_URL): with the numbering held, the write still answers 200; its event waits, unnumbered, then is read',
    async ({ api, tenant, testApp }) => {
      const { db } = testApp.database;
      await seed(api, routes.load, loadBody(tenant)); // the tenant's cursor row exists from here on
      await testApp.app.services.sequencer.idle();
      let release = () => {};
      const released = new Promise<void>((resolve) => (release = resolve));
      let locked = () => {};
      const isLocked = new Promise<void>((resolve) => (locked = resolve));
      // Another session holds the tenant's cursor row, as a long pass would: every numbering pass of the tenant waits.
      const hold = db.transaction(async (sql) => {
        await sql.query('SELECT seq FROM load_event_cursors WHERE tenant_id = $1::uuid FOR UPDATE', [tenant.id]);
        locked();
        await released;
      });
      await isLocked;
      const load = loadBody(tenant);
      const answer = await api.post(routes.load, load);
      expect([answer.status, answer.body.status]).toEqual([200, 'processed']);
      const stored = await db.sql.query<{ seq: string | null }>('SELECT seq FROM load_events WHERE tenant_id = $1::uuid AND load_permalink = $2', [
        tenant.id,
        load.native_system_load_permalink,
      ]);
      expect(stored).toEqual([{ seq: null }]);
      release();
      await hold;
      const events = await api.graphql(eventsQuery);
      expect(events.body.data.loadEvents.edges.map((e: any) => e.node.loadPermalink)).toContain(load.native_system_load_permalink);
    },
  );
});
