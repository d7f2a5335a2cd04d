/**
 * The SQL pieces with which PostgreSQL builds a GraphQL answer's JSON itself (the compiled reads of
 * `graphql/compiled-read.ts`): objects with their keys in the selection's order, lists in a given
 * order, and scalars written exactly as the GraphQL executor would serialise them (instants as
 * `Date.toISOString()` does, floats without a negative zero, enum values by their GraphQL names).
 * Nothing here knows GraphQL or a table: the domain modules say which columns and relations a type has.
 */

import { literal, quote } from './sql-text.js';

/** The snake_case column of a Prisma field name (the schema maps every field that way). */
export const columnOf = (field: string) => field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** Most keys one `json_build_object` takes (PostgreSQL passes a function at most 100 arguments). */
export const maxObjectKeys = 50;

/** A JSON object of `[key, value SQL]` pairs, keys in the given order. */
export function jsonObject(pairs: readonly (readonly [string, string])[]): string {
  if (pairs.length > maxObjectKeys) throw new Error(`json-tree: an object of ${pairs.length} keys (at most ${maxObjectKeys})`);
  return `json_build_object(${pairs.map(([key, value]) => `${literal(key)}, ${value}`).join(', ')})`;
}

/** A float8 as JSON.stringify writes a number: `-0` becomes `0` (adding zero does that in IEEE arithmetic). */
export const jsonFloat = (sql: string) => `(${sql} + 0)`;

/**
 * `encodeURIComponent` of a text, in SQL: every UTF-8 byte outside `A–Z a–z 0–9 - _ . ! ~ * ' ( )` as
 * `%XX` (upper-case hex). A text made only of those characters is returned as it is without splitting it.
 */
export function uriComponent(sql: string): string {
  const unreserved = `'^[A-Za-z0-9_.!~*''()-]*$'`;
  const bytes = `(SELECT i, get_byte(convert_to(z.k, 'UTF8'), i) AS b FROM generate_series(0, octet_length(z.k) - 1) i)`;
  const encoded = `(SELECT string_agg(CASE WHEN y.b < 128 AND chr(y.b) ~ ${unreserved} THEN chr(y.b) ELSE '%' || lpad(upper(to_hex(y.b)), 2, '0') END, '' ORDER BY y.i) FROM ${bytes} y)`;
  return `(SELECT CASE WHEN z.k ~ ${unreserved} THEN z.k ELSE ${encoded} END FROM (SELECT ${sql} AS k) z)`;
}

/**
 * A JSON array of one JSON value per row, in `order`: `rows` is the FROM and WHERE of the rows (a
 * table with its alias and the conditions), `value` the JSON of one row. An empty list is `[]`.
 * With `limit`, only the first rows in that order.
 */
export function jsonList({ value, rows, order, limit }: { value: string; rows: string; order: string; limit?: number }): string {
  if (limit === undefined) return `(SELECT coalesce(json_agg(${value} ORDER BY ${order}), '[]') FROM ${rows})`;
  return `(SELECT coalesce(json_agg(x.j ORDER BY x.n), '[]') FROM (SELECT ${value} AS j, row_number() OVER (ORDER BY ${order}) AS n FROM ${rows} ORDER BY ${order} LIMIT ${Math.trunc(limit)}) x)`;
}

/** The JSON value of the first row in `order` (null when there is none). */
export const jsonFirst = ({ value, rows, order }: { value: string; rows: string; order?: string }) =>
  `(SELECT ${value} FROM ${rows}${order ? ` ORDER BY ${order}` : ''} LIMIT 1)`;

/** One entry of a Prisma-form order (`{ field: 'asc' }` or `{ field: { sort, nulls } }`), the form the domain's orders are written in. */
type OrderEntry = Readonly<Record<string, 'asc' | 'desc' | { readonly sort: 'asc' | 'desc'; readonly nulls?: 'first' | 'last' } | undefined>>;

/** An ORDER BY list of the row at `row` from a Prisma-form order (the one definition Prisma reads too). */
export const orderBySql = (order: readonly OrderEntry[], row: string) =>
  order
    .flatMap((entry) => Object.entries(entry).flatMap(([field, spec]) => (spec ? [[field, spec] as const] : [])))
    .map(([field, spec]) => {
      const { sort, nulls } = typeof spec === 'string' ? { sort: spec, nulls: undefined } : spec;
      return `${row}.${quote(columnOf(field))} ${sort.toUpperCase()}${nulls ? ` NULLS ${nulls.toUpperCase()}` : ''}`;
    })
    .join(', ');
