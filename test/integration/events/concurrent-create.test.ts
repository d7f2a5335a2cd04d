/**
 * Racing creates of one new record (issue 37, item 0): twenty writers post the same new load (or the
 * same new stop) at once. On PostgreSQL the writes really run on twenty connections: all but one find
 * no stored row when they start, then wait for the first one's insert and update the row it committed.
 * What each write derives (its change events, phase history, the load's city set) must be computed from
 * the row as it really was before it: one `load.created` and nothing else, one phase history row, a city
 * counted once. On PGlite the writes are serialised and must give the same answers.
 */
import type { Database } from '../../../src/db/database.js';
import { bulkRestPath } from '../../../src/domain/declaration/record.js';
import { recordSpecOf } from '../../../src/domain/registry.js';
import { loadBody, loadLegBody, routes, seed, stopBody } from '../../factories/records.js';
import { describe, expect, test } from '../../fixtures.js';
import type { Api } from '../../helpers/app.js';
import { onPostgres } from '../../setup/database.js';
import { underHeldLegWrite } from '../../helpers/held-write.js';

const writers = 20;
const rounds = 12;

/** Opens the pool's connections first, so the writers' statements start together rather than one per new connection. */
async function openConnections(db: Database) {
  await Promise.all(Array.from({ length: writers }, () => db.sql.query('SELECT pg_backend_pid()', [])));
}

/** Posts `body` from every writer at once; every answer is a 200 `processed`, exactly one of them a create. */
async function race(api: Api, path: string, body: Record<string, unknown>) {
  const results = await Promise.all(Array.from({ length: writers }, () => api.post(path, body)));
  expect(
    results.map((r) => r.status),
    JSON.stringify(results.find((r) => r.status !== 200)?.body),
  ).toEqual(Array(writers).fill(200));
  expect(results.map((r) => r.body.status)).toEqual(Array(writers).fill('processed'));
  expect(results.filter((r) => / \(created\)\.$/.test(r.body.message as string))).toHaveLength(1);
}

// 240 writes racing per test: minutes on a loaded two-core machine running a Citus cluster of three nodes (no timing is asserted).
describe('concurrent creates of one new record', { timeout: 180_000 }, () => {
  test(`${writers} writers of one new load, ${rounds} rounds: one load.created and no other event, one phase history row`, async ({ api, tenant, testApp }) => {
    const { db } = testApp.database;
    await openConnections(db);
    for (let round = 0; round < rounds; round++) {
      const load = loadBody(tenant);
      const permalink = load.native_system_load_permalink as string;
      await race(api, routes.load, load);
      const events = await db.sql.query<{ type: string }>(`SELECT type FROM load_events WHERE tenant_id = $1 AND load_permalink = $2 ORDER BY id`, [
        tenant.id,
        permalink,
      ]);
      expect(
        events.map((e) => e.type),
        `round ${round}`,
      ).toEqual(['load.created']);
      const phases = await db.sql.query<{ from_phase: string | null }>(
        `SELECT p.from_phase FROM phase_changes p JOIN loads l ON l.tenant_id = p.tenant_id AND l.id = p.load_id WHERE l.tenant_id = $1 AND l.permalink = $2`,
        [tenant.id, permalink],
      );
      expect(phases, `round ${round}`).toEqual([{ from_phase: null }]);
    }
  });

  test(`${writers} writers of one new stop, ${rounds} rounds: its city counted once; moved to another city, the load leaves the first`, async ({
    api,
    tenant,
    testApp,
  }) => {
    const { db } = testApp.database;
    const load = await seed(api, routes.load, loadBody(tenant));
    const leg = await seed(api, routes.load_leg, loadLegBody(tenant, load));
    await openConnections(db);
    const cities = async () =>
      (
        await db.sql.query<{ city_key: string; stops: number }>(
          `SELECT c.city_key, c.stops FROM load_cities c JOIN loads l ON l.tenant_id = c.tenant_id AND l.id = c.load_id
           WHERE l.tenant_id = $1 AND l.permalink = $2 AND c.stops <> 0 ORDER BY c.city_key`,
          [tenant.id, load.native_system_load_permalink],
        )
      ).map((row) => `${row.city_key} ${row.stops}`);
    const stopEvents = async (permalink: string) =>
      (
        await db.sql.query<{ type: string; created: string | null }>(
          `SELECT type, data ->> 'created' AS created FROM load_events WHERE tenant_id = $1 AND data -> 'stop' ->> 'permalink' = $2 ORDER BY id`,
          [tenant.id, permalink],
        )
      ).map((e) => `${e.type} created: ${e.created}`);
    const stops: Record<string, unknown>[] = [];
    for (let round = 0; round < rounds; round++) {
      const stop = stopBody(tenant, leg, { city: `Race City ${round}`, stop_sequence: round + 1 });
      stops.push(stop);
      await race(api, routes.stop, stop);
      expect(await cities(), `round ${round}`).toEqual(Array.from({ length: round + 1 }, (_, r) => `race city ${r} 1`).sort());
      expect(await stopEvents(stop.native_system_stop_permalink as string), `round ${round}`).toEqual(['stop.changed created: true']);
    }
    // Every stop moves to one city: the load is in that city only, counted once per stop.
    for (const stop of stops) await seed(api, routes.stop, { ...stop, city: 'Elsewhere' });
    expect(await cities()).toEqual([`elsewhere ${rounds}`]);
    const found = await api.graphql('query ($city: String) { loads(first: 5, filter: { city: $city }) { totalCount } }', { city: 'Race City 0' });
    expect(found.body).toEqual({ data: { loads: { totalCount: 0 } } });
  });
});

