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

/** The connection query with its cursor restricted to the tenant (and checked to be an id). */
export function scopeCursor<Q extends { cursor?: { id?: string } }>(query: Q, tenantId: string): Q {
  if (!query.cursor) return query;
  if (!uuid.test(String(query.cursor.id))) throw invalidCursor();
  return { ...query, cursor: { ...query.cursor, tenantId } };
}

/** After an empty page: fails when the cursor names no record of the tenant. */
export async function assertCursorExists(query: { cursor?: { id?: string } }, exists: (id: string) => Promise<boolean>): Promise<void> {
  if (query.cursor?.id && !(await exists(query.cursor.id))) throw invalidCursor();
}

/**
 * Connection options with a described `totalCount` (the Prisma plugin's own field has no
 * description; fields given here replace it).
 */
export const connectionWithTotalCount = (name: string, description: string, of: string) => ({
  name,
  description,
  fields: ((t: { int: (options: object) => unknown }) => ({
    totalCount: t.int({
      description: `How many ${of} match, across all pages.`,
      nullable: false,
      extensions: { pothosPrismaTotalCount: true },
      resolve: (parent: { totalCount?: () => number | Promise<number> }) => parent.totalCount?.(),
    }),
  })) as never,
});
