/**
 * On a Citus coordinator (the harness's Citus mode, TEST_CITUS=1: docs/guides/citus.md): the migrated database
 * has every table placed as src/db/distribution.ts declares, and a tenant's traffic (writes of every kind, a
 * delete, a status mapping, GraphQL reads) counted by `citus_stat_counters`: how many executions read or wrote
 * one shard, how many several (docs/explanation/scaling.md, "Statements that read one shard, and those that read every shard").
 */
import { describe, expect, test } from '../../fixtures.js';
import { bodyMaker, routes } from '../../factories/records.js';
import { allDistributed, distributedFunctions, referenceTables } from '../../../src/db/distribution.js';
import { tenantStatements } from '../../../src/db/tenant-statement.js';
import { buildUpsertStatement } from '../../../src/db/record-statements.js';
import { recordTableOf } from '../../../src/domain/ingestion/record-tables.js';
import { recordSpecOf } from '../../../src/domain/registry.js';
import { rephasing, setStatusMapping } from '../../../src/domain/status-mapping/service.js';
import { onCitus } from '../../setup/database.js';
import { apiFor, resolversApp } from '../../helpers/app.js';
import type { Sql } from '../../../src/db/database.js';

/**
 * The database's executions so far that ran on one shard and on several (`citus_stat_counters`), summed over
 * every node: the service sends a tenant's calls straight to its worker (decision 0055), whose counters count them.
 */
