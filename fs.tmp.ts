import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openDatabase } from './src/db/database.js';
import { migrateIfPending } from './src/db/migrate.js';
import { recordSpecOf } from './src/domain/registry.js';
import { createIngestion, type IngestScope } from './src/domain/shared/ingest.js';
import { createTenant } from './src/domain/tenant/service.js';
import { createPayloadPartitions } from './src/db/payload-history.js';
import { buildUpsertStatement } from './src/db/upsert-statement.js';
import { tableOf } from './src/domain/shared/record.js';
const analyzeAfter = Number(process.argv[2] ?? -1);
const url = process.env.DATABASE_URL!;
const name = `fs_${randomBytes(4).toString('hex')}`;
const admin = new pg.Client({ connectionString: url }); await admin.connect(); await admin.query(`CREATE DATABASE ${name}`);
const dbUrl = new URL(url); dbUrl.pathname = `/${name}`;
const db = await openDatabase({ url: dbUrl.toString(), dataDir: '', poolSize: 4 });
try {
  await migrateIfPending(db);
  await createPayloadPartitions(db.sql, new Date(), 2);
  const { tenant } = await createTenant(db, { slug: 'fs', name: 'FS' });
  const ingestion = createIngestion(recordSpecOf.load);
  const scope: IngestScope = { db, sequencer: { committed: async () => {}, touched: () => {} }, recorder: { record: () => {}, flush: async () => {}, close: async () => {} }, tenant, source: 'pull', now: new Date(), log: { error: () => {} }, history: { requestId: 'x' }, dryRun: false } as any;
  let n = 0;
  const load = () => { n++; return { native_system_load_permalink: `L${n}-fs`, native_system_load_id: `L${n}`, native_system_load_status: 'Booked', bol_number: `B${n}`, po_number: `P${n}`, customer_reference_number: `CR-${n}` }; };
  const times: number[] = [];
  for (let i = 0; i < 40; i++) {
    if (i === analyzeAfter) await db.sql.query('ANALYZE', []);
    const t = performance.now();
    await ingestion.ingest(scope, Array.from({ length: 500 }, load));
    times.push(Math.round(performance.now() - t));
  }
  const st = buildUpsertStatement(tableOf(recordSpecOf.load), { history: true });
  const orig = db.sql.query.bind(db.sql);
  (db.sql as any).query = async (text: string, params: unknown[], nm?: string) => {
    if (false) { const rows = await orig<any>('EXPLAIN (ANALYZE, BUFFERS) ' + text, params); console.log(rows.map((r: any) => r['QUERY PLAN']).join('\n')); }
    return orig(text, params, nm);
  };
  await ingestion.ingest(scope, Array.from({ length: 500 }, load));
  console.log(`analyze after ${analyzeAfter}:`, times.join(' '), 'total', times.reduce((a, b) => a + b));
} finally { await db.close(); await admin.end(); }
