/**
 * The database's CPU per single load upsert, alone: the ingestion use case's statement (payload
 * history and field coverage on, as the service sends it), then the event numbering pass the service
 * runs after each write, on one connection, one write after another, with no HTTP and no other load;
 * beside it the plain floor's statement (bench/reference-server.ts `plain`) on the same connection.
 * The writes alternate as the bench's do (bench/run.ts `mixed`): a new load, then a new status of a
 * stored one. The CPU is the backend process's own (`/proc/<pid>/stat`: PostgreSQL on this machine),
 * so a `perf record -p <pid>` of the printed pid profiles exactly these writes.
 *
 *   DATABASE_URL=postgresql://…/<scratch> npx tsx bench/write-cost.ts [writes] [--pause]
 */
import { readFileSync } from 'node:fs';
import pg from 'pg';
// @ts-expect-error: node-postgres's own parameter conversion, untyped
import { prepareValue } from 'pg/lib/utils.js';
import { openDatabase } from '../src/db/database.js';
import { migrateIfPending } from '../src/db/migrate.js';
import { createPayloadPartitions } from '../src/db/payload-history.js';
import { recordSpecOf } from '../src/domain/registry.js';
import type { IngestScope } from '../src/domain/ingestion/ingest.js';
import { createOperation } from '../src/domain/ingestion/operation.js';
import { writeActionOf } from '../src/domain/declaration/record.js';
import { directScope } from './ingest-scope.js';
import * as data from './data.js';

const url = process.env.DATABASE_URL;
if (!url) throw new Error('DATABASE_URL (a scratch PostgreSQL database) is required');
const writes = Number(process.argv[2] ?? 4000);
const pause = process.argv.includes('--pause');
const only = process.argv.find((arg) => arg.startsWith('--only='))?.slice('--only='.length);

/** The backend's CPU time in ms (user + system) from /proc: PostgreSQL runs on this machine. */
function backendCpuMs(pid: number): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  const ticks = Number(fields[11]) + Number(fields[12]);
  return (ticks * 1000) / 100;
}

const db = await openDatabase({ url, dataDir: '', poolSize: 1 });
try {
  await migrateIfPending(db);
  const now = new Date();
  await createPayloadPartitions(db.sql, now, 2);
  const slug = `cost-${Date.now()}`;
  const [tenant] = await db.sql.query<{ id: string }>(`INSERT INTO tenants (slug, name) VALUES ($1, $1) RETURNING id`, [slug]);
  await db.sql.query(`CREATE TABLE IF NOT EXISTS bench_plain_loads (LIKE loads INCLUDING DEFAULTS, PRIMARY KEY (id), UNIQUE (tenant_id, permalink))`, []);
  const [{ pid }] = (await db.sql.query<{ pid: number }>('SELECT pg_backend_pid() AS pid', [])) as [{ pid: number }];
  const scope: IngestScope = directScope(db, { id: tenant!.id, slug } as IngestScope['tenant'], 'write-cost', now);
  const { ingestion } = createOperation(recordSpecOf.load, writeActionOf(recordSpecOf.load));
  // The service's pass after each write (domain/events/sequencer.ts).
  const sequence = () => db.sql.query('SELECT load_events_sequence($1::uuid)', [tenant!.id], 'load_events_sequence');

  // The stored loads the revisions change (the bench's baseline), then a warm-up of each statement.
  const baseline = 2000;
  for (let i = 0; i < baseline; i += 500)
    await ingestion.ingest(
      scope,
      Array.from({ length: 500 }, (_, k) => data.load(slug, i + k)),
    );
  await sequence();
  await db.sql.query('ANALYZE', []);
  let next = baseline;
  let n = 0;
  const body = () => (++n % 2 === 0 ? data.load(slug, Math.floor(Math.random() * next), n) : data.load(slug, next++));

  async function measure(label: string, write: () => Promise<unknown>) {
    for (let i = 0; i < 200; i++) await write();
    const cpu = backendCpuMs(pid);
    const started = performance.now();
    for (let i = 0; i < writes; i++) await write();
    const wall = performance.now() - started;
    const used = backendCpuMs(pid) - cpu;
    console.log(
      `${label.padEnd(44)} ${((used / writes) * 1000).toFixed(0).padStart(5)} µs database CPU, ${((wall / writes) * 1000).toFixed(0).padStart(5)} µs wall per write`,
    );
  }

  if (pause) {
    console.log(`backend pid ${pid}: start perf now (Enter to go on)`);
    await new Promise((resolve) => process.stdin.once('data', resolve));
  }
  if (only === 'explain') {
    // The statement of one write (a new load, then a revision of a stored one), captured as the use case
    // sends it, then run again under EXPLAIN (ANALYZE, BUFFERS) with its generic plan (as the service's
    // prepared statements run after five executions), rolled back. The use case's own run commits, so the
    // explained run of the first write finds its load stored: an update, not the insert.
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    const query = db.sql.query.bind(db.sql);
    let captured: { text: string; params: readonly unknown[] } | null = null;
    db.sql.query = async (text: string, params: readonly unknown[], name?: string) => {
      if (name?.startsWith('upsert_')) captured = { text, params };
      return query(text, params as unknown[], name);
    };
    for (const make of [() => data.load(slug, next++), () => data.load(slug, 7, 99)]) {
      captured = null;
      await ingestion.ingest(scope, [make()]);
      await client.query('BEGIN');
      const { text, params } = captured!;
      await client.query(`PREPARE explained AS ${text}`);
      await client.query(`SET plan_cache_mode = force_generic_plan`);
      // EXECUTE takes its arguments as SQL: each parameter as node-postgres would send it, quoted.
      const literals = params.map((p) => (p === null || p === undefined ? 'NULL' : client.escapeLiteral(String(prepareValue(p)))));
      const plan = await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS) EXECUTE explained(${literals.join(', ')})`);
      console.log(plan.rows.map((r) => r['QUERY PLAN']).join('\n'));
      await client.query('ROLLBACK');
      await client.query('DEALLOCATE explained');
    }
    await client.end();
    process.exit(0);
  }
  if (only === 'statement') {
    await measure('service statement alone', () => ingestion.ingest(scope, [body()]));
    process.exit(0);
  }
  await measure('service statement + numbering pass', async () => {
    await ingestion.ingest(scope, [body()]);
    await sequence();
  });
  await measure('service statement alone', () => ingestion.ingest(scope, [body()]));
  await measure('numbering pass alone (nothing to number)', sequence);
  const plainText = `INSERT INTO bench_plain_loads (id, tenant_id, permalink, tms_id, status, customer_reference_number, order_type, bol_number, po_number, load_mode, customer_name, extra, fresh_at, changed_at, created_at)
    VALUES (gen_random_uuid(), $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, '{}', $11, $11, $11)
    ON CONFLICT (tenant_id, permalink) DO UPDATE SET status = EXCLUDED.status, fresh_at = EXCLUDED.fresh_at, changed_at = EXCLUDED.changed_at`;
  await measure('plain floor statement', () => {
    const b = body();
    return db.sql.query(
      plainText,
      [
        tenant!.id,
        b.native_system_load_permalink,
        b.native_system_load_id,
        b.native_system_load_status,
        b.native_system_customer_reference_number,
        b.order_type,
        b.bol_number,
        b.po_number,
        b.load_mode,
        b.customer_name,
        new Date(),
      ],
      'plain_floor',
    );
  });
  if (pause) console.log(`backend pid ${pid}: stop perf now`);
} finally {
  await db.close();
}
