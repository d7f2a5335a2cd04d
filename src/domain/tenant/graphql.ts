/**
 * The `Tenant` type, the admin-only tenant queries and the tenant administration mutations
 * (api-contract.md E, "Tenant administration over GraphQL"): thin adapters over service.ts, the same
 * functions the tenant CLI calls, so rules and messages are the same. Every mutation needs the admin
 * key, is written to the admin audit log and drops this instance's cached keys of the tenant, so a
 * revoked key or a new rate limit applies at once here (other instances: within the key cache's 30 s).
 */
import { auditAdminChange } from '../../graphql/admin-audit.js';
import { builder } from '../../graphql/builder.js';
import { assertAdmin, tenantOf, type RequestContext } from '../../graphql/context.js';
import { IngestSourceEnum } from '../../graphql/enums.js';
import type { TenantRef } from '../declaration/tenant-ref.js';
import {
  createTenant,
  describeTenant,
  findTenantBySlug,
  listTenants,
  revokeApiKeys,
  rotateApiKey,
  setRateLimit,
  setStaleInterval,
  type TenantSummary,
} from './service.js';

/** Summaries read for `Tenant` fields a bare TenantRef (the viewer) lacks, once per request and tenant. */
const summaries = new WeakMap<RequestContext, Map<string, Promise<TenantSummary>>>();
function summaryOf(tenant: TenantRef | TenantSummary, ctx: RequestContext): Promise<TenantSummary> | TenantSummary {
  if ('activeKeys' in tenant) return tenant;
  const known = summaries.get(ctx) ?? new Map<string, Promise<TenantSummary>>();
  summaries.set(ctx, known);
  const summary = known.get(tenant.id) ?? describeTenant(ctx.services.db, { id: tenant.id });
  known.set(tenant.id, summary);
  return summary;
}

const TenantRateLimitType = builder.objectRef<TenantSummary['rateLimit'] & {}>('TenantRateLimit').implement({
  description: "The tenant's ingestion rate limit as stored; null fields use the service defaults (RATE_LIMIT_RECORDS_PER_SECOND, RATE_LIMIT_BURST).",
  fields: (t) => ({
    recordsPerSecond: t.exposeInt('perSecond', { nullable: true, description: 'Records per second; 0 = no limit, null = the service default.' }),
    burst: t.exposeInt('burst', { nullable: true, description: 'Bucket size in records; null = the larger of RATE_LIMIT_BURST and the rate.' }),
  }),
});

const StaleIntervalsType = builder.objectRef<TenantSummary['staleSeconds']>('TenantStaleIntervals').implement({
  description: 'Seconds each ingest source may stay silent before its ingest health turns STALE.',
  fields: (t) => ({
    pull: t.exposeInt('pull', { description: 'Seconds for `Service-Ingest-Source: pull`.' }),
    webhook: t.exposeInt('webhook', { description: 'Seconds for `Service-Ingest-Source: webhook`.' }),
    unspecified: t.exposeInt('unspecified', { description: 'Seconds for requests without the header.' }),
  }),
});

const TenantType = builder.objectRef<TenantRef | TenantSummary>('Tenant').implement({
  description: 'A customer of the service: one TMS feed.',
  fields: (t) => ({
    id: t.exposeID('slug', { description: 'Stable id for client caches: the tenant slug.' }),
    slug: t.exposeString('slug', { description: 'The tenant slug (`company_permalink`), the suffix of every permalink.' }),
    name: t.exposeString('name', { description: 'Display name of the tenant.' }),
    tmsUrlTemplate: t.exposeString('tmsUrlTemplate', {
      nullable: true,
      description: '"View in TMS" URL template; `{key}` is replaced by a load\'s `native_system_load_unique_key` to build `Load.tmsUrl`.',
    }),
    createdAt: t.field({
      type: 'DateTime',
      description: 'When the tenant was created.',
      resolve: async (tenant, _args, ctx) => (await summaryOf(tenant, ctx)).createdAt,
    }),
    activeKeyCount: t.int({
      description: 'How many of its API keys are active (not revoked).',
      resolve: async (tenant, _args, ctx) => (await summaryOf(tenant, ctx)).activeKeys,
    }),
    rateLimit: t.field({
      type: TenantRateLimitType,
      description: 'The ingestion rate limit (`setTenantRateLimit`, `npm run tenant -- set-rate-limit`).',
      resolve: async (tenant, _args, ctx) => (await summaryOf(tenant, ctx)).rateLimit ?? { perSecond: null, burst: null },
    }),
    staleAfterSeconds: t.field({
      type: StaleIntervalsType,
      description: 'Expected interval per ingest source (`setTenantStaleInterval`, `npm run tenant -- set-stale-interval`).',
      resolve: async (tenant, _args, ctx) => (await summaryOf(tenant, ctx)).staleSeconds,
    }),
  }),
});

