import { onTestFinished } from 'vitest';
import { describe, expect, test } from '../../fixtures.js';
import { carrierBody, loadBody, routes, seed } from '../../factories/records.js';
import { apiFor, createTestApp, type TestApp } from '../../helpers/app.js';
import { bucketMs, countRetentionMs } from '../../../src/domain/ingest-health/recorder.js';

/** What the database holds for the tenant, summed by outcome. */
async function storedCounts(testApp: TestApp, tenantId: string) {
  const rows = await testApp.database.db.prisma.ingestCount.groupBy({ by: ['outcome'], where: { tenantId }, _sum: { count: true } });
  return Object.fromEntries(rows.map((r) => [r.outcome, r._sum.count]));
}

describe('ingest accounting', () => {
  test('closing the recorder writes every count, the last received time and the rejections', async ({ api, tenant, testApp }) => {
    for (let i = 0; i < 3; i++) await seed(api, routes.carrier, carrierBody(tenant));
    await api.post(routes.carrier, { native_system_carrier_id: 'X' }, { 'service-ingest-source': 'pull' });
    expect(await storedCounts(testApp, tenant.id)).toEqual({});

    await testApp.app.services.recorder.close();

    expect(await storedCounts(testApp, tenant.id)).toEqual({ processed: 3, rejected: 1 });
    const sources = await testApp.database.db.prisma.ingestSource.findMany({ where: { tenantId: tenant.id }, orderBy: { source: 'asc' } });
    expect(sources.map((s) => s.source)).toEqual(['pull', 'unspecified']);
    expect(await testApp.database.db.prisma.ingestRejection.count({ where: { tenantId: tenant.id } })).toBe(1);
  });

  test('a failed flush keeps its counts for the next one and never writes them twice', async ({ api, tenant, testApp }) => {
    const { db } = testApp.database;
    await seed(api, routes.load, loadBody(tenant));
    await seed(api, routes.load, loadBody(tenant));
    await api.post(routes.load, { native_system_load_id: 'X' });
    // The flush statement writes counts, sources and then rejections: break the last table.
    await db.sql.query('ALTER TABLE ingest_rejections RENAME TO ingest_rejections_away', []);
    try {
      await testApp.app.services.recorder.flush();
      expect(await storedCounts(testApp, tenant.id)).toEqual({});
    } finally {
      await db.sql.query('ALTER TABLE ingest_rejections_away RENAME TO ingest_rejections', []);
    }
    await seed(api, routes.load, loadBody(tenant));
    await testApp.app.services.recorder.flush();
    expect(await storedCounts(testApp, tenant.id)).toEqual({ processed: 3, rejected: 1 });
    await testApp.app.services.recorder.flush();
    expect(await storedCounts(testApp, tenant.id)).toEqual({ processed: 3, rejected: 1 });
  });

  test('a flush asked for while another runs waits for it, then writes what was recorded meanwhile', async ({ tenant, testApp }) => {
    const { recorder } = testApp.app.services;
    const event = () => ({
      tenantId: tenant.id,
      tenantSlug: tenant.slug,
      source: 'pull' as const,
      kind: 'load' as const,
      outcome: 'processed' as const,
      at: testApp.clock.now(),
    });
    recorder.record(event());
    const first = recorder.flush();
    recorder.record(event());
    const second = recorder.flush();
    const third = recorder.flush();
    await second;
    expect(await storedCounts(testApp, tenant.id)).toEqual({ processed: 2 });
    await Promise.all([first, third]);
    expect(await storedCounts(testApp, tenant.id)).toEqual({ processed: 2 });
  });

  test('drops count buckets once they are older than a day (plus one bucket)', async ({ api, tenant, testApp }) => {
    await seed(api, routes.load, loadBody(tenant));
    await testApp.app.services.recorder.flush();
    testApp.clock.advance(countRetentionMs + bucketMs);
    await seed(api, routes.load, loadBody(tenant));
    await testApp.app.services.recorder.flush();
    const buckets = await testApp.database.db.prisma.ingestCount.findMany({ where: { tenantId: tenant.id } });
    expect(buckets).toHaveLength(1);
    expect(buckets[0]!.bucketStart.getTime()).toBeGreaterThan(testApp.clock.now().getTime() - countRetentionMs);
  });

  test('two instances on one database add up their counts', async () => {
    const testApp = await createTestApp();
    const second = await createTestApp({ database: testApp.database });
    onTestFinished(async () => {
      await second.close();
      await testApp.close();
    });
    const tenant = await testApp.createTenant();
    const first = apiFor(testApp, tenant.apiKey);
    const other = apiFor(second, tenant.apiKey);
    for (let i = 0; i < 3; i++) await seed(first, routes.load, loadBody(tenant));
    for (let i = 0; i < 2; i++) await seed(other, routes.load, loadBody(tenant));
    await other.post(routes.load, {});
    // Both flush the same bucket rows at once: the upsert adds, neither overwrites.
    await Promise.all([testApp.app.services.recorder.flush(), second.app.services.recorder.flush()]);
    expect(await storedCounts(testApp, tenant.id)).toEqual({ processed: 5, rejected: 1 });

    const res = await first.graphql('{ ingestHealth { sources { source lastHour { processed rejected } } recentRejections { code } } }');
    expect(res.body.data.ingestHealth.sources[2]).toEqual({ source: 'UNSPECIFIED', lastHour: { processed: 5, rejected: 1 } });
    expect(res.body.data.ingestHealth.recentRejections).toHaveLength(1);
  });
});
