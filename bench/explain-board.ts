/**
 * EXPLAIN ANALYZE of the load board's statements (the page and its count, as src/domain/load/page.ts
 * writes them) for each order and filter, on the tenant `big` that bench/board-seed.ts fills:
 *
 *   DATABASE_URL=postgresql://…/<scratch> npm run db:migrate && npx tsx bench/board-seed.ts postgresql://…/<scratch>
 *   DATABASE_URL=postgresql://…/<scratch> npx tsx bench/explain-board.ts [--plans] [--only city] [--tenant sync]
 */
import pg from 'pg';
import type { Sql } from '../src/db/database.js';
import { countLoads, readLoadPage } from '../src/domain/load/page.js';
import { countLimit } from '../src/graphql/pagination.js';
import type { LoadFilter, LoadOrder } from '../src/domain/load/queries.js';
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL });
const flag = (name: string) => process.argv.indexOf(name);
// `--tenant <slug>`: another tenant than board-seed.ts's `big` (the bench's `sync`, with --keep-db).
const slug = flag('--tenant') > 0 ? process.argv[flag('--tenant') + 1] : 'big';
const tenant = (await pool.query<{ id: string }>('SELECT id FROM tenants WHERE slug = $1', [slug])).rows[0]!.id;
// The include @pothos/plugin-prisma plans for the bench's load-board document.
const legOrder = [{ sequence: { sort: 'asc', nulls: 'last' } }, { createdAt: 'asc' }];
const include = {
  legs: { orderBy: legOrder, include: { carrier: true, stops: { orderBy: legOrder } } },
  updates: { take: 1, orderBy: [{ occurredAt: { sort: 'desc', nulls: 'last' } }, { createdAt: 'desc' }, { id: 'desc' }] },
};
const only = flag('--only') > 0 ? process.argv[flag('--only') + 1] : undefined;
const sqlOf = async (run: (sql: Sql) => Promise<unknown>) => {
  let captured: [string, unknown[]] = ['', []];
  const capture = async (text: string, params: readonly unknown[]) => {
    captured = [text, [...params]];
    return (text.includes('count(*)') ? [{ n: 0 }] : []) as never[];
  };
  await run({ query: capture });
  return captured;
};
const all: [string, LoadFilter, LoadOrder | undefined][] = [
  ['CREATED_DESC', {}, undefined],
  ['ACTIVITY_DESC', {}, 'ACTIVITY_DESC'],
  ['activitySince 1 day', { activitySince: new Date(Date.now() - 86400000) }, 'ACTIVITY_DESC'],
  ['dashboard (activitySince 6 hours, city)', { activitySince: new Date(Date.now() - 6 * 3600000), city: 'chicago' }, 'ACTIVITY_DESC'],
  ['carrier', { carrier: 'BC7' }, undefined],
  ['city (a tenth of the stops)', { city: 'chicago' }, undefined],
  ['city (none)', { city: 'nowhere' }, undefined],
  ['status', { status: 'booked' }, undefined],
  ['phase', { phase: ['PLANNED'] }, undefined],
  ['search', { search: 'L9999' }, undefined],
];
const cases = only ? all.filter((c) => c[0].startsWith(only)) : all;
for (const [label, filter, order] of cases) {
  for (const kind of ['page', 'count']) {
    const [text, params] = await sqlOf((sql) =>
      kind === 'page' ? readLoadPage(sql, tenant, { take: 51, skip: 0, include }, filter, order) : countLoads(sql, tenant, filter, countLimit + 1),
    );
    const times: number[] = [];
    let plan = '';
    for (let i = 0; i < 3; i++) {
      const r = await pool.query(`EXPLAIN (ANALYZE, BUFFERS) ${text}`, params);
      plan = r.rows.map((x: Record<string, string>) => x['QUERY PLAN']).join('\n');
      times.push(Number(/Execution Time: ([\d.]+)/.exec(plan)![1]));
    }
    console.log(`${label} ${kind}: ${Math.min(...times).toFixed(2)} ms`);
    if (flag('--plans') > 0) console.log(plan.split('\n').slice(0, 14).join('\n'));
  }
}
await pool.end();