interface ApiKeyIssued {
  tenant: TenantRef;
  apiKey: string;
}

const ApiKeyIssuedType = builder.objectRef<ApiKeyIssued>('ApiKeyIssued').implement({
  description: 'A new API key, shown this once: only its hash is stored.',
  fields: (t) => ({
    tenant: t.field({ type: TenantType, description: 'The tenant the key belongs to.', resolve: (issued) => issued.tenant }),
    apiKey: t.exposeString('apiKey', { description: 'The key for `X-API-Key`. Store it now: it cannot be shown again.' }),
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

/** After an admin change of a tenant: the audit line, and this instance forgets the tenant's cached keys. */
function applied(ctx: RequestContext, action: string, slug: string, change: Record<string, unknown> = {}) {
  ctx.services.auth.forgetTenant(slug);
  auditAdminChange(ctx, action, { tenant: slug, ...change });
}

builder.mutationFields((t) => ({
  createTenant: t.field({
    type: ApiKeyIssuedType,
    description: 'Admin only: creates a tenant with its first API key (returned once), as `npm run tenant -- create` does.',
    args: {
      slug: t.arg.string({
        required: true,
        description: 'Lowercase letters, digits and inner hyphens (at most 100 characters); the suffix of its permalinks.',
      }),
      name: t.arg.string({ required: true, description: 'Display name (1 to 250 characters).' }),
      tmsUrlTemplate: t.arg.string({ description: '"View in TMS" URL template containing `{key}`.' }),
    },
    resolve: async (_root, args, ctx) => {
      assertAdmin(ctx);
      const issued = await createTenant(ctx.services.db, args);
      applied(ctx, 'createTenant', issued.tenant.slug, { name: issued.tenant.name });
      return issued;
    },
  }),
  rotateTenantKey: t.field({
    type: ApiKeyIssuedType,
    description: "Admin only: revokes the tenant's keys and issues a new one (returned once), as `npm run tenant -- rotate-key` does.",
    args: { slug: t.arg.string({ required: true, description: 'The tenant slug.' }) },
    resolve: async (_root, { slug }, ctx) => {
      assertAdmin(ctx);
      const issued = await rotateApiKey(ctx.services.db, slug, ctx.now);
      applied(ctx, 'rotateTenantKey', slug);
      return issued;
    },
  }),
  revokeTenantKeys: t.int({
    description: 'Admin only: revokes every key of the tenant and returns how many were active, as `npm run tenant -- revoke-key` does.',
    args: { slug: t.arg.string({ required: true, description: 'The tenant slug.' }) },
    resolve: async (_root, { slug }, ctx) => {
      assertAdmin(ctx);
      const revoked = await revokeApiKeys(ctx.services.db, slug, ctx.now);
      applied(ctx, 'revokeTenantKeys', slug, { revoked });
      return revoked;
    },
  }),
  setTenantRateLimit: t.field({
    type: TenantType,
    description: "Admin only: sets the tenant's ingestion rate limit, as `npm run tenant -- set-rate-limit` does.",
    args: {
      slug: t.arg.string({ required: true, description: 'The tenant slug.' }),
      recordsPerSecond: t.arg.int({ description: 'Records per second; 0 = no limit; null = the service default.' }),
      burst: t.arg.int({ description: 'Bucket size in records (only with a rate above 0); null = the larger of RATE_LIMIT_BURST and the rate.' }),
    },
    resolve: async (_root, { slug, recordsPerSecond, burst }, ctx) => {
      assertAdmin(ctx);
      const stored = await setRateLimit(ctx.services.db, slug, recordsPerSecond ?? null, burst ?? null);
      applied(ctx, 'setTenantRateLimit', slug, { recordsPerSecond: stored.perSecond, burst: stored.burst });
      return describeTenant(ctx.services.db, { slug });
    },
  }),
  setTenantStaleInterval: t.field({
    type: TenantType,
    description: 'Admin only: sets how long a source may stay silent before its ingest health turns STALE, as `npm run tenant -- set-stale-interval` does.',
    args: {
      slug: t.arg.string({ required: true, description: 'The tenant slug.' }),
      source: t.arg({ type: IngestSourceEnum, required: true, description: 'The ingest source.' }),
      seconds: t.arg.int({ description: 'Seconds (60 to 31,536,000); null = the default.' }),
    },
    resolve: async (_root, { slug, source, seconds }, ctx) => {
      assertAdmin(ctx);
      const inForce = await setStaleInterval(ctx.services.db, slug, source, seconds ?? null);
      applied(ctx, 'setTenantStaleInterval', slug, { source, seconds: inForce });
      return describeTenant(ctx.services.db, { slug });
    },
  }),
}));
