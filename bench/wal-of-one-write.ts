/**
 * The WAL of one single-record load upsert, record by record (issue 39: the profile behind the WAL figure):
 * `pg_waldump` over the range from before the request to after the tenant's pass took it (its events
 * numbered, its log entry counted), grouped by table (indexes under their table) and WAL record type.
 * Four writes of one new load: its create, a change of status that changes its phase, the same body again,
 * a change of one field; and the plain floor's upsert (one table, one key, HOT) beside them. Run against a
 * service on PostgreSQL with a tenant and its key, on a quiet server (the range holds every database's
 * WAL; 80 writes first, after a CHECKPOINT, so the measured ones log no full-page images):
 *
 *   DATABASE_URL=postgresql://…/<the service's database> SERVICE_URL=http://127.0.0.1:3000 API_KEY=tms_… \
 *     [PG_WAL=/var/lib/postgresql/15/main/pg_wal] [PG_WALDUMP=/usr/lib/postgresql/15/bin/pg_waldump] \
 *     npx tsx bench/wal-of-one-write.ts
 */
import { execFileSync } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import pg from 'pg';
import * as data from './data.js';

const env = (name: string, fallback?: string) => {
  const value = process.env[name] ?? fallback;
  if (!value) throw new Error(`${name} is required (see the header of bench/wal-of-one-write.ts)`);
  return value;
};
const service = env('SERVICE_URL', 'http://127.0.0.1:3000');
const apiKey = env('API_KEY');
const walDir = env('PG_WAL', '/var/lib/postgresql/15/main/pg_wal');
const waldump = env('PG_WALDUMP', '/usr/lib/postgresql/15/bin/pg_waldump');
const db = new pg.Client({ connectionString: env('DATABASE_URL') });

const headers = { 'content-type': 'application/json', 'x-api-key': apiKey };
const post = async (body: Record<string, unknown>) => {
  const response = await fetch(`${service}/api/v1/loads/upsert`, { method: 'POST', headers, body: JSON.stringify(body) });
  if (response.status !== 200) throw new Error(`upsert answered ${response.status}: ${await response.text()}`);
  return ((await response.json()) as { message: string }).message;
};
const lsn = async () => (await db.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn')).rows[0]!.lsn;

/** Until every event is numbered and every log entry is in its tenant's stored snapshot (decision 0051). */
async function settled(): Promise<void> {
  for (;;) {
    const { rows } = await db.query<{ done: boolean }>(
      `SELECT NOT EXISTS (SELECT 1 FROM load_events WHERE seq IS NULL)
          AND NOT EXISTS (SELECT 1 FROM payload_history h LEFT JOIN load_event_cursors c ON c.tenant_id = h.tenant_id
                          WHERE c.derived_through IS NULL OR NOT pg_visible_in_snapshot(h.xid, c.derived_through)) AS done`,
    );
    if (rows[0]!.done) return;
    await sleep(20);
  }
}

/** WAL bytes and records by table and record type, from `pg_waldump`'s lines between two positions. */
function walBetween(start: string, end: string, relations: Map<string, string>) {
  const tables = new Map<string, { bytes: number; records: number; types: Map<string, number> }>();
  let total = 0;
  const dump = execFileSync(waldump, ['-p', walDir, '-s', start, '-e', end], { encoding: 'utf8' });
  for (const line of dump.split('\n')) {
    const record = /rmgr: (\S+)\s+len \(rec\/tot\):\s+\d+\/\s*(\d+),.*desc: (\S+)(.*)$/.exec(line);
    if (!record) continue;
    const bytes = Number(record[2]);
    total += bytes;
    const node = /rel \d+\/\d+\/(\d+)/.exec(record[4]!)?.[1];
    const table = node ? (relations.get(node) ?? `relfilenode ${node}`) : '(transaction records)';
    const entry = tables.get(table) ?? { bytes: 0, records: 0, types: new Map<string, number>() };
    const type = `${record[1]} ${record[3]}`;
    entry.bytes += bytes;
    entry.records += 1;
    entry.types.set(type, (entry.types.get(type) ?? 0) + 1);
    tables.set(table, entry);
  }
  return { total, tables: [...tables].sort((a, b) => b[1].bytes - a[1].bytes) };
}

await db.connect();
const slug = (
  (await (await fetch(`${service}/graphql`, { method: 'POST', headers, body: JSON.stringify({ query: '{ viewer { slug } }' }) })).json()) as {
    data: { viewer: { slug: string } };
  }
).data.viewer.slug;
await db.query(
  'CREATE TABLE IF NOT EXISTS wal_plain_floor (tenant_id uuid, permalink text, body jsonb, changed_at timestamptz, PRIMARY KEY (tenant_id, permalink))',
);
const plain = (body: Record<string, unknown>) =>
  db.query(
    `INSERT INTO wal_plain_floor VALUES ('00000000-0000-0000-0000-000000000000', $1, $2, now())
     ON CONFLICT (tenant_id, permalink) DO UPDATE SET body = EXCLUDED.body, changed_at = EXCLUDED.changed_at`,
    [body.native_system_load_permalink, body],
  );
// Every relation's file by its node, indexes and TOAST named by their table, partitions by their root.
const relations = new Map(
  (
    await db.query<{ node: string; name: string }>(
      `SELECT r.node, coalesce(pg_partition_root(r.owner)::text, r.owner::regclass::text) AS name
       FROM (SELECT c.relfilenode::text AS node, coalesce(i.indrelid, o.oid, c.oid) AS owner FROM pg_class c
             LEFT JOIN pg_index i ON i.indexrelid = c.oid LEFT JOIN pg_class o ON o.reltoastrelid = c.oid
             WHERE c.relfilenode <> 0) r`,
    )
  ).rows.map((r) => [r.node, r.name] as const),
);

await db.query('CHECKPOINT');
const base = 900_000 + (Date.now() % 100_000);
for (let i = 1; i <= 40; i++) {
  await post(data.load(slug, base + i));
  await post(data.load(slug, base + i, 1));
  await plain(data.load(slug, base + i));
}
await settled();

const measured = base + 50;
const writes: [string, () => Promise<unknown>][] = [
  ['create', () => post(data.load(slug, measured))],
  ['change of status and phase', () => post(data.load(slug, measured, 1))],
  ['the same body again', () => post(data.load(slug, measured, 1))],
  ['change of one field', () => post({ ...data.load(slug, measured, 1), customer_name: 'Another customer' })],
  ['plain floor: insert', () => plain(data.load(slug, measured))],
  ['plain floor: update', () => plain({ ...data.load(slug, measured), customer_name: 'Another customer' })],
];
for (const [label, write] of writes) {
  const start = await lsn();
  const answer = await write();
  await settled();
  const { total, tables } = walBetween(start, await lsn(), relations);
  console.log(`\n${label}${typeof answer === 'string' ? ` (${answer})` : ''}: ${total} bytes of WAL`);
  for (const [table, entry] of tables) {
    const types = [...entry.types].map(([type, n]) => `${type} ×${n}`).join(', ');
    console.log(`  ${table.padEnd(28)} ${String(entry.bytes).padStart(6)} B ${String(entry.records).padStart(3)} records: ${types}`);
  }
}
await db.query('DROP TABLE wal_plain_floor');
await db.end();
