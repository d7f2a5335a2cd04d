/**
 * EXPLAIN ANALYZE of the load board's statements (the page and its count, as the compiled reads,
 * src/graphql/compiled-read.ts, write them) for each order and filter, on the tenant `big` that bench/board-seed.ts fills:
 *
 *   DATABASE_URL=postgresql://…/<scratch> npm run db:migrate && npx tsx bench/board-seed.ts postgresql://…/<scratch>
 *   DATABASE_URL=postgresql://…/<scratch> npx tsx bench/explain-board.ts [--plans] [--only city] [--tenant sync]
 */
import { parse } from 'graphql';
import pg from 'pg';
import { loadBoard } from './board-queries.js';
import { sessionOptions } from '../src/db/database.js';
import { compileRead } from '../src/graphql/compiled-read.js';
import { schema } from '../src/graphql/schema.js';
import type { LoadFilter, LoadOrder } from '../src/domain/load/queries.js';
// The service's session settings (no parallel query), so the plans are the service's.
const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, options: sessionOptions });
const flag = (name: string) => process.argv.indexOf(name);
// `--tenant <slug>`: another tenant than board-seed.ts's `big` (the bench's `sync`, with --keep-db).
const slug = (flag('--tenant') > 0 ? process.argv[flag('--tenant') + 1] : undefined) ?? 'big';
const tenant = (await pool.query<{ id: string; tms_url_template: string | null }>('SELECT id, tms_url_template FROM tenants WHERE slug = $1', [slug])).rows[0]!;
const tenantRef = { id: tenant.id, slug, name: slug, tmsUrlTemplate: tenant.tms_url_template };
// The board's selection (bench/board-queries.ts), with each case's filter and order; the count alone.
const selection = loadBoard(false)
  .replace(/^query LoadBoard \{ loads\(first: 50\) \{/, '')
  .replace(/\} \}$/, '');
const only = flag('--only') > 0 ? process.argv[flag('--only') + 1] : undefined;
const statementOf = (kind: string, filter: LoadFilter, order: LoadOrder | undefined) =>
  compileRead(
    schema,
    parse(
      `query ($filter: LoadFilter, $order: LoadOrder) { loads(first: 50, filter: $filter, orderBy: $order) { ${kind === 'page' ? selection : 'totalCount totalCountExact'} } }`,
    ),
    undefined,
    { filter: { ...filter, activitySince: filter.activitySince?.toISOString() }, order },
    tenantRef,
    { payloadHistory: { days: 0, perRecord: 0 } },
    new Date(),
  );
const all: [string, LoadFilter, LoadOrder | undefined][] = [
  ['CREATED_DESC', {}, undefined],
  ['ACTIVITY_DESC', {}, 'ACTIVITY_DESC'],
  ['activitySince 1 day', { activitySince: new Date(Date.now() - 86400000) }, 'ACTIVITY_DESC'],
  ['dashboard (activitySince 6 hours, city)', { activitySince: new Date(Date.now() - 6 * 3600000), city: 'chicago' }, 'ACTIVITY_DESC'],
  // On `big` (all of its activity older than a day) the 6 hours find nothing: 3 days are its 2,880 newest loads.
  ['dashboard (activitySince 3 days, city)', { activitySince: new Date(Date.now() - 3 * 86400000), city: 'chicago' }, 'ACTIVITY_DESC'],
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
    const { text, params } = statementOf(kind, filter, order);
    const times: number[] = [];
    let plan = '';
    for (let i = 0; i < 3; i++) {
      const r = await pool.query(`EXPLAIN (ANALYZE, BUFFERS) ${text}`, params);
      plan = r.rows.map((x: Record<string, string>) => x['QUERY PLAN']).join('\n');
      times.push(Number(/Execution Time: ([\d.]+)/.exec(plan)![1]));
    }
    console.log(`${label} ${kind}: ${Math.min(...times).toFixed(2)} ms`);
    if (flag('--plans') > 0)
      console.log(
        plan
          .split('\n')
          .slice(0, Number(process.env.PLAN_LINES ?? 14))
          .join('\n'),
      );
  }
}
await pool.end();
