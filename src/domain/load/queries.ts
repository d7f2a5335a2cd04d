/** Read-side filters for loads (GraphQL `loads`). */
import type { Prisma } from '../../db/generated/prisma/client.js';
import type { Phase } from '../../db/generated/prisma/enums.js';

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
  return order === 'ACTIVITY_DESC' ? [{ lastActivityAt: 'desc' }, { id: 'desc' }] : [{ createdAt: 'desc' }, { id: 'desc' }];
}

/**
 * The tenant's loads narrowed by the filter (every given part must match):
 * - `phase`: any of the listed phases;
 * - `status`: the TMS status, compared trimmed and case-insensitively (as the status mapping does);
 * - `search`: a case-insensitive part of any reference number: the load's customer reference, BOL
 *   or PO number, a leg's reference or pickup reference number, or a stop's reference number;
 * - `changedSince`: changed (written by the service) at or after that instant;
 * - `activitySince`: the load or any of its legs, stops and updates written at or after that instant;
 * - `carrier`: a carrier permalink assigned to any of its legs;
 * - `city`: any of its stops' city, compared case-insensitively (equality on the lower-cased `cityKey`).
 * Blank strings are ignored.
 */
export function loadFilterWhere(tenantId: string, filter: LoadFilter | null | undefined): Prisma.LoadWhereInput {
  const and: Prisma.LoadWhereInput[] = [{ tenantId }];
  if (filter?.phase) and.push({ phase: { in: filter.phase } });
  const status = filter?.status?.trim();
  if (status) and.push({ status: { equals: status, mode: 'insensitive' } });
  if (filter?.changedSince) and.push({ changedAt: { gte: filter.changedSince } });
  if (filter?.activitySince) and.push({ lastActivityAt: { gte: filter.activitySince } });
  const carrier = filter?.carrier?.trim();
  if (carrier) and.push({ legs: { some: { carrier: { is: { tenantId, permalink: carrier } } } } });
  const city = filter?.city?.trim();
  if (city) and.push({ legs: { some: { stops: { some: { cityKey: city.toLowerCase() } } } } });
  const term = filter?.search?.trim();
  if (term) {
    const contains = { contains: term, mode: 'insensitive' } as const;
    and.push({
      OR: [
        { customerReferenceNumber: contains },
        { bolNumber: contains },
        { poNumber: contains },
        {
          legs: {
            some: {
              OR: [{ referenceNumber: contains }, { pickupReferenceNumber: contains }, { stops: { some: { referenceNumber: contains } } }],
            },
          },
        },
      ],
    });
  }
  return and.length === 1 ? and[0]! : { AND: and };
}

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

/**
 * `loadFilterWhere` as SQL conditions on `loads l` (the hand-written load page, `page.ts`), with the
 * same matching as Prisma's for that filter: `status` compares with `ILIKE`, `city` lower-cased with
 * the stops' indexed `city_key`, `search` with `ILIKE '%' || term || '%'`. `param` adds a parameter
 * and returns its placeholder; `tenant` is the tenant's placeholder, which every subquery filters on too.
 */
export function loadFilterSql(filter: LoadFilter | null | undefined, tenant: string, param: (value: unknown) => string): string[] {
  const and: string[] = [];
  if (filter?.phase) and.push(filter.phase.length ? `l.phase::text IN (${filter.phase.map((phase) => param(phase)).join(', ')})` : 'false');
  const status = filter?.status?.trim();
  if (status) and.push(`l.status ILIKE ${param(status)}`);
  if (filter?.changedSince) and.push(`l.changed_at >= ${param(filter.changedSince.toISOString())}::timestamptz`);
  if (filter?.activitySince) and.push(`l.last_activity_at >= ${param(filter.activitySince.toISOString())}::timestamptz`);
  const carrier = filter?.carrier?.trim();
  if (carrier) {
    and.push(
      `EXISTS (SELECT 1 FROM load_legs g JOIN carriers c ON c.id = g.carrier_id WHERE g.load_id = l.id AND g.tenant_id = ${tenant} AND c.tenant_id = ${tenant} AND c.permalink = ${param(carrier)})`,
    );
  }
  const city = filter?.city?.trim();
  if (city) {
    and.push(
      `EXISTS (SELECT 1 FROM load_legs g JOIN stops s ON s.leg_id = g.id WHERE g.load_id = l.id AND g.tenant_id = ${tenant} AND s.tenant_id = ${tenant} AND s.city_key = lower(${param(city)}))`,
    );
  }
  const term = filter?.search?.trim();
  if (term) {
    const like = `ILIKE ('%' || ${param(term)} || '%')`;
    and.push(
      `(l.customer_reference_number ${like} OR l.bol_number ${like} OR l.po_number ${like} OR EXISTS (SELECT 1 FROM load_legs g WHERE g.load_id = l.id AND g.tenant_id = ${tenant}` +
        ` AND (g.reference_number ${like} OR g.pickup_reference_number ${like} OR EXISTS (SELECT 1 FROM stops s WHERE s.leg_id = g.id AND s.tenant_id = ${tenant} AND s.reference_number ${like}))))`,
    );
  }
  return and;
}
