/**
 * The planner's statistics of a record table that grows from empty (src/db/table-statistics.ts). Without
 * an ANALYZE, its indexes' statistics say "no rows" (CREATE INDEX on the empty table), every index looks
 * alike to the planner, and a first sync's permalink lookups read all of the tenant's rows per record.
 * Each test file's database starts as migrated, never analysed: a fresh database, as a new install's.
 */
import { describe, expect, test } from '../../fixtures.js';
import { loadBody } from '../../factories/records.js';
import { minRows, newTenantRows, statisticsTag } from '../../../src/db/table-statistics.js';

describe('planner statistics of the record tables', () => {
  test('a table is analysed once its writes reach what its statistics know, then on each doubling; dry runs count nothing', async ({
    testApp,
    api,
    tenant,
  }) => {
    const { db } = testApp.database;
    const known = async () => (await db.sql.query<{ n: number }>("SELECT reltuples::float8 AS n FROM pg_class WHERE oid = 'loads'::regclass", []))[0]!.n;
    const analyses: string[] = [];
    const stop = db.onStatement((sql) => {
      if (sql.startsWith(`${statisticsTag}ANALYZE`)) analyses.push(sql.slice(statisticsTag.length));
    });
    const post = async (count: number, query = '') => {
      const res = await api.post(`/api/v1/loads/bulk_upsert${query}`, { records: Array.from({ length: count }, () => loadBody(tenant)) });
      expect(res.status).toBe(200);
      await testApp.app.services.statistics.idle();
    };
    try {
      expect(await known(), 'a fresh database: loads never analysed').toBeLessThanOrEqual(0);

      await post(minRows + 50);
      expect(analyses).toEqual(['ANALYZE "loads"']);
      expect(await known()).toBe(minRows + 50);
      // The permalink lookup of the write statements now takes the unique key.
      const plan = await db.sql.query<Record<string, string>>('EXPLAIN SELECT id FROM loads WHERE tenant_id = $1::uuid AND permalink = $2', [
        tenant.id,
        'L1-x',
      ]);
      expect(plan.map((row) => Object.values(row)[0]).join('\n')).toContain('loads_tenant_id_permalink_key');

      await post(100);
      await post(200, '?dry_run=true');
      expect(analyses, 'fewer writes than the statistics know rows (a dry run writes none)').toHaveLength(1);

      await post(200);
      expect(analyses, 'as many writes as the statistics knew rows: analysed again').toHaveLength(2);
      expect(await known()).toBe(minRows + 350);
    } finally {
      stop();
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
    const known = async () => (await db.sql.query<{ n: number }>("SELECT reltuples::float8 AS n FROM pg_class WHERE oid = 'loads'::regclass", []))[0]!.n;
    let analyses = 0;
    const stop = db.onStatement((sql) => {
      if (sql.startsWith(`${statisticsTag}ANALYZE "loads"`)) analyses += 1;
    });
    const post = async ([client, owner]: [typeof api, typeof tenant], count: number) => {
      const res = await client.post('/api/v1/loads/bulk_upsert', { records: Array.from({ length: count }, () => loadBody(owner)) });
      expect(res.status).toBe(200);
      await testApp.app.services.statistics.idle();
    };
    const first: [typeof api, typeof tenant] = [api, tenant];
    const second: [typeof api, typeof tenant] = [otherApi, otherTenant];
    try {
      for (let i = 0; i < 3; i += 1) await post(first, 1_000);
      const before = analyses;
      expect(await known(), 'the table is large next to what the new tenant will write').toBeGreaterThan(2 * newTenantRows);

      await post(second, newTenantRows - 1);
      expect(analyses, 'fewer rows than newTenantRows, far fewer than the statistics know').toBe(before);
      await post(second, 1);
      expect(analyses, 'the new tenant reached newTenantRows: analysed').toBe(before + 1);
      // Its permalink lookups (the child statements' parent lookups) now take the unique key.
      const plan = await db.sql.query<Record<string, string>>(
        'EXPLAIN SELECT id FROM loads WHERE tenant_id = $1::uuid AND permalink = $2 AND deleted_at IS NULL',
        [otherTenant.id, 'L1-x'],
      );
      expect(plan.map((row) => Object.values(row)[0]).join('\n')).toContain('loads_tenant_id_permalink_key');

      await post(second, newTenantRows);
      await post(first, newTenantRows);
      expect(analyses, 'tenants the statistics know: only the doubling rule applies').toBe(before + 1);
    } finally {
      stop();
    }
  }, 240_000);
});
