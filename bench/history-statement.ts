/**
 * `tsx bench/history-statement.ts`: the payload history's price at the statement, without HTTP. The
 * load ingestion use case (the same code the routes call) writes batches and single records against
 * PostgreSQL (DATABASE_URL's server, a scratch database dropped at the end), alternating between the
 * statement that records history and the one that does not, so that a busy machine's drift hits both
 * alike. Prints the wall time per record of each, per round and in total.
 *
 *   DATABASE_URL=postgresql://postgres@127.0.0.1:5432/postgres npx tsx bench/history-statement.ts [rounds] [batch] [concurrency]
 *
 * With `--coverage`, the feature switched on and off is data quality's field coverage (the presence bits
 * of the statement's log entries, docs/decisions/0051-derived-from-the-log.md) instead, payload history on for both.
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openDatabase } from '../src/db/database.js';
import { migrateIfPending } from '../src/db/migrate.js';
import { recordSpecOf } from '../src/domain/registry.js';
import { createOperation } from '../src/domain/ingestion/operation.js';
import { directScope } from './ingest-scope.js';
import { createTenant } from '../src/domain/tenant/service.js';
import { createPayloadPartitions } from '../src/db/payload-history.js';

const coverage = process.argv.includes('--coverage');
const [rounds = 6, batch = 500, concurrency = 8] = process.argv
  .slice(2)
  .filter((arg) => !arg.startsWith('--'))
  .map(Number);
const feature = coverage ? 'coverage' : 'history';
const url = process.env.DATABASE_URL;
if (!url) throw new Error('DATABASE_URL (PostgreSQL) is required');
const name = `history_micro_${randomBytes(4).toString('hex')}`;
const admin = new pg.Client({ connectionString: url });
await admin.connect();
await admin.query(`CREATE DATABASE ${name}`);
const dbUrl = new URL(url);
dbUrl.pathname = `/${name}`;
const db = await openDatabase({ url: dbUrl.toString(), dataDir: '', poolSize: concurrency + 2 });
try {
  await migrateIfPending(db);
  await createPayloadPartitions(db.sql, new Date(), 2);
  const { tenant } = await createTenant(db, { slug: 'micro', name: 'Micro' });
  const { ingestion } = createOperation(recordSpecOf.load, 'upsert');
  // `on`: the feature compared is on (payload history, or with --coverage field coverage).
  const scope = (on: boolean) => (coverage ? directScope(db, tenant, 'micro', new Date(), on) : directScope(db, tenant, on ? 'micro' : null));
  let n = 0;
  const load = () => {
    n++;
    return {
      native_system_load_permalink: `L${n}-micro`,
      native_system_load_id: `L${n}`,
      native_system_load_status: 'Booked',
      bol_number: `B${n}`,
      po_number: `P${n}`,
    };
  };
  // A first sync's worth of loads, then statistics (as autovacuum would gather them), so both
  // statements' lookups by permalink are planned on the unique index.
  for (let i = 0; i < 10; i++) await ingestion.ingest(scope(false), Array.from({ length: batch }, load));
  await db.sql.query('ANALYZE', []);
  const totals = { on: { ms: 0, records: 0 }, off: { ms: 0, records: 0 }, singleOn: { ms: 0, records: 0 }, singleOff: { ms: 0, records: 0 } };
  for (let round = 1; round <= rounds; round++) {
    for (const history of round % 2 ? [true, false] : [false, true]) {
      // Bulk: 10 batches of new loads, then the same 10 batches again (updates).
      const batches = Array.from({ length: 10 }, () => Array.from({ length: batch }, load));
      let started = performance.now();
      for (const records of [...batches, ...batches]) await ingestion.ingest(scope(history), records);
      const bulkMs = performance.now() - started;
      const bulk = totals[history ? 'on' : 'off'];
      bulk.ms += bulkMs;
      bulk.records += 20 * batch;
      // Single records: `concurrency` loops of 250 one-record requests.
      started = performance.now();
      await Promise.all(
        Array.from({ length: concurrency }, async () => {
          for (let i = 0; i < 250; i++) await ingestion.ingest(scope(history), [load()]);
        }),
      );
      const singleMs = performance.now() - started;
      const single = totals[history ? 'singleOn' : 'singleOff'];
      single.ms += singleMs;
      single.records += concurrency * 250;
      console.log(
        `round ${round} ${feature} ${history ? 'on ' : 'off'}: bulk ${((bulkMs * 1000) / (20 * batch)).toFixed(1)} µs/record, single ${((singleMs * 1000) / (concurrency * 250)).toFixed(0)} µs/record (load ${(await import('node:os')).loadavg()[0]!.toFixed(1)})`,
      );
    }
  }
  const rate = (t: { ms: number; records: number }) => (t.records / t.ms) * 1000;
  console.log(
    `bulk records/s: on ${rate(totals.on).toFixed(0)}, off ${rate(totals.off).toFixed(0)} (${((rate(totals.on) / rate(totals.off) - 1) * 100).toFixed(1)} %); ` +
      `single records/s: on ${rate(totals.singleOn).toFixed(0)}, off ${rate(totals.singleOff).toFixed(0)} (${((rate(totals.singleOn) / rate(totals.singleOff) - 1) * 100).toFixed(1)} %)`,
  );
} finally {
  await db.close();
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.end();
}
