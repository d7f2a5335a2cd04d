/**
 * The benchmark's floor: the least a load upsert over HTTP can cost on this machine. It does what the
 * service must do for `POST /api/v1/loads/upsert` and nothing more: the same key check (SHA-256 of
 * `X-API-Key`, looked up once and cached), the same permalink check (suffix `-<slug>`), one prepared
 * `INSERT … ON CONFLICT … RETURNING` into the same table, and the same JSON answer.
 *
 *   node --import tsx bench/reference-server.ts node         # plain node:http + pg
 *   node --import tsx bench/reference-server.ts yoga         # the same route in a bare Yoga onRequest plugin
 *   node --import tsx bench/reference-server.ts node plain   # node:http + pg into a plain table
 *
 * The plain floor (`plain`) upserts into `bench_plain_loads` instead of `loads`: the same columns and
 * unique key (and primary key), no triggers, no secondary indexes (created at start if missing): what a
 * user's simplest alternative pays. It also serves `POST /api/v1/loads/bulk_upsert` (`{"records": […]}`,
 * answered `{"results": […]}` as the service does) with one multi-row `INSERT … ON CONFLICT` of the
 * batch (the last of repeated permalinks wins, as the service's order of application does), its rows
 * written in permalink order as the service writes them (concurrent batches then lock rows in one order
 * and cannot deadlock).
 *
 * PostgreSQL from DATABASE_URL (pool of DATABASE_POOL_SIZE, default 10, like the service), or PGlite
 * in DATA_DIR. Listens on 127.0.0.1:PORT (0: any) and prints `listening <port>` on stdout.
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { createSchema, createYoga } from 'graphql-yoga';
import pg from 'pg';

type Query = (text: string, values: unknown[], name: string) => Promise<Record<string, unknown>[]>;

async function openDatabase(): Promise<Query> {
  const url = process.env.DATABASE_URL;
  if (url) {
    const pool = new pg.Pool({ connectionString: url, max: Number(process.env.DATABASE_POOL_SIZE ?? 10) });
    pool.on('error', () => {});
    await pool.query('SELECT 1');
    return async (text, values, name) => (await pool.query({ text, values, name })).rows;
  }
  const dataDir = process.env.DATA_DIR;
  if (!dataDir) throw new Error('Set DATABASE_URL or DATA_DIR.');
  const db = await PGlite.create(dataDir, { extensions: { pg_trgm } }); // as src/db/database.ts (pgliteExtensions)
  return async (text, values) => (await db.query<Record<string, unknown>>(text, values)).rows;
}

const query = await openDatabase();

const mode = process.argv[2];
const plain = process.argv[3] === 'plain';
if ((mode !== 'node' && mode !== 'yoga') || (process.argv[3] !== undefined && !plain)) throw new Error('usage: reference-server.ts node|yoga [plain]');
const table = plain ? 'bench_plain_loads' : 'loads';
if (plain) {
  await query(
    `CREATE TABLE IF NOT EXISTS bench_plain_loads (LIKE loads INCLUDING DEFAULTS, PRIMARY KEY (id), UNIQUE (tenant_id, permalink))`,
    [],
    'ref_plain_table',
  );
}

const keySql = `SELECT t.id, t.slug FROM api_keys k JOIN tenants t ON t.id = k.tenant_id WHERE k.hash = $1 AND k.revoked_at IS NULL`;
const upsertSql = `INSERT INTO ${table} AS t (id, tenant_id, permalink, tms_id, status, customer_reference_number, order_type, bol_number,
    po_number, load_mode, customer_name, extra, fresh_at, changed_at, created_at)
  VALUES (gen_random_uuid(), $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, '{}', $11, $11, $11)
  ON CONFLICT (tenant_id, permalink) DO UPDATE SET tms_id = EXCLUDED.tms_id, status = EXCLUDED.status,
    customer_reference_number = EXCLUDED.customer_reference_number, order_type = EXCLUDED.order_type,
    bol_number = EXCLUDED.bol_number, po_number = EXCLUDED.po_number, load_mode = EXCLUDED.load_mode,
    customer_name = EXCLUDED.customer_name, fresh_at = EXCLUDED.fresh_at, changed_at = EXCLUDED.changed_at
  RETURNING (xmax = 0) AS inserted`;

type Tenant = { id: string; slug: string };
const keys = new Map<string, { tenant: Tenant | null; expires: number }>();

async function tenantOf(apiKey: string): Promise<Tenant | null> {
  const now = Date.now();
  const hit = keys.get(apiKey);
  if (hit && hit.expires > now) return hit.tenant;
  const hash = createHash('sha256').update(apiKey).digest('hex');
  const [row] = await query(keySql, [hash], 'ref_key');
  const tenant = row ? { id: row.id as string, slug: row.slug as string } : null;
  keys.set(apiKey, { tenant, expires: now + 30_000 });
  return tenant;
}

interface Answer {
  status: number;
  body: string;
}
const error = (status: number, code: string, message: string): Answer => ({ status, body: JSON.stringify({ error: { code, message } }) });

/** The whole route: key → JSON → permalink → one statement → answer. */
async function upsertLoad(apiKey: string | null, text: string): Promise<Answer> {
  const tenant = apiKey ? await tenantOf(apiKey) : null;
  if (!tenant) return error(401, 'unauthenticated', 'The API key is unknown or revoked.');
  let body: Record<string, string | null>;
  try {
    body = JSON.parse(text);
  } catch {
    return error(400, 'invalid_json', 'The body is not valid JSON.');
  }
  const permalink = body.native_system_load_permalink;
  if (typeof permalink !== 'string' || !permalink.endsWith(`-${tenant.slug}`)) {
    return error(400, 'validation_failed', 'The request is invalid: native_system_load_permalink.');
  }
  const [row] = await query(
    upsertSql,
    [
      tenant.id,
      permalink,
      body.native_system_load_id ?? null,
      body.native_system_load_status ?? null,
      body.native_system_customer_reference_number ?? null,
      body.order_type ?? null,
      body.bol_number ?? null,
      body.po_number ?? null,
      body.load_mode ?? null,
      body.customer_name ?? null,
      new Date(),
    ],
    'ref_upsert_load',
  );
  const message = `Load ${permalink} processed (${row?.inserted ? 'created' : 'updated'}).`;
  return { status: 200, body: JSON.stringify({ status: 'processed', message, permalink }) };
}

