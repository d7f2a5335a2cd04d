/**
 * The `loads` page in one SQL statement (issue 10: the load board). PostgreSQL returns each load of
 * the page with the relations the GraphQL selection asked for already nested as JSON (see
 * `db/json-tree.ts`), in the shape Prisma would return, so the resolvers only read properties.
 * Cursor pagination follows Prisma's: `cursor` names a row of the tenant, the page starts at it
 * (`skip: 1` leaves it out), a negative `take` reads backwards and answers in list order.
 */
import type { Sql } from '../../db/database.js';
import { orderKeys, toOneJoin } from '../../db/json-tree.js';
import { loadFilterWhere, loadOrderBy, type LoadFilter, type LoadOrder } from './queries.js';
import { compileTree, compileWhere, treeTables } from './tree.js';

/** The connection query @pothos/plugin-prisma plans for `loads`. */
export interface LoadPageQuery {
  take?: number;
  skip?: number;
  cursor?: { id?: string };
  include?: unknown;
  select?: unknown;
}

const pageKeys = new Set(['take', 'skip', 'cursor', 'include', 'select']);

/** The page's loads, or null when the query asks for something this reader does not know (then ask Prisma). */
export async function readLoadPage(
  sql: Sql,
  tenantId: string,
  query: LoadPageQuery,
  filter: LoadFilter | null | undefined,
  order: LoadOrder | null | undefined,
): Promise<Record<string, unknown>[] | null> {
  if (Object.keys(query).some((key) => !pageKeys.has(key))) return null;
  const { take, skip = 0 } = query;
  if (!Number.isInteger(take) || take === 0 || !Number.isInteger(skip) || skip < 0) return null;
  // The list order is `loadOrderBy`'s (the one definition Prisma reads too), every key in one direction.
  const keys = orderKeys('Load', loadOrderBy(order));
  const descending = keys[0]!.direction === 'DESC';
  if (keys.some((k) => k.direction !== keys[0]!.direction)) throw new Error('the load page reads one direction of keys only');
  const tree = compileTree(
    'Load',
    'l',
    query,
    '$1',
    keys.filter((k) => !k.relation).map((k) => k.field),
  );
  if (!tree) return null;
  const params: unknown[] = [tenantId];
  const param = (value: unknown) => `$${params.push(value)}`;
  const where = compileWhere('Load', 'l', loadFilterWhere(tenantId, filter), '$1', param);
  const backwards = take! < 0;
  // A key on a to-one relation (ACTIVITY_DESC: the load's activity row) reads the joined row.
  const relations = [...new Set(keys.flatMap((k) => (k.relation ? [k.relation] : [])))];
  const joins = (alias: string) => relations.map((relation, i) => ` ${toOneJoin('Load', relation, alias, `${alias}_o${i}`, treeTables)}`).join('');
  const keySql = (alias: string, k: (typeof keys)[number]) => `${k.relation ? `${alias}_o${relations.indexOf(k.relation)}` : alias}.${k.column}`;
  const keyName = (k: (typeof keys)[number], i: number) => (k.relation ? `__order_${i}` : k.field);
  const columns = (alias: string) => `(${keys.map((k) => keySql(alias, k)).join(', ')})`;
  let cursor = '';
  if (query.cursor) {
    if (typeof query.cursor.id !== 'string') return null;
    // Rows at or after the cursor's row in list order (at or before it when reading backwards).
    const atOrAfter = descending !== backwards ? '<=' : '>=';
    cursor = ` JOIN (SELECT ${keys.map((k, i) => `${keySql('c', k)} AS ${k.column}_${i}`).join(', ')} FROM loads c${joins('c')} WHERE c.id = ${param(query.cursor.id)}::uuid AND c.tenant_id = $1) c ON ${columns('l')} ${atOrAfter} (${keys.map((k, i) => `c.${k.column}_${i}`).join(', ')})`;
  }
  const inner = backwards === descending ? 'ASC' : 'DESC';
  const outer = descending ? 'DESC' : 'ASC';
  const relationKeys = keys.flatMap((k, i) => (k.relation ? [`, ${keySql('l', k)} AS "${keyName(k, i)}"`] : [])).join('');
  const text =
    `SELECT row_to_json(p) AS j FROM (SELECT ${tree.list}${relationKeys} FROM loads l${joins('l')}${cursor} WHERE l.tenant_id = $1 AND ${where}` +
    ` ORDER BY ${keys.map((k) => `${keySql('l', k)} ${inner}`).join(', ')} LIMIT ${Math.abs(take!)} OFFSET ${skip}) p ORDER BY ${keys.map((k, i) => `p."${keyName(k, i)}" ${outer}`).join(', ')}`;
  const rows = await sql.query<{ j: Record<string, unknown> }>(text, params);
  return rows.map(({ j }) => {
    tree.decode(j);
    keys.forEach((k, i) => k.relation && delete j[keyName(k, i)]);
    return j;
  });
}

/** How many of the tenant's loads match the filter, counting at most `limit` (`totalCount`). */
export async function countLoads(sql: Sql, tenantId: string, filter: LoadFilter | null | undefined, limit: number): Promise<number> {
  const params: unknown[] = [tenantId];
  const where = compileWhere('Load', 'l', loadFilterWhere(tenantId, filter), '$1', (value) => `$${params.push(value)}`);
  const [row] = await sql.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM (SELECT FROM loads l WHERE l.tenant_id = $1 AND ${where} LIMIT ${Math.trunc(limit)}) c`,
    params,
  );
  return row!.n;
}
