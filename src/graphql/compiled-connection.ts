/**
 * A Relay connection of records (`loads`, `carriers`) as one SQL expression of compiled reads
 * (compiled-read.ts), with the resolvers' semantics (@pothos/plugin-prisma over Prisma, read in its
 * source): `first` (default 20) rows after the cursor's row, one more read to know `hasNextPage`; the
 * cursor positions the page at its row *in the list order* and that row is skipped (Prisma's
 * `cursor` + `skip: 1`, even when the row no longer matches the filter); `hasPreviousPage` is whether
 * `after` was given; cursors are Pothos' (`GPC:S:<id>` in base64); `totalCount` is the bounded count of
 * decision 0022. `last` / `before` are left to the resolvers.
 */
import { jsonObject } from '../db/json-tree.js';
import { literal } from '../db/sql-text.js';
import { countLimit } from './pagination.js';
import { objectSql, unanswered, type Scope, type Selection } from './compiled-read.js';

/** One key of a list order; the last key is unique (the id). */
export interface OrderKey {
  /** The key of the row at an alias (with the spec's `join` applied). */
  sql: (row: string) => string;
  direction: 'ASC' | 'DESC';
  /** The key may be null, ordered after every value (`NULLS LAST`). */
  nullsLast?: boolean;
}

export interface ConnectionSpec {
  /** GraphQL type of the nodes. */
  node: string;
  table: string;
  /** Joins the row at `row` needs for its keys (e.g. its activity), as FROM-clause text. */
  join?: (row: string) => string;
  /** The list's conditions on the row at `row`, besides the tenant (which is always matched). */
  where: (row: string) => string;
  keys: readonly OrderKey[];
}

const cursorPrefix = 'GPC:S:';
const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The record id of a cursor the resolvers would read the same way; otherwise they answer (their error). */
function cursorId(cursor: string): string {
  const decoded = Buffer.from(cursor, 'base64').toString('utf8');
  const id = decoded.startsWith(cursorPrefix) ? decoded.slice(cursorPrefix.length) : '';
  if (!uuid.test(id) || Buffer.from(decoded, 'utf8').toString('base64') !== cursor) unanswered('a cursor the resolvers read differently');
  return id;
}

const cursorSql = (id: string) => `encode(convert_to(${literal(cursorPrefix)} || ${id}::text, 'UTF8'), 'base64')`;

const orderSql = (keys: readonly OrderKey[], row: string) =>
  keys.map((k) => `${k.sql(row)} ${k.direction}${k.nullsLast ? ' NULLS LAST' : k.direction === 'DESC' ? ' NULLS FIRST' : ''}`).join(', ');

/** Rows at or after the cursor row `c` in the list order (the cursor row itself included, as Prisma's `cursor`). */
function atOrAfter(keys: readonly OrderKey[], row: string, c: string): string {
  if (keys.every((k) => !k.nullsLast && k.direction === keys[0]!.direction)) {
    // Non-null keys in one direction: a row comparison, which an index on the keys serves.
    const tuple = (alias: string) => `(${keys.map((k) => k.sql(alias)).join(', ')})`;
    return `${tuple(row)} ${keys[0]!.direction === 'DESC' ? '<=' : '>='} ${tuple(c)}`;
  }
  const [key, ...rest] = keys;
  const [r, v] = [key!.sql(row), key!.sql(c)];
  const op = key!.direction === 'DESC' ? '<' : '>';
  if (!rest.length) return `${r} ${op}= ${v}`;
  const after = key!.nullsLast ? `(${v} IS NOT NULL AND (${r} IS NULL OR ${r} ${op} ${v}))` : `${r} ${op} ${v}`;
  return `(${after} OR (${r} IS NOT DISTINCT FROM ${v} AND ${atOrAfter(rest, row, c)}))`;
}

