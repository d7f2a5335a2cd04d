/**
 * The planner's statistics of a record table that grows from empty (src/db/table-statistics.ts). Without
 * an ANALYZE, its indexes' statistics say "no rows" (CREATE INDEX on the empty table), every index looks
 * alike to the planner, and a first sync's permalink lookups read all of the tenant's rows per record.
 * Each test file's database starts as migrated, never analysed: a fresh database, as a new install's.
 */
import { describe, expect, test } from '../../fixtures.js';
import { loadBody } from '../../factories/records.js';
import type { Api, TestApp, TestTenant } from '../../helpers/app.js';
import type { Database } from '../../../src/db/database.js';
import { minRows, newTenantRows, statisticsTag } from '../../../src/db/table-statistics.js';
import { onCitus } from '../../setup/database.js';

/**
 * The rows `loads`' statistics know (`pg_class.reltuples`; -1 when never analysed); on a Citus coordinator
 * the sum over its shards' (the coordinator's own row describes the empty shell table).
 */
const knownLoads = async (db: Database) =>
  (
    await db.sql.query<{ n: number }>(
      onCitus()
        ? `SELECT CASE WHEN bool_and(r.result::float8 < 0) THEN -1 ELSE sum(greatest(r.result::float8, 0)) END AS n
           FROM run_command_on_shards('loads', $$SELECT reltuples FROM pg_class WHERE oid = '%s'::regclass$$) r`
        : "SELECT reltuples::float8 AS n FROM pg_class WHERE oid = 'loads'::regclass",
      [],
    )
  )[0]!.n;

/**
 * The ANALYZE statements of the statistics checks (without their tag), as they run, until `stop()`.
 * Autovacuum is turned off for `loads` meanwhile (on Citus the setting reaches every shard): its
 * ANALYZE, which may come at any moment of a test, would make the statistics current and rightly spare
 * the check's (a table "whose statistics are current is left alone"); these tests count the checks'.
 */
async function watchAnalyses(db: Database) {
  const analyses: string[] = [];
  await db.sql.query('ALTER TABLE loads SET (autovacuum_enabled = off)', []);
  const unwatch = db.onStatement((sql) => {
    if (sql.startsWith(`${statisticsTag}ANALYZE`)) analyses.push(sql.slice(statisticsTag.length));
  });
  const stop = async () => {
    unwatch();
    await db.sql.query('ALTER TABLE loads RESET (autovacuum_enabled)', []);
  };
  return { analyses, stop };
}

/** Posts `count` new loads of `owner` in one bulk request, then waits for the statistics check it may start. */
async function postLoads(testApp: TestApp, [client, owner]: [Api, TestTenant], count: number, query = '') {
  const res = await client.post(`/api/v1/loads/bulk_upsert${query}`, { records: Array.from({ length: count }, () => loadBody(owner)) });
  expect(res.status).toBe(200);
  await testApp.app.services.statistics.idle();
}

/** The plan of a permalink lookup as the write statements make it (parents included). */
async function lookupPlan(db: Database, tenantId: string) {
  const rows = await db.sql.query<Record<string, string>>('EXPLAIN SELECT id FROM loads WHERE tenant_id = $1::uuid AND permalink = $2 AND deleted_at IS NULL', [
    tenantId,
    'L1-x',
  ]);
  return rows.map((row) => Object.values(row)[0]).join('\n');
}

describe('planner statistics of the record tables', () => {
  test('a table is analysed once its writes reach what its statistics know, then on each doubling; dry runs count nothing', async ({
    testApp,
    api,
    tenant,
  }) => {
    const { db } = testApp.database;
    const { analyses, stop } = await watchAnalyses(db);
    const post = (count: number, query = '') => postLoads(testApp, [api, tenant], count, query);
    try {
      expect(await knownLoads(db), 'a fresh database: loads never analysed').toBeLessThanOrEqual(0);

      await post(minRows + 50);
      expect(analyses).toEqual(['ANALYZE "loads"']);
      expect(await knownLoads(db)).toBe(minRows + 50);
      // The permalink lookup of the write statements now takes the unique key.
      expect(await lookupPlan(db, tenant.id)).toContain('loads_tenant_id_permalink_key');

      await post(100);
      await post(200, '?dry_run=true');
      expect(analyses, 'fewer writes than the statistics know rows (a dry run writes none)').toHaveLength(1);

      await post(200);
      expect(analyses, 'as many writes as the statistics knew rows: analysed again').toHaveLength(2);
      expect(await knownLoads(db)).toBe(minRows + 350);
    } finally {
      await stop();
    }
  }, 120_000);

  test('a tenant the statistics do not know is analysed for after its first 1,000 rows, however far the table is from doubling', async ({
    testApp,
    api,
    tenant,
    otherApi,
    otherTenant,
  }) => {
    const { db } = testApp.database;
    const { analyses, stop } = await watchAnalyses(db);
    const first: [Api, TestTenant] = [api, tenant];
    const second: [Api, TestTenant] = [otherApi, otherTenant];
    try {
      for (let i = 0; i < 3; i += 1) await postLoads(testApp, first, 1_000);
      const before = analyses.length;
      expect(await knownLoads(db), 'the table is large next to what the new tenant will write').toBeGreaterThan(2 * newTenantRows);

      await postLoads(testApp, second, newTenantRows - 1);
      expect(analyses, 'fewer rows than newTenantRows, far fewer than the statistics know').toHaveLength(before);
      await postLoads(testApp, second, 1);
      expect(analyses, 'the new tenant reached newTenantRows: analysed').toHaveLength(before + 1);
      // Its permalink lookups (the child statements' parent lookups) now take the unique key.
      expect(await lookupPlan(db, otherTenant.id)).toContain('loads_tenant_id_permalink_key');

      await postLoads(testApp, second, newTenantRows);
      await postLoads(testApp, first, newTenantRows);
      expect(analyses, 'tenants the statistics know: only the doubling rule applies').toHaveLength(before + 1);
    } finally {
      await stop();
    }
  }, 240_000);
});