/** The plain floor's bulk: the batch's columns as arrays, one `INSERT … SELECT FROM unnest(…) ON CONFLICT`. */
const bulkColumns = ['permalink', 'tms_id', 'status', 'customer_reference_number', 'order_type', 'bol_number', 'po_number', 'load_mode', 'customer_name'];
const bulkFields = [
  'native_system_load_permalink',
  'native_system_load_id',
  'native_system_load_status',
  'native_system_customer_reference_number',
  'order_type',
  'bol_number',
  'po_number',
  'load_mode',
  'customer_name',
];
const at = `$${bulkColumns.length + 2}::timestamptz`;
const bulkSql = `INSERT INTO ${table} AS t (id, tenant_id, ${bulkColumns.join(', ')}, extra, fresh_at, changed_at, created_at)
  SELECT gen_random_uuid(), $1::uuid, ${bulkColumns.map((c) => `r.${c}`).join(', ')}, '{}', ${at}, ${at}, ${at}
  FROM unnest(${bulkColumns.map((_, i) => `$${i + 2}::text[]`).join(', ')}) AS r(${bulkColumns.join(', ')})
  ORDER BY r.permalink
  ON CONFLICT (tenant_id, permalink) DO UPDATE SET ${bulkColumns
    .slice(1)
    .map((c) => `${c} = EXCLUDED.${c}`)
    .join(', ')}, fresh_at = EXCLUDED.fresh_at, changed_at = EXCLUDED.changed_at
  RETURNING (xmax = 0) AS inserted`;

async function bulkUpsertLoads(apiKey: string | null, text: string): Promise<Answer> {
  const tenant = apiKey ? await tenantOf(apiKey) : null;
  if (!tenant) return error(401, 'unauthenticated', 'The API key is unknown or revoked.');
  let records: Record<string, string | null>[];
  try {
    ({ records } = JSON.parse(text) as { records: Record<string, string | null>[] });
  } catch {
    return error(400, 'invalid_json', 'The body is not valid JSON.');
  }
  if (!Array.isArray(records)) return error(400, 'validation_failed', 'The request is invalid: records.');
  const byPermalink = new Map<string, Record<string, string | null>>();
  for (const record of records) {
    const permalink = record.native_system_load_permalink;
    if (typeof permalink !== 'string' || !permalink.endsWith(`-${tenant.slug}`)) {
      return error(400, 'validation_failed', 'The request is invalid: native_system_load_permalink.');
    }
    byPermalink.delete(permalink); // the last one wins, in the batch's order
    byPermalink.set(permalink, record);
  }
  const rows = [...byPermalink.values()];
  if (rows.length) {
    await query(bulkSql, [tenant.id, ...bulkFields.map((field) => rows.map((r) => r[field] ?? null)), new Date()], 'ref_bulk_upsert_loads');
  }
  const results = records.map((r) => ({ status: 'processed', permalink: r.native_system_load_permalink }));
  return { status: 200, body: JSON.stringify({ results }) };
}

const route = '/api/v1/loads/upsert';
const bulkRoute = '/api/v1/loads/bulk_upsert';
const headers = { 'content-type': 'application/json; charset=utf-8' };

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

function nodeServer() {
  return createServer((req, res) => {
    const answer = (a: Answer) => res.writeHead(a.status, headers).end(a.body);
    const path = req.url?.split('?')[0];
    const handler = path === route ? upsertLoad : plain && path === bulkRoute ? bulkUpsertLoads : null;
    if (req.method !== 'POST' || !handler) return answer(error(404, 'not_found', `No route ${req.url}.`));
    const apiKey = req.headers['x-api-key'];
    readBody(req)
      .then((text) => handler(typeof apiKey === 'string' ? apiKey : null, text))
      .then(answer, () => answer(error(500, 'internal', 'An internal error occurred.')));
  });
}

function yogaServer() {
  const yoga = createYoga({
    schema: createSchema({ typeDefs: 'type Query { ok: Boolean }' }),
    logging: false,
    landingPage: false,
    plugins: [
      {
        // Yoga's own fetch API (the whatwg-node ponyfill): its Response goes out in one write, where a
        // native Response would be pumped through a ReadableStream. Content-Length as the service
        // sends it: without it the answer is chunked and its last chunk waits for a delayed ACK.
        onRequest({ request, url, endResponse, fetchAPI }) {
          if (url.pathname !== route) return;
          const respond = (a: Answer) =>
            endResponse(new fetchAPI.Response(a.body, { status: a.status, headers: { ...headers, 'content-length': String(Buffer.byteLength(a.body)) } }));
          return request
            .text()
            .then((text) => upsertLoad(request.headers.get('x-api-key'), text))
            .then(respond, () => respond(error(500, 'internal', 'An internal error occurred.')));
        },
      },
    ],
  });
  return createServer((req, res) => void yoga(req, res));
}

const server = mode === 'node' ? nodeServer() : yogaServer();
server.listen(Number(process.env.PORT ?? 0), '127.0.0.1', () => {
  process.stdout.write(`listening ${(server.address() as AddressInfo).port}\n`);
});
const stop = () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