/** The connection field `selection` (its `first`, `after` and sub-selection) as a JSON object. */
export function connectionSql(spec: ConnectionSpec, selection: Selection, scope: Scope): string {
  const { first, after, last, before } = selection.args as { first?: number | null; after?: string | null; last?: unknown; before?: unknown };
  if (last != null || before != null) unanswered('last / before');
  const size = first ?? 20;
  const skip = after == null ? 0 : 1;
  const take = size + 1;
  const T = scope.tenantParam;
  const join = spec.join ?? (() => '');
  const from = (row: string) => `${spec.table} ${row}${join(row)}`;
  const where = (row: string) => `${row}.tenant_id = ${T} AND ${spec.where(row)}`;
  const ctes: string[] = [];
  // The resolvers parse the cursor whatever is selected (a malformed one is their validation error). They read
  // the page, and so find a cursor naming no record of the tenant (their error too), unless only `totalCount`
  // (and `__typename`) is selected (@pothos/plugin-prisma's `totalCountOnly`).
  const cursorRecord = after == null ? null : cursorId(after);
  const totalCountOnly = selection.selections.every((s) => s.name === 'totalCount' || s.name === '__typename');
  const id = cursorRecord && !totalCountOnly ? scope.param(cursorRecord) : null;
  if (id) scope.require(`EXISTS (SELECT FROM ${spec.table} WHERE tenant_id = ${T} AND id = ${id}::uuid)`);
  const needPage = () => {
    if (ctes.some((cte) => cte.startsWith('p AS'))) return;
    const l = scope.alias('r');
    let cursor = '';
    if (id) {
      const c = scope.alias('c');
      cursor = ` CROSS JOIN (SELECT ${spec.keys.map((k, i) => `${k.sql(c)} AS k${i}`).join(', ')} FROM ${from(c)} WHERE ${c}.tenant_id = ${T} AND ${c}.id = ${id}::uuid) cur`;
    }
    const curKeys = spec.keys.map((k, i) => ({ ...k, sql: (alias: string) => (alias === 'cur' ? `cur.k${i}` : k.sql(alias)) }));
    ctes.push(
      `p AS (SELECT ${l}.id, row_number() OVER (ORDER BY ${orderSql(spec.keys, l)}) - ${skip} AS m FROM ${from(l)}${cursor}` +
        ` WHERE ${where(l)}${cursor ? ` AND ${atOrAfter(curKeys, l, 'cur')}` : ''} ORDER BY ${orderSql(spec.keys, l)} OFFSET ${skip} LIMIT ${take})`,
    );
  };
  const needCount = () => {
    if (ctes.some((cte) => cte.startsWith('total AS'))) return;
    const l = scope.alias('r');
    // In the list's order: the count walks the same index as the page and stops after the bound, testing
    // each row's relation conditions as it goes (a merge over every match's ids, which PostgreSQL otherwise
    // may pick, starts parallel workers and reads far more than the bound).
    ctes.push(
      `total AS (SELECT count(*)::int AS n FROM (SELECT FROM ${from(l)} WHERE ${where(l)} ORDER BY ${orderSql(spec.keys, l)} LIMIT ${countLimit + 1}) x)`,
    );
  };
  const pairs = selection.selections.map((s): readonly [string, string] => {
    switch (s.name) {
      case '__typename':
        return [s.key, literal(selection.type)];
      case 'totalCount':
        needCount();
        return [s.key, `(SELECT least(n, ${countLimit}) FROM total)`];
      case 'totalCountExact':
        needCount();
        return [s.key, `(SELECT n <= ${countLimit} FROM total)`];
      case 'pageInfo':
        needPage();
        return [s.key, pageInfoSql(s, size, take, after != null)];
      case 'edges':
        needPage();
        return [s.key, edgesSql(spec, s, size, scope)];
      default:
        return unanswered(`${selection.type}.${s.name}`);
    }
  });
  return `(${ctes.length ? `WITH ${ctes.join(', ')} ` : ''}SELECT ${jsonObject(pairs)})`;
}

function pageInfoSql(selection: Selection, size: number, take: number, hasAfter: boolean): string {
  const cursorAt = (m: string) => `(SELECT ${cursorSql('p.id')} FROM p WHERE p.m = ${m})`;
  return jsonObject(
    selection.selections.map((s): readonly [string, string] => {
      switch (s.name) {
        case '__typename':
          return [s.key, literal(selection.type)];
        case 'hasNextPage':
          return [s.key, `EXISTS (SELECT FROM p WHERE p.m = ${take})`];
        case 'hasPreviousPage':
          return [s.key, hasAfter ? 'true' : 'false'];
        case 'startCursor':
          return [s.key, size > 0 ? cursorAt('1') : 'NULL'];
        case 'endCursor':
          return [s.key, size > 0 ? cursorAt(`(SELECT max(m) FROM p WHERE p.m <= ${size})`) : 'NULL'];
        default:
          return unanswered(`${selection.type}.${s.name}`);
      }
    }),
  );
}

function edgesSql(spec: ConnectionSpec, selection: Selection, size: number, scope: Scope): string {
  const row = scope.alias('e');
  let node = false;
  const edge = jsonObject(
    selection.selections.map((s): readonly [string, string] => {
      switch (s.name) {
        case '__typename':
          return [s.key, literal(selection.type)];
        case 'cursor':
          return [s.key, cursorSql('p.id')];
        case 'node':
          node = true;
          return [s.key, objectSql(spec.node, row, s.selections, scope)];
        default:
          return unanswered(`${selection.type}.${s.name}`);
      }
    }),
  );
  const nodes = node ? ` JOIN ${spec.table} ${row} ON ${row}.tenant_id = ${scope.tenantParam} AND ${row}.id = p.id` : '';
  return `(SELECT coalesce(json_agg(${edge} ORDER BY p.m), '[]') FROM p${nodes} WHERE p.m BETWEEN 1 AND ${size})`;
}
