/** Read-side filters for carriers (GraphQL `carriers`). */
import type { Prisma } from '../../db/generated/prisma/client.js';
import { likeLiteral } from '../../db/like.js';

/**
 * The tenant's carriers, narrowed by `search`: a case-insensitive substring of the name, MC number,
 * DOT number or SCAC, matched literally (`%`, `_` and `\` are no wildcards). A blank search matches
 * every carrier. Deleted carriers are left out.
 */
export function carrierSearchWhere(tenantId: string, search?: string | null): Prisma.CarrierWhereInput {
  const term = search?.trim();
  if (!term) return { tenantId, deletedAt: null };
  const contains = { contains: likeLiteral(term), mode: 'insensitive' } as const;
  return { tenantId, deletedAt: null, OR: [{ name: contains }, { mcNumber: contains }, { dotNumber: contains }, { scac: contains }] };
}
