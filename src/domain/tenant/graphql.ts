import { builder } from '../../graphql/builder.js';
import type { TenantRef } from '../shared/tenant-ref.js';
import { AppError } from '../../errors.js';
import type { RequestContext } from '../../graphql/context.js';
import { findTenantBySlug, listTenants } from './service.js';

/** The tenant a GraphQL request reads: the key's tenant, or for support engineers the X-Tenant one. */
export function tenantOf(ctx: RequestContext): TenantRef {
  if (ctx.actor.tenant) return ctx.actor.tenant;
  throw new AppError('validation_failed', 'Admin requests name the tenant in the X-Tenant header.', [
    { field: 'X-Tenant', issue: 'is required for tenant data' },
  ]);
}

/** A request its key may not make (support engineers writing, tenants listing tenants). */
const forbidden = (message: string) => new AppError('forbidden', message);

/** The tenant a mutation writes to: only a tenant's own key writes; the support engineers' key reads. */
export function writableTenantOf(ctx: RequestContext): TenantRef {
  if (ctx.actor.kind === 'admin') throw forbidden('The admin key gives read-only access; writes need the tenant\'s own API key.');
  return ctx.actor.tenant;
}

function assertAdmin(ctx: RequestContext) {
  if (ctx.actor.kind !== 'admin') throw forbidden('Only the admin key (ADMIN_API_KEY) may list tenants.');
}

export const TenantType = builder.objectRef<TenantRef>('Tenant').implement({
  description: 'A customer of the service: one TMS feed.',
  fields: (t) => ({
    slug: t.exposeString('slug', { description: 'The tenant slug (`company_permalink`), the suffix of every permalink.' }),
    name: t.exposeString('name', { description: 'Display name of the tenant.' }),
    tmsUrlTemplate: t.exposeString('tmsUrlTemplate', {
      nullable: true,
      description: '"View in TMS" URL template; `{key}` is replaced by a load\'s `native_system_load_unique_key` to build `Load.tmsUrl`.',
    }),
  }),
});

builder.queryFields((t) => ({
  viewer: t.field({
    type: TenantType,
    description: "The tenant this request reads: the API key's tenant (or X-Tenant for support engineers).",
    resolve: (_root, _args, ctx) => tenantOf(ctx),
  }),
  tenants: t.field({
    type: [TenantType],
    description: 'Admin only (ADMIN_API_KEY): every tenant, by slug.',
    resolve: async (_root, _args, ctx) => {
      assertAdmin(ctx);
      return listTenants(ctx.services.db);
    },
  }),
  tenant: t.field({
    type: TenantType,
    nullable: true,
    description: 'Admin only (ADMIN_API_KEY): the tenant with this slug, or null.',
    args: { slug: t.arg.string({ required: true, description: 'The tenant slug.' }) },
    resolve: async (_root, { slug }, ctx) => {
      assertAdmin(ctx);
      return findTenantBySlug(ctx.services.db, slug);
    },
  }),
}));
