/**
 * Read-side filters and orders for loads (GraphQL `loads`), each defined once in Prisma's form: Prisma
 * reads them as they are, the SQL load page (`page.ts`) compiles them (`db/json-tree.ts`).
 */
import type { Prisma } from '../../db/generated/prisma/client.js';
import type { Phase } from '../../db/generated/prisma/enums.js';
import { likeLiteral } from '../../db/like.js';
import { statusKey } from '../status-mapping/service.js';

export interface LoadFilter {
  phase?: Phase[] | null;
  status?: string | null;
  search?: string | null;
  changedSince?: Date | null;
  activitySince?: Date | null;
  carrier?: string | null;
  city?: string | null;
}

/** Orders of `loads`: newest created first (the default), or most recent activity first. */
export const loadOrders = ['CREATED_DESC', 'ACTIVITY_DESC'] as const;
export type LoadOrder = (typeof loadOrders)[number];

export function loadOrderBy(order: LoadOrder | null | undefined): Prisma.LoadOrderByWithRelationInput[] {
  return order === 'ACTIVITY_DESC' ? [{ activity: { lastActivityAt: 'desc' } }, { id: 'desc' }] : [{ createdAt: 'desc' }, { id: 'desc' }];
}

/**
 * The tenant's loads narrowed by the filter (every given part must match):
 * - `phase`: any of the listed phases;
 * - `status`: the TMS status, the same as the stored one by the status mapping's rule (`statusKey`:
 *   trimmed of spaces, lower-cased; an equality on the indexed `statusKey` column);
 * - `search`: a case-insensitive part of any reference number: the load's customer reference, BOL
 *   or PO number, a leg's reference or pickup reference number, or a stop's reference number;
 * - `changedSince`: changed (written by the service) at or after that instant, found through the activity;
 * - `activitySince`: the load or any of its legs, stops and updates written at or after that instant;
 * - `carrier`: a carrier permalink assigned to any of its legs;
 * - `city`: any of its stops' city, compared case-insensitively (equality on the lower-cased `cityKey`).
 * Texts match literally (`%`, `_` and `\` are no wildcards). Blank strings are ignored. Deleted records
 * (tombstones) never match: not the load, not its legs or stops.
 */
export function loadFilterWhere(tenantId: string, filter: LoadFilter | null | undefined): Prisma.LoadWhereInput {
  const and: Prisma.LoadWhereInput[] = [{ tenantId }, liveOnly];
  if (filter?.phase) and.push({ phase: { in: filter.phase } });
  const status = filter?.status ? statusKey(filter.status) : '';
  if (status) and.push({ statusKey: status });
  // Found through the activity index (a load's activity is never before its changedAt: every write moves
  // both), compared on changedAt; loads has no index on changedAt (migration `loads_updates_hot`).
  if (filter?.changedSince) and.push({ changedAt: { gte: filter.changedSince } }, { activity: { is: { lastActivityAt: { gte: filter.changedSince } } } });
  if (filter?.activitySince) and.push({ activity: { is: { lastActivityAt: { gte: filter.activitySince } } } });
  const carrier = filter?.carrier?.trim();
  if (carrier) and.push({ legs: { some: { ...liveOnly, carrier: { is: { tenantId, permalink: carrier, ...liveOnly } } } } });
  const city = filter?.city?.trim();
  if (city) and.push({ legs: { some: { ...liveOnly, stops: { some: { ...liveOnly, cityKey: city.toLowerCase() } } } } });
  const term = filter?.search?.trim();
  if (term) {
    const contains = { contains: likeLiteral(term), mode: 'insensitive' } as const;
    and.push({
      OR: [
        { customerReferenceNumber: contains },
        { bolNumber: contains },
        { poNumber: contains },
        {
          legs: {
            some: {
              ...liveOnly,
              OR: [{ referenceNumber: contains }, { pickupReferenceNumber: contains }, { stops: { some: { ...liveOnly, referenceNumber: contains } } }],
            },
          },
        },
      ],
    });
  }
  return and.length === 1 ? and[0]! : { AND: and };
}

/** Only live records: a tombstone (`deletedAt` set) is left out of every GraphQL read (api-contract.md E). */
export const liveOnly = { deletedAt: null };

/** `liveOnly` unless a by-permalink read asks for tombstones too (`includeDeleted: true`). */
export const liveUnless = (includeDeleted: boolean | null | undefined) => (includeDeleted ? {} : liveOnly);

/** Legs in load order: by sequence, legs without one last. */
export const legOrder = [{ sequence: { sort: 'asc', nulls: 'last' } }, { createdAt: 'asc' }] satisfies Prisma.LoadLegOrderByWithRelationInput[];

/** Stops in leg order: by sequence, stops without one last. */
export const stopOrder = [{ sequence: { sort: 'asc', nulls: 'last' } }, { createdAt: 'asc' }] satisfies Prisma.StopOrderByWithRelationInput[];

/** Load updates newest first (by `occurredAt`; updates without one last). */
export const updateOrder = [
  { occurredAt: { sort: 'desc', nulls: 'last' } },
  { createdAt: 'desc' },
  { id: 'desc' },
] satisfies Prisma.LoadUpdateOrderByWithRelationInput[];

/**
 * A load's "View in TMS" URL: the tenant's template with `{key}` replaced by the URL-encoded
 * `native_system_load_unique_key` of the load's first leg (in `legOrder`) that has a non-empty one;
 * null when the tenant has no template or no leg carries a key.
 */
export function tmsUrlOf(template: string | null, legs: readonly { loadUniqueKey: string | null }[]): string | null {
  const key = legs.find((leg) => leg.loadUniqueKey)?.loadUniqueKey;
  if (!template || !key) return null;
  return template.replaceAll('{key}', encodeURIComponent(key));
}
