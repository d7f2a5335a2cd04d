import { builder } from '../../graphql/builder.js';
import { assertAdmin, tenantOf } from '../../graphql/context.js';
import type { TenantRef } from '../shared/tenant-ref.js';
import { findTenantBySlug, listTenants } from './service.js';

const TenantType = builder.objectRef<TenantRef>('Tenant').implement({
  description: 'A customer of the service: one TMS feed.',
  fields: (t) => ({
    id: t.exposeID('slug', { description: 'Stable id for client caches: the tenant slug.' }),
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
