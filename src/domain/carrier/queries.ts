/** Read-side filters for carriers (GraphQL `carriers`). */
import type { Prisma } from '../../db/generated/prisma/client.js';

/**
 * The tenant's carriers, narrowed by `search`: a case-insensitive substring of the name, MC number,
 * DOT number or SCAC. A blank search matches every carrier.
 */
export function carrierSearchWhere(tenantId: string, search?: string | null): Prisma.CarrierWhereInput {
  const term = search?.trim();
  if (!term) return { tenantId };
  const contains = { contains: term, mode: 'insensitive' } as const;
  return { tenantId, OR: [{ name: contains }, { mcNumber: contains }, { dotNumber: contains }, { scac: contains }] };
}