describe('a bulk write racing the create of one of its records (PostgreSQL: truly parallel)', { timeout: 120_000 }, () => {
  // Another writer's create of one new leg is held uncommitted while a bulk request of six legs, that
  // one among them, starts: the bulk statement finds no stored row for it, then waits for the other
  // insert, which commits. The statement writes its five other legs once and answers the raced one,
  // which is written again in a statement of its own, read as stored (db/record-statements.ts, `raced`).
  test.runIf(onPostgres())(
    'the raced record is written again on its own, as an update of the committed row; the others once',
    async ({ api, tenant, testApp }) => {
      const { db } = testApp.database;
      const load = await seed(api, routes.load, loadBody(tenant));
      const legs = Array.from({ length: 6 }, (_, i) => loadLegBody(tenant, load, { load_leg_sequence: i + 1 }));
      const raced = legs[0]!.native_system_load_leg_permalink as string;
      const statements: string[] = [];
      const stop = db.onStatement((sql) => {
        if (sql.includes('INSERT INTO "load_legs"')) statements.push(sql);
      });
      // The other writer's create of the leg, uncommitted while the bulk request starts; committed once the request waits for it.
      const res = await underHeldLegWrite(db, tenant.id, load.native_system_load_permalink as string, raced, () => {
        statements.length = 0;
        return api.post(bulkRestPath(recordSpecOf.load_leg), { records: legs });
      });
      stop();
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const results = res.body.results as { status: string; message: string; permalink: string }[];
      expect(results.map((r) => r.status)).toEqual(Array(6).fill('processed'));
      // The raced leg updated the committed row; the other five were created.
      expect(results.map((r) => / \(created\)\.$/.test(r.message))).toEqual([false, true, true, true, true, true]);
      // Two statements: the six legs (planned for a set), then the raced one alone (planned for one row).
      expect(statements.map((text) => (text.includes('LIMIT 1') ? 'one' : 'set'))).toEqual(['set', 'one']);
      // Its events: the other writer's create, then this write's change of it (not a second create).
      const events = await db.sql.query<{ created: string | null }>(
        `SELECT data ->> 'created' AS created FROM load_events WHERE tenant_id = $1 AND type = 'leg.changed' AND data -> 'leg' ->> 'permalink' = $2 ORDER BY id`,
        [tenant.id, raced],
      );
      expect(events.map((e) => e.created)).toEqual(['true', 'false']);
      const stored = await db.prisma.loadLeg.findFirstOrThrow({ where: { tenantId: tenant.id, permalink: raced } });
      expect(stored.sequence).toBe(1);
    },
  );
});
