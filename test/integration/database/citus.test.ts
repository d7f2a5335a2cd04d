/**
 * On a Citus coordinator (the harness's Citus mode, TEST_CITUS=1: docs/guides/citus.md): the migrated database
 * has every table placed as src/db/distribution.ts declares, and a tenant's traffic (writes of every kind, a
 * delete, a status mapping, GraphQL reads) counted by `citus_stat_counters`: how many executions read or wrote
 * one shard, how many several (docs/explanation/scaling.md, "Statements that read one shard, and those that read every shard").
 */
import { describe, expect, test } from '../../fixtures.js';
import { bodyMaker, routes } from '../../factories/records.js';
import { allDistributed, referenceTables } from '../../../src/db/distribution.js';
import { setStatusMapping } from '../../../src/domain/status-mapping/service.js';
import { onCitus } from '../../setup/database.js';

describe('on a Citus cluster', () => {
  test.runIf(onCitus())('Citus mode only (TEST_CITUS=1): every table is placed as declared, colocated with loads', async ({ testApp }) => {
    const rows = await testApp.database.db.sql.query<{ name: string; type: string; colocated: boolean }>(
      `SELECT table_name::text AS name, citus_table_type AS type,
         colocation_id = (SELECT colocation_id FROM citus_tables WHERE table_name = 'loads'::regclass) AS colocated
       FROM citus_tables WHERE NOT EXISTS (SELECT 1 FROM pg_inherits i WHERE i.inhrelid = table_name) ORDER BY 1`,
      [],
    );
    const placed = Object.fromEntries(rows.map((row) => [row.name, row.type === 'distributed' && row.colocated ? 'distributed' : row.type]));
    const declared = Object.fromEntries([
      ...allDistributed.map((table) => [table, 'distributed'] as const),
      ...Object.keys(referenceTables).map((table) => [table, 'reference'] as const),
    ]);
    expect(placed).toEqual(declared);
  });

  test.runIf(onCitus())('Citus mode only (TEST_CITUS=1): a tenant’s traffic, counted in citus_stat_counters', async ({ testApp, tenant, api }) => {
    const { db } = testApp.database;
    const counters = async () =>
      (
        await db.sql.query<{ single: string; multi: string }>(
          `SELECT query_execution_single_shard::text AS single, query_execution_multi_shard::text AS multi FROM citus_stat_counters WHERE name = current_database()`,
          [],
        )
      )[0]!;
    const body = await bodyMaker(api, tenant);
    const before = await counters();
    for (const kind of ['carrier', 'load', 'load_leg', 'stop', 'load_update'] as const) {
      expect((await api.post(routes[kind], body(kind))).status).toBe(200);
    }
    const load = body('load');
    expect((await api.post(routes.load, load)).status).toBe(200);
    expect((await api.post(routes.load.replace(/upsert$/, 'delete'), { native_system_load_permalink: load.native_system_load_permalink })).status).toBeLessThan(
      500,
    );
    await setStatusMapping(db, tenant.id, 'Booked', 'PLANNED');
    expect((await api.graphql('{ loads(first: 10) { totalCount edges { node { permalink phase } } } }')).status).toBe(200);
    const after = await counters();
    const counted = { single: Number(after.single) - Number(before.single), multi: Number(after.multi) - Number(before.multi) };
    console.log(`citus_stat_counters over a tenant's traffic: ${JSON.stringify(counted)}`);
    expect(counted.single).toBeGreaterThan(0);
  });
});
