/**
 * EXPLAIN (ANALYZE, BUFFERS) of the statement a bulk write sends (the ingestion use case the routes call,
 * payload history on), on the tenant `big` that bench/board-seed.ts fills (100,000 loads): 500 records of
 * one kind that change 500 stored loads, legs or stops (written first) or add updates to those loads, in a
 * transaction that is rolled back. The write's change events, activity and history (its log entries, which
 * carry field coverage's presence bits) are CTEs of its own statement (decision 0032), so the plan prices them with the rest. Issue 21: what a write costs
 * beyond the plain floor's INSERT.
 *
 *   DATABASE_URL=postgresql://…/<scratch> npx tsx bench/explain-write.ts [load|load_leg|stop|load_update] [--plan]
 */
import pg from 'pg';
import { openDatabase, type Database } from '../src/db/database.js';
import { createPayloadPartitions } from '../src/db/payload-history.js';
import { recordSpecOf } from '../src/domain/registry.js';
import type { IngestScope } from '../src/domain/ingestion/ingest.js';
import { createOperation } from '../src/domain/ingestion/operation.js';
import { writeActionOf, type RecordSpec } from '../src/domain/declaration/record.js';
import { directScope } from './ingest-scope.js';
import * as data from './data.js';

const url = process.env.DATABASE_URL;
if (!url) throw new Error('DATABASE_URL (PostgreSQL, seeded by bench/board-seed.ts) is required');
const kind = (process.argv[2] ?? 'load_update') as keyof typeof recordSpecOf;
const showPlan = process.argv.includes('--plan');
const now = new Date();
const at = (i: number) => new Date(now.getTime() - i * 1000).toISOString();
// 500 loads of the tenant with a leg and a stop each (the bench's bodies, bench/data.ts), written and
// committed first; the explained write changes them (loads, legs, stops) or adds updates to them.
const bodies: Record<string, (i: number) => Record<string, unknown>> = {
  load: (i) => data.load('big', i),
  load_leg: (i) => data.leg('big', i, 1, 0),
  stop: (i) => data.stop('big', i, 1, 1),
  load_update: (i) => ({ ...data.update('big', (now.getTime() % 1_000_000) * 1000 + i, i), occurred_at: at(i) }),
};
// What the explained write sends: a changed value for the stored records, new updates.
const changed: Record<string, (body: Record<string, unknown>, i: number) => Record<string, unknown>> = {
  load: (_body, i) => data.load('big', i, 1),
  load_leg: (body, i) => ({ ...body, driver_name: `New driver ${i}` }),
  stop: (body, i) => ({ ...body, arrived_at: at(i) }),
  load_update: (body) => body,
};
const make = bodies[kind];
if (!make) throw new Error(`kind: one of ${Object.keys(bodies).join(', ')}`);

const db = await openDatabase({ url, dataDir: '', poolSize: 2 });
const client = new pg.Client({ connectionString: url });
await client.connect();
try {
  await createPayloadPartitions(db.sql, now, 2);
  const { rows } = await client.query<{ id: string }>(`SELECT id FROM tenants WHERE slug = 'big'`);
  const tenant = { id: rows[0]!.id, slug: 'big' } as IngestScope['tenant'];
  // The use case's statements go through EXPLAIN ANALYZE first, then run for their rows, all rolled back.
  const explaining: Database = {
    ...db,
    sql: {
      async query(text: string, params: readonly unknown[]) {
        await client.query('BEGIN');
        try {
          await client.query('SET CONSTRAINTS ALL IMMEDIATE');
          // EXPLAIN ANALYZE runs the statement; it is undone before the statement runs for its rows, so
          // the outcomes printed are those of one write (not duplicates of the explained one).
          await client.query('SAVEPOINT explained');
          const plan = (await client.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS) ${text}`, params as unknown[])).rows.map(
            (r) => r['QUERY PLAN'],
          );
          console.log(
            showPlan ? plan.join('\n') : plan.filter((line) => /^(Trigger|Execution|Planning Time)|^\s+Buffers/.test(line) || !line.startsWith(' ')).join('\n'),
          );
          await client.query('ROLLBACK TO SAVEPOINT explained');
          return (await client.query(text, params as unknown[])).rows as never[];
        } finally {
          await client.query('ROLLBACK');
        }
      },
    },
  };
  const scope = directScope(explaining, tenant, 'explain-write', now);
  const batch = (make: (i: number) => Record<string, unknown>) => Array.from({ length: 500 }, (_, i) => make(i + 1));
  const ingestionOf = (spec: RecordSpec<typeof kind>) => createOperation(spec, writeActionOf(spec)).ingestion;
  for (const parent of ['load', 'load_leg', 'stop'] as const)
    await ingestionOf(recordSpecOf[parent]).ingest(directScope(db, tenant, 'explain-write', now), batch(bodies[parent]!));
  await client.query('ANALYZE');
  const results = await ingestionOf(recordSpecOf[kind]).ingest(
    scope,
    batch((i) => changed[kind]!(make(i), i)),
  );
  const outcomes = new Map<string, number>();
  for (const result of results) {
    const key = result.ok ? result.outcome.status : result.error.code;
    outcomes.set(key, (outcomes.get(key) ?? 0) + 1);
  }
  if (!results[0]!.ok) console.log(JSON.stringify(results[0]));
  console.log(`${kind}: ${[...outcomes].map(([k, n]) => `${n} ${k}`).join(', ')}`);
} finally {
  await client.end();
  await db.close();
}
