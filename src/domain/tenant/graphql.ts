import { builder } from '../../graphql/builder.js';
import type { TenantRef } from '../shared/tenant-ref.js';
import { AppError } from '../../errors.js';
import type { RequestContext } from '../../graphql/context.js';

/** The tenant a GraphQL request reads: the key's tenant, or for support engineers the X-Tenant one. */
export function tenantOf(ctx: RequestContext): TenantRef {
  if (ctx.actor.tenant) return ctx.actor.tenant;
  throw new AppError('validation_failed', 'Admin requests name the tenant in the X-Tenant header.', [
    { field: 'X-Tenant', issue: 'is required for tenant data' },
  ]);
}

export const TenantType = builder.objectRef<TenantRef>('Tenant').implement({
  description: 'A customer of the service: one TMS feed.',
  fields: (t) => ({
    slug: t.exposeString('slug', { description: 'The tenant slug (`company_permalink`), the suffix of every permalink.' }),
    name: t.exposeString('name'),
  }),
});

builder.queryField('viewer', (t) =>
  t.field({
    type: TenantType,
    description: "The tenant this request reads: the API key's tenant (or X-Tenant for support engineers).",
    resolve: (_root, _args, ctx) => tenantOf(ctx),
  }),
);
