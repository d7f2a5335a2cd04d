/**
 * Races decided by the database, not by application code: on PostgreSQL (a 20-connection pool) the
 * requests below really run in parallel; on PGlite they are serialised and must give the same answers.
 */
import { describe, expect, test } from '../../fixtures.js';
import { carrierBody, loadBody, loadLegBody, loadUpdateBody, routes, seed } from '../../factories/records.js';

describe('concurrent ingestion', () => {
  test('50 concurrent upserts of one new permalink: all 200 processed, exactly one record (one created)', async ({ api, tenant, testApp }) => {
    const body = carrierBody(tenant);
    const results = await Promise.all(Array.from({ length: 50 }, (_, i) => api.post(routes.carrier, { ...body, carrier_name: `Name ${i}` })));
    expect(results.map((r) => r.status)).toEqual(Array(50).fill(200));
    expect(results.every((r) => r.body.status === 'processed')).toBe(true);
    expect(results.filter((r) => /created/.test(r.body.message))).toHaveLength(1);
    expect(await testApp.database.db.prisma.carrier.count({ where: { permalink: body.native_system_carrier_permalink as string } })).toBe(1);
    // On PostgreSQL the requests really ran on several connections at once (PGlite has one).
    const pool = testApp.database.db.poolStats();
    expect(pool.total > 1).toBe(testApp.database.db.kind === 'postgres');
  });

  test('30 concurrent creates of one load-update permalink: exactly one processed, 29 duplicate, one record', async ({ api, tenant, testApp }) => {
    const load = await seed(api, routes.load, loadBody(tenant));
    const body = loadUpdateBody(tenant, load);
    const results = await Promise.all(Array.from({ length: 30 }, (_, i) => api.post(routes.load_update, { ...body, message: `Try ${i}` })));
    expect(results.map((r) => r.status)).toEqual(Array(30).fill(200));
    expect(results.filter((r) => r.body.status === 'processed')).toHaveLength(1);
    expect(results.filter((r) => r.body.status === 'duplicate')).toHaveLength(29);
    const stored = await testApp.database.db.prisma.loadUpdate.findMany({ where: { permalink: body.native_system_load_update_permalink as string } });
    expect(stored).toHaveLength(1);
    expect(stored[0]!.message).toMatch(/^Try \d+$/);
  });

  test('concurrent upserts with different sync_run_times keep the newest, whatever the order', async ({ api, tenant, testApp }) => {
    const body = loadBody(tenant);
    const hours = Array.from({ length: 24 }, (_, i) => i);
    // Shuffled so that the newest is neither first nor last to be sent.
    const order = [...hours].sort(() => Math.random() - 0.5);
    const results = await Promise.all(
      order.map((h) => api.post(`${routes.load}?sync_run_time=2026-03-01T${String(h).padStart(2, '0')}:00:00Z`, { ...body, bol_number: `BOL-${h}` })),
    );
    expect(results.map((r) => r.status)).toEqual(Array(24).fill(200));
    const stored = await testApp.database.db.prisma.load.findFirstOrThrow({ where: { permalink: body.native_system_load_permalink as string } });
    expect(stored.bolNumber).toBe('BOL-23');
    expect(stored.freshAt.toISOString()).toBe('2026-03-01T23:00:00.000Z');
    // The request carrying the newest time is never skipped.
    expect(results[order.indexOf(23)]!.body.status).toBe('processed');
  });

  test('leg upserts racing the creation of their load: each is processed or 422, never a 500 or an orphan', async ({ api, tenant, testApp }) => {
    const carrier = await seed(api, routes.carrier, carrierBody(tenant));
    const load = loadBody(tenant);
    const legs = Array.from({ length: 20 }, (_, i) =>
      loadLegBody(tenant, load, { load_leg_sequence: i + 1, native_system_carrier_permalink: carrier.native_system_carrier_permalink }),
    );
    const [loadResult, ...legResults] = await Promise.all([api.post(routes.load, load), ...legs.map((leg) => api.post(routes.load_leg, leg))]);
    expect(loadResult.body.status).toBe('processed');
    for (const r of legResults) {
      expect([200, 422], JSON.stringify(r.body)).toContain(r.status);
      if (r.status === 422) expect(r.body.error.code).toBe('parent_not_found');
    }
    const db = testApp.database.db.prisma;
    const stored = await db.loadLeg.findMany({
      where: { permalink: { in: legs.map((l) => l.native_system_load_leg_permalink as string) } },
      include: { load: true },
    });
    expect(stored).toHaveLength(legResults.filter((r) => r.status === 200).length);
    for (const leg of stored) expect(leg.load.permalink).toBe(load.native_system_load_permalink);
    // Once the load exists, the rejected legs go through on retry.
    const retried = await Promise.all(legs.map((leg) => api.post(routes.load_leg, leg)));
    expect(retried.map((r) => r.body.status)).toEqual(Array(20).fill('processed'));
    expect(await db.loadLeg.count({ where: { load: { permalink: load.native_system_load_permalink as string } } })).toBe(20);
  });

  test('concurrent upserts of many legs, stops and updates of one load all succeed', async ({ api, tenant, testApp }) => {
    const load = await seed(api, routes.load, loadBody(tenant));
    const legs = Array.from({ length: 20 }, () => loadLegBody(tenant, load));
    const results = await Promise.all([
      ...legs.map((leg) => api.post(routes.load_leg, leg)),
      ...Array.from({ length: 20 }, () => api.post(routes.load_update, loadUpdateBody(tenant, load))),
      ...Array.from({ length: 20 }, () => api.post(routes.load, { ...load, bol_number: 'B-race' })),
    ]);
    expect(results.map((r) => r.body.status)).toEqual(Array(60).fill('processed'));
    expect(await testApp.database.db.prisma.loadLeg.count({ where: { load: { permalink: load.native_system_load_permalink as string } } })).toBe(20);
  });
});
