/**
 * EXPLAIN ANALYZE of every statement `dataQuality` runs (src/domain/data-quality/service.ts: the field
 * coverage read, each finding, and the missing-field examples of a field of each kind), on the tenant
 * `big` that bench/board-seed.ts fills (100,000 loads, 200,000 legs, 400,000 stops, 500,000 updates):
 *
 *   DATABASE_URL=postgresql://…/<scratch> npm run db:migrate && npx tsx bench/board-seed.ts postgresql://…/<scratch>
 *   DATABASE_URL=postgresql://…/<scratch> npx tsx bench/explain-quality.ts [--days 30] [--plans]
 *
 * The seeded loads are a day and more old: `--days` (default 100) sets the window so that it holds
 * them all (the worst case: every load of the tenant active in the window).
 */
import pg from 'pg';
import type { Database } from '../src/db/database.js';
import { readDataQuality, readMissingExamples } from '../src/domain/data-quality/service.js';
import { recordSpecOf, type RecordKind } from '../src/domain/registry.js';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL });
const flag = (name: string) => process.argv.indexOf(name);
const days = flag('--days') > 0 ? Number(process.argv[flag('--days') + 1]) : 100;
const tenant = (await pool.query<{ id: string }>("SELECT id FROM tenants WHERE slug = 'big'")).rows[0]!.id;
const now = new Date();
const since = new Date(now.getTime() - days * 86_400_000);

/** The statements a read issues, with their parameters (answered empty: only the text is wanted). */
async function statementsOf(run: (db: Database) => Promise<unknown>) {
  const captured: { name: string; text: string; params: unknown[] }[] = [];
  const sql = {
    query: async (text: string, params: readonly unknown[], name?: string) => {
      captured.push({ name: name ?? text.slice(0, 40), text, params: [...params] });
      return [] as never[];
    },
  };
  await run({ sql } as unknown as Database);
  return captured;
}

const examples: [RecordKind, string][] = [
  ['carrier', 'mc_number'],
  ['load', 'bol_number'],
  ['load_leg', 'native_system_load_unique_key'],
  ['stop', 'city'],
  ['load_update', 'eta'],
];
const statements = [
  ...(await statementsOf((db) => readDataQuality({ db, tenantId: tenant, now, since }))),
  ...(
    await Promise.all(
      examples.map(([kind, field]) =>
        statementsOf((db) => readMissingExamples(db, { tenantId: tenant, kind, field, since, first: 5 })).then((found) =>
          found.map((s) => ({ ...s, name: `missingExamples ${recordSpecOf[kind].kind}.${field}` })),
        ),
      ),
    )
  ).flat(),
];

console.log(`tenant big, window ${days} days; EXPLAIN (ANALYZE, BUFFERS), PostgreSQL`);
for (const { name, text, params } of statements) {
  const rows = (await pool.query<{ 'QUERY PLAN': string }>(`EXPLAIN (ANALYZE, BUFFERS) ${text}`, params)).rows.map((r) => r['QUERY PLAN']);
  const time = rows.find((line) => line.startsWith('Execution Time'));
  const buffers = rows.find((line) => line.trim().startsWith('Buffers'));
  console.log(`${name.padEnd(48)} ${time?.replace('Execution Time: ', '') ?? '?'}  ${buffers?.trim() ?? ''}`);
  if (flag('--plans') > 0) console.log(rows.map((line) => `    ${line}`).join('\n'));
}
await pool.end();
