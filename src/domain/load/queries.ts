/** Read-side filters for loads (GraphQL `loads`). */
import type { Prisma } from '../../db/generated/prisma/client.js';
import type { Phase } from '../../db/generated/prisma/enums.js';

export interface LoadFilter {
  phase?: Phase[] | null;
  status?: string | null;
  search?: string | null;
  changedSince?: Date | null;
}

/**
 * The tenant's loads narrowed by the filter (every given part must match):
 * - `phase`: any of the listed phases;
 * - `status`: the TMS status, compared trimmed and case-insensitively (as the status mapping does);
 * - `search`: a case-insensitive part of any reference number: the load's customer reference, BOL
 *   or PO number, a leg's reference or pickup reference number, or a stop's reference number;
 * - `changedSince`: changed (written by the service) at or after that instant.
 * Blank strings are ignored.
 */
export function loadFilterWhere(tenantId: string, filter: LoadFilter | null | undefined): Prisma.LoadWhereInput {
  const and: Prisma.LoadWhereInput[] = [{ tenantId }];
  if (filter?.phase) and.push({ phase: { in: filter.phase } });
  const status = filter?.status?.trim();
  if (status) and.push({ status: { equals: status, mode: 'insensitive' } });
  if (filter?.changedSince) and.push({ changedAt: { gte: filter.changedSince } });
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
