/**
 * Keeps Relay cursors inside the caller's tenant. A cursor names a record id; Prisma positions a
 * page by reading that record, so the cursor lookup is made tenant-scoped too (a cursor of another
 * tenant names no record here), and a cursor that names no record of this tenant is an error
 * rather than a silently empty page.
 */
import { AppError } from '../errors.js';

/** The largest page of a Relay connection (`loads`, `carriers`): `first` or `last` above it is a validation_failed (graphql/page-sizes.ts). */
export const maxConnectionPage = 100;

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const invalidCursor = () =>
  new AppError('validation_failed', 'The cursor is not a position in this list.', [
    { field: 'after', issue: 'must be a cursor (pageInfo.endCursor or an edge cursor) this list returned' },
  ]);

/**
 * The cursor option of a record connection: the record's `id` alone, so a cursor never carries a
 * tenant (the caller's tenant is added by `scopeCursor`). Pothos's types ask for a unique key of the
 * model, which is `(tenantId, id)` (docs/decisions/0033-tenant-leading-keys.md); at run time it only
 * reads and writes the field named here.
 */
export const recordIdCursor = 'id' as 'tenantId_id';

/** The id a connection's parsed cursor names (Pothos parses `recordIdCursor` into `{ id }`). */
const cursorId = (query: { cursor?: object }) => (query.cursor as { id?: unknown } | undefined)?.id;

/** The connection query with its cursor made the record's key in the tenant (and checked to be an id). */
export function scopeCursor<Q extends { cursor?: object }>(query: Q, tenantId: string): Q & { cursor?: { id?: string } } {
  if (!query.cursor) return query;
  const id = cursorId(query);
  if (typeof id !== 'string' || !uuid.test(id)) throw invalidCursor();
  return { ...query, cursor: { ...query.cursor, id, tenantId_id: { tenantId, id } } };
}

/** After an empty page: fails when the cursor names no record of the tenant. */
export async function assertCursorExists(query: { cursor?: object }, exists: (id: string) => Promise<boolean>): Promise<void> {
  const id = cursorId(query);
  if (typeof id === 'string' && !(await exists(id))) throw invalidCursor();
}

/**
 * `totalCount` is exact up to this many records; when more match, it says this many and
 * `totalCountExact` is false. Counting every match of a broad filter costs as much as reading them
 * (a dashboard's city filter over 100,000 loads: 70 ms of database CPU per answer), so a count stops
 * one record past the limit (docs/decisions/0022-bounded-total-count.md).
 */
export const countLimit = 1000;

/**
 * A connection's `totalCount` option from a count that stops after `limit` records: counted once per
 * connection field (`totalCount` and `totalCountExact` share it).
 */
export function boundedTotalCount<A extends object, C>(count: (args: A, ctx: C, limit: number) => Promise<number>) {
  const counted = new WeakMap<A, Promise<number>>();
  return (_parent: unknown, args: A, ctx: C): Promise<number> => {
    let n = counted.get(args);
    if (!n) counted.set(args, (n = count(args, ctx, countLimit + 1)));
    return n;
  };
}

type Counted = { totalCount?: () => Promise<number> };

/**
 * Connection options with `totalCount` (bounded: `countLimit`) and `totalCountExact`, described (the
 * Prisma plugin's own field has no description; fields given here replace it).
 */
export const connectionWithTotalCount = (name: string, description: string, of: string) => ({
  name,
  description,
  fields: ((t: { int: (options: object) => unknown; boolean: (options: object) => unknown }) => ({
    totalCount: t.int({
      description: `How many ${of} match, across all pages: exact up to ${countLimit.toLocaleString('en-US')}; when more match, ${countLimit.toLocaleString('en-US')} (then \`totalCountExact\` is false).`,
      nullable: false,
      extensions: { pothosPrismaTotalCount: true },
      resolve: async (parent: Counted) => Math.min((await parent.totalCount?.()) ?? 0, countLimit),
    }),
    totalCountExact: t.boolean({
      description: `False when more than ${countLimit.toLocaleString('en-US')} ${of} match and \`totalCount\` is that bound rather than their number.`,
      nullable: false,
      resolve: async (parent: Counted) => ((await parent.totalCount?.()) ?? 0) <= countLimit,
    }),
  })) as never,
});
