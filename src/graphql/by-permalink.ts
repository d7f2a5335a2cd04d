/**
 * The shape every by-permalink root field (`carrier`, `load`, `loadLeg`, `stop`) shares: its arguments,
 * its description and its tenant-scoped `where`, which leaves tombstones out unless `includeDeleted`.
 */
import { liveUnless } from '../domain/load/queries.js';
import { builder } from './builder.js';
import { tenantOf, type RequestContext } from './context.js';

/** `permalink` (the contract's permalink field `permalinkField`) and `includeDeleted`. */
export const byPermalinkArgs = (permalinkField: string) =>
  builder.args((t) => ({
    permalink: t.string({ required: true, description: `\`${permalinkField}\`.` }),
    includeDeleted: t.boolean({ defaultValue: false, description: 'Also return the record when it is deleted (its tombstone, with `deletedAt`).' }),
  }));

export const byPermalinkDescription = (kind: string) =>
  `The ${kind} with this permalink in the caller's tenant, or null (also when it is deleted, unless \`includeDeleted\`).`;

/** The record's unique key in the caller's tenant, live only unless `includeDeleted`. */
export const byPermalinkWhere = (ctx: RequestContext, { permalink, includeDeleted }: { permalink: string; includeDeleted?: boolean | null }) => ({
  tenantId_permalink: { tenantId: tenantOf(ctx).id, permalink },
  ...liveUnless(includeDeleted),
});
