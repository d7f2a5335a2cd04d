/**
 * `loads(filter: {search})` is served by the trigram indexes (migration `cost`, pg_trgm; PGlite loads
 * the extension): the load filter's SQL (src/domain/load/compiled.ts, `loadFilterSql`) asks each table for its
 * matching ids, so each part is a scan of that table's trigram index, not a test of every load of the
 * tenant. Checked with EXPLAIN on the statement the load page's count runs, over a few thousand rows
 * with sequential scans priced out; and the search still finds a load through each table.
 */
import pg from 'pg';
import { describe, expect, test } from '../../fixtures.js';
import { compiledStatement } from '../../helpers/compiled.js';
import { onCitus } from '../../setup/database.js';

const indexNames = (plan: unknown): string[] => {
  const found: string[] = [];
  const walk = (node: unknown) => {
    if (!node || typeof node !== 'object') return;
    const record = node as Record<string, unknown>;
    if (typeof record['Index Name'] === 'string') found.push(record['Index Name']);
    for (const value of Object.values(record)) (Array.isArray(value) ? value : [value]).forEach(walk);
  };
  walk(plan);
  return found;
};

describe('search served by the trigram indexes', { timeout: 180_000 }, () => {
  test('the extension and the three indexes exist, EXPLAIN uses them, and the search finds a load through each table', async ({ testApp, tenant }) => {
    const { sql } = testApp.database.db;
    const [ext] = await sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM pg_extension WHERE extname = 'pg_trgm'`, []);
    expect(ext!.n).toBe(1);
    // Enough loads that reading the tenant's whole B-tree costs more than the trigram bitmaps (with 4,000 narrow
    // rows PostgreSQL priced a bitmap scan of loads_tenant_id_status_key_idx just below them).
    const n = 8000;
    await sql.query(
      `INSERT INTO loads (id, tenant_id, permalink, customer_reference_number, bol_number, po_number, fresh_at, changed_at, created_at)
       SELECT gen_random_uuid(), $1, 'L' || g || '-' || $2, 'CRN-' || md5(g::text), 'BOL-' || md5((g * 7)::text), 'PO-' || md5((g * 13)::text), now(), now(), now()
       FROM generate_series(1, $3::int) g`,
      [tenant.id, tenant.slug, n],
    );
    await sql.query(
      `INSERT INTO load_legs (id, tenant_id, permalink, load_id, reference_number, pickup_reference_number, fresh_at, changed_at, created_at)
       SELECT gen_random_uuid(), l.tenant_id, 'G' || l.permalink, l.id, 'REF-' || md5(l.permalink), 'PU-' || md5(l.id::text), now(), now(), now()
       FROM loads l WHERE l.tenant_id = $1`,
      [tenant.id],
    );
    await sql.query(
      `INSERT INTO stops (id, tenant_id, permalink, leg_id, reference_number, fresh_at, changed_at, created_at)
       SELECT gen_random_uuid(), g.tenant_id, 'S' || g.permalink, g.id, 'SREF-' || md5(g.permalink), now(), now(), now()
       FROM load_legs g WHERE g.tenant_id = $1`,
      [tenant.id],
    );
    // A needle in each table, on a different load.
    await sql.query(`UPDATE loads SET bol_number = 'BOL-needle-zq1' WHERE tenant_id = $1 AND permalink = 'L10-' || $2`, [tenant.id, tenant.slug]);
    await sql.query(
      `UPDATE load_legs SET pickup_reference_number = 'PU-needle-zq1' WHERE tenant_id = $1 AND load_id = (SELECT id FROM loads WHERE tenant_id = $1 AND permalink = 'L20-' || $2)`,
      [tenant.id, tenant.slug],
    );
    await sql.query(
      `UPDATE stops SET reference_number = 'SREF-needle-zq1' WHERE tenant_id = $1 AND leg_id = (SELECT g.id FROM load_legs g JOIN loads l ON l.tenant_id = g.tenant_id AND l.id = g.load_id WHERE g.tenant_id = $1 AND l.tenant_id = $1 AND l.permalink = 'L30-' || $2)`,
      [tenant.id, tenant.slug],
    );
    // What (auto)vacuum does: the GIN indexes' pending lists (fastupdate) merged into the index; on a Citus
    // coordinator the shards' indexes (`<index>_<shard id>`), the coordinator's being its empty shell's.
    for (const table of ['loads', 'load_legs', 'stops']) {
      const index = `${table}_search_trgm_idx`;
      await sql.query(
        onCitus()
          ? `SELECT run_command_on_shards($1::regclass, $$SELECT count(gin_clean_pending_list(i.indexrelid)) FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
               WHERE i.indrelid = '%s'::regclass AND c.relname LIKE '${index}%%'$$)`
          : `SELECT gin_clean_pending_list($1::regclass)`,
        [onCitus() ? table : index],
      );
    }
    await sql.query('ANALYZE loads, load_legs, stops', []);

    const count = '{ loads(filter: { search: "NEEDLE-zq1" }) { totalCount } }';
    const { text, params } = compiledStatement(count, {}, tenant);
    // With seq scans priced out, the plan shows what the statement's shape lets the indexes serve (on
    // tables this small PostgreSQL rightly prefers reading them whole). The old shape, `a OR EXISTS (…)`,
    // could only test every load of the tenant, found through the tenant's B-tree.
    const explain = `EXPLAIN (FORMAT JSON) ${text}`;
    let plan: unknown;
    if (testApp.database.url) {
      const client = new pg.Client({ connectionString: testApp.database.url });
      await client.connect();
      try {
        // On a Citus coordinator the setting reaches the shards' plans only as a SET LOCAL that Citus passes on
        // (citus.propagate_set_commands; on PostgreSQL a placeholder setting, without effect).
        await client.query('BEGIN');
        await client.query(`SET LOCAL citus.propagate_set_commands = 'local'`);
        await client.query('SET LOCAL enable_seqscan = off');
        plan = (await client.query<{ 'QUERY PLAN': unknown }>(explain, params)).rows[0]!['QUERY PLAN'];
        await client.query('COMMIT');
      } finally {
        await client.end();
      }
    } else {
      await sql.query('SET enable_seqscan = off', []); // PGlite: one connection
      try {
        plan = (await sql.query<{ 'QUERY PLAN': unknown }>(explain, params))[0]!['QUERY PLAN'];
      } finally {
        await sql.query('RESET enable_seqscan', []);
      }
    }
    // On a Citus coordinator the plan is the shard's, whose indexes carry the shard's id (`loads_search_trgm_idx_102016`).
    const used = indexNames(plan).map((name) => name.replace(/_\d+$/, ''));
    expect(used).toEqual(expect.arrayContaining(['loads_search_trgm_idx', 'load_legs_search_trgm_idx', 'stops_search_trgm_idx']));

    const [answer] = await sql.query<{ data: string }>(text, params);
    expect(JSON.parse(answer!.data)).toEqual({ loads: { totalCount: 3 } });
    const res = await testApp.fetch('/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': tenant.apiKey },
      body: JSON.stringify({ query: '{ loads(first: 10, filter: { search: "needle-ZQ1" }) { totalCount edges { node { permalink } } } }' }),
    });
    const body = (await res.json()) as { data: { loads: { totalCount: number; edges: { node: { permalink: string } }[] } } };
    expect(body.data.loads.totalCount).toBe(3);
    expect(body.data.loads.edges.map((e) => e.node.permalink).sort()).toEqual([`L10-${tenant.slug}`, `L20-${tenant.slug}`, `L30-${tenant.slug}`]);
  });
});