async function counters(sql: Sql) {
  const [row] = await sql.query<{ single: string; multi: string }>(
    `SELECT sum(split_part(r.result, ',', 1)::bigint)::text AS single, sum(split_part(r.result, ',', 2)::bigint)::text AS multi
     FROM run_command_on_all_nodes($$SELECT query_execution_single_shard || ',' || query_execution_multi_shard FROM citus_stat_counters WHERE name = current_database()$$) r
     WHERE r.success`,
    [],
  );
  return { single: Number(row!.single), multi: Number(row!.multi) };
}

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

  test.runIf(onCitus())(
    'Citus mode only (TEST_CITUS=1): a write is one call on the tenant’s node (one task, no subplan), its statement planned there as plain PostgreSQL',
    async ({ testApp, tenant }) => {
      const { db } = testApp.database;
      const functions = await db.sql.query<{ name: string }>(
        `SELECT p.proname AS name FROM pg_dist_object o JOIN pg_proc p ON p.oid = o.objid
         WHERE o.classid = 'pg_proc'::regclass AND o.distribution_argument_index = 0 AND o.force_delegation
           AND o.colocationid = (SELECT colocationid FROM pg_dist_partition WHERE logicalrelid = 'loads'::regclass) ORDER BY 1`,
        [],
      );
      expect(functions.map((f) => f.name)).toEqual(Object.keys(distributedFunctions).sort());
      const statement = buildUpsertStatement(recordTableOf(recordSpecOf.carrier), { one: true });
      const params = statement.params({
        tenantId: tenant.id,
        now: new Date(),
        syncRunTime: null,
        present: ['name'],
        rows: [{ permalink: `C-EXPLAIN-${tenant.slug}`, values: { name: 'Explained' }, parents: {}, extra: {} }],
      });
      // The call the service sends, explained on the coordinator (not run).
      const raw = (text: string, values: readonly unknown[]) => db.sql.query<Record<string, unknown>>(text, values);
      let call = '';
      await tenantStatements(raw)
        .on(tenant.id, async (text, values) => {
          call = JSON.stringify(await raw(`EXPLAIN (FORMAT JSON) ${text}`, values));
          return [];
        })
        .query(statement.text, params);
      expect(call).toMatch(/"Task Count":1\b/);
      expect(call).toContain('tenant_statement');
      expect(call).not.toMatch(/Subplan|Distributed Subplan|pull to coordinator/i);
      // The statement as the tenant's node plans it: PostgreSQL's nodes over the tenant's shards, no Citus scan.
      const [inner] = await db.tenantSql(tenant.id).query<Record<string, unknown>>(`EXPLAIN (FORMAT JSON) ${statement.text}`, params);
      const plan = JSON.stringify(inner);
      expect(plan).toMatch(/"Relation Name":"carriers_\d+"/);
      expect(plan).not.toContain('Custom Scan');
    },
  );

  test.runIf(onCitus())(
    'Citus mode only (TEST_CITUS=1): the pass runs as its copy over the tenant’s shards on their node, made anew for the new shards of a tenant isolated',
    async ({ testApp, tenant, api }) => {
      const { db } = testApp.database;
      const body = await bodyMaker(api, tenant);
      /** The copy the tenant's pass calls now (migration `pass_over_the_shards`), its text as its node has it. */
      const copy = async () => {
        const [{ name }] = (await db.sql.query<{ name: string }>(
          `SELECT format('load_events_sequence_%s_%s', get_shard_id_for_distribution_column('loads', $1::uuid), left(md5(load_events_sequence_template()), 8)) AS name`,
          [tenant.id],
        )) as [{ name: string }];
        const [row] = await db
          .tenantSql(tenant.id)
          .query<{ text: string | null }>('SELECT pg_get_functiondef(to_regprocedure($1::text)) AS text', [`${name}(uuid,jsonb)`]);
        return { name, text: row?.text ?? null };
      };
      /** The tenant's events' numbers (null: not numbered). */
      const seqs = async () =>
        (await db.sql.query<{ seq: string | null }>('SELECT seq::text FROM load_events WHERE tenant_id = $1 ORDER BY id', [tenant.id])).map(
          (row) => row.seq && Number(row.seq),
        );
      expect((await api.post(routes.load, body('load'))).status).toBe(200);
      await testApp.app.services.sequencer.idle();
      const before = await copy();
      // The tables it names are the tenant's shards (`load_events_102…`), none of the distributed tables.
      expect(before.text).toMatch(/\bload_events_\d+\b/);
      expect(before.text).not.toMatch(/"load_events"|"payload_history"|"load_event_cursors"/);
      const numbered = await seqs();
      expect(numbered.length).toBeGreaterThan(0);

      // A shard of its own for the tenant (docs/guides/citus.md): new shards, so a new copy; the numbering goes on.
      await db.sql.query(`SELECT isolate_tenant_to_new_shard('loads', $1::uuid, 'CASCADE', shard_transfer_mode => 'block_writes')`, [tenant.id]);
      expect((await api.post(routes.load, body('load'))).status).toBe(200);
      await testApp.app.services.sequencer.idle();
      const after = await copy();
      expect(after.name).not.toBe(before.name);
      expect(after.text).toMatch(/\bload_events_\d+\b/);
      const all = await seqs();
      expect(all.length).toBeGreaterThan(numbered.length);
      // Every event numbered, in order, without a gap or a repeat across the split.
      expect(all).toEqual(Array.from({ length: all.length }, (_, i) => i + 1));
    },
  );

  test.runIf(onCitus())(
    'Citus mode only (TEST_CITUS=1): a status mapping and its re-phasing are one call each on the tenant’s node',
    async ({ testApp, tenant, api }) => {
      const { db } = testApp.database;
      const body = await bodyMaker(api, tenant);
      expect((await api.post(routes.load, { ...body('load'), status: 'Booked' })).status).toBe(200);
      await testApp.app.services.sequencer.idle();
      const before = await counters(db.sql);
      await setStatusMapping(db, tenant.id, 'Booked', 'COVERED');
      const after = await counters(db.sql);
      // The mapping's upsert and each phased kind's re-phasing: one execution each (their subplans were several).
      expect({ single: after.single - before.single, multi: after.multi - before.multi }).toEqual({ single: 1 + rephasing.length, multi: 0 });
      const [load] = await db.sql.query<{ phase: string }>(`SELECT phase::text FROM loads WHERE tenant_id = $1 AND status = 'Booked'`, [tenant.id]);
      expect(load?.phase).toBe('COVERED');
    },
  );

  test.runIf(onCitus())('Citus mode only (TEST_CITUS=1): a dry run is one call on the tenant’s node, rolled back there', async ({ testApp, tenant, api }) => {
    const { db } = testApp.database;
    const body = await bodyMaker(api, tenant);
    const load = body('load');
    const before = await counters(db.sql);
    const sent: string[] = [];
    const stopCounting = db.onStatement((sql) => sent.push(sql));
    expect((await api.post(`${routes.load}?dry_run=true`, load)).status).toBe(200);
    stopCounting();
    const after = await counters(db.sql);
    // One execution per statement the request sent (its key's lookup, the load's upsert carried under its
    // savepoint); as planned statements, the upsert's subplans were nine.
    expect(sent.some((sql) => sql.includes('INSERT INTO "loads"'))).toBe(true);
    expect({ single: after.single - before.single, multi: after.multi - before.multi }).toEqual({ single: sent.length, multi: 0 });
    const stored = await db.sql.query('SELECT 1 FROM loads WHERE tenant_id = $1 AND permalink = $2', [tenant.id, load.native_system_load_permalink]);
    expect(stored).toEqual([]);
  });

  test.runIf(onCitus())(
    'Citus mode only (TEST_CITUS=1): a tenant’s traffic, counted in citus_stat_counters',
    async ({ testApp, tenant, api, otherTenant, otherApi }) => {
      const { db } = testApp.database;
      const body = await bodyMaker(api, tenant);
      const before = await counters(db.sql);
      for (const kind of ['carrier', 'load', 'load_leg', 'stop', 'load_update'] as const) {
        expect((await api.post(routes[kind], body(kind))).status).toBe(200);
      }
      const load = body('load');
      expect((await api.post(routes.load, load)).status).toBe(200);
      expect(
        (await api.post(routes.load.replace(/upsert$/, 'delete'), { native_system_load_permalink: load.native_system_load_permalink })).status,
      ).toBeLessThan(500);
      await setStatusMapping(db, tenant.id, 'Booked', 'PLANNED');
      expect((await api.graphql('{ loads(first: 10) { totalCount edges { node { permalink phase } } } }')).status).toBe(200);
      // The board by activity (the compiled read's `WITH hits AS …` page) and its city and search filters.
      const board = await api.graphql(
        `{ loads(first: 10, orderBy: ACTIVITY_DESC, filter: { activitySince: "2000-01-01T00:00:00Z", city: "Chicago", search: "L" }) { totalCount edges { node { permalink lastActivityAt } } } }`,
      );
      expect(board.status).toBe(200);
      expect((board.body as { errors?: unknown }).errors).toBeUndefined();
      // changedSince, found through the activity (decision 0053), compiled and through the resolvers.
      const changed = `{ loads(first: 10, filter: { changedSince: "2000-01-01T00:00:00Z" }) { totalCount edges { node { permalink changedAt } } } }`;
      for (const path of [api, apiFor(await resolversApp(testApp), tenant.apiKey)]) {
        const res = await path.graphql(changed);
        expect(res.status).toBe(200);
        expect((res.body as { errors?: unknown; data: { loads: { totalCount: number } } }).data.loads.totalCount).toBeGreaterThan(0);
      }
      // A rejected record too, another tenant's request, then the ingest accounting's flush of both tenants' counts
      // (a statement per tenant) and its prune of their counts and rejections.
      expect((await api.post(routes.load, { ...load, native_system_load_permalink: 'not-this-tenants' })).status).toBe(400);
      expect((await otherApi.post(routes.load, { ...load, native_system_load_permalink: 'not-this-tenants' })).status).toBe(400);
      await testApp.app.services.recorder.flush();
      const after = await counters(db.sql);
      // The flush landed: each tenant's rejected load is counted.
      const rejected = await db.sql.query<{ tenant_id: string }>(
        `SELECT tenant_id::text FROM ingest_counts WHERE tenant_id = ANY($1::uuid[]) AND kind = 'load' AND outcome = 'rejected' ORDER BY 1`,
        [[tenant.id, otherTenant.id]],
      );
      expect(rejected.map((row) => row.tenant_id)).toEqual([tenant.id, otherTenant.id].sort());
      const counted = { single: after.single - before.single, multi: after.multi - before.multi };
      console.log(`citus_stat_counters over a tenant's traffic: ${JSON.stringify(counted)}`);
      // Every statement of the tenant's requests, of their numbering passes and of their accounting on the tenant's shard (docs/explanation/scaling.md).
      expect(counted).toEqual({ single: expect.any(Number), multi: 0 });
      expect(counted.single).toBeGreaterThan(0);
    },
  );

  test.runIf(onCitus())(
    'Citus mode only (TEST_CITUS=1): reads through the resolvers of to-one relations (a stop’s leg, a leg’s load and carrier, lastActivityAt) are one shard’s each',
    async ({ testApp, tenant, api }) => {
      const { db } = testApp.database;
      const body = await bodyMaker(api, tenant);
      const stop = body('stop');
      expect((await api.post(routes.stop, stop)).status).toBe(200);
      await testApp.app.services.sequencer.idle();
      const before = await counters(db.sql);
      const read = await api.graphql(
        `query ($permalink: String!) { stop(permalink: $permalink) { permalink leg { permalink carrier { permalink } load { permalink lastActivityAt legs { permalink } } } } }`,
        { permalink: stop.native_system_stop_permalink },
      );
      expect(read.status).toBe(200);
      const after = await counters(db.sql);
      const leg = (read.body as { data: { stop: { leg: { carrier: unknown; load: { legs: unknown[] } } } } }).data.stop.leg;
      expect(leg.carrier).not.toBeNull();
      expect(leg.load.legs.length).toBeGreaterThan(0);
      // Prisma's LATERAL join of a to-one relation named no tenant constant: 32 tasks each (docs/explanation/scaling.md).
      expect({ multi: after.multi - before.multi, single: after.single - before.single > 0 }).toEqual({ multi: 0, single: true });
    },
  );
});
