import type { Actor, RequestScope } from '../context.js';
import type { TenantRef } from '../domain/declaration/tenant-ref.js';
import { AppError } from '../errors.js';

/** GraphQL's context: the shared request scope plus the authenticated actor. */
export interface RequestContext extends RequestScope {
  actor: Actor;
  now: Date;
  /** The HTTP request (mutations read `Service-Ingest-Source` from it, as REST does). */
  request: Request;
}

/** The tenant a GraphQL request reads: the key's tenant, or for support engineers the X-Tenant one. */
export function tenantOf(ctx: RequestContext): TenantRef {
  if (ctx.actor.tenant) return ctx.actor.tenant;
  throw new AppError('validation_failed', 'Admin requests name the tenant in the X-Tenant header.', [
    { field: 'X-Tenant', issue: 'is required for tenant data' },
  ]);
}

/**
 * The condition on the tenant that a list relation's rows of a GraphQL read add (`t.relation(…, { query })`):
 * Prisma joins a relation on the parent's key columns (`t1.tenant_id = t0.tenant_id`), which a Citus
 * coordinator cannot route to one shard inside a `LATERAL` subquery (32 tasks, one per shard); the tenant
 * named as a constant makes the read one shard's (docs/explanation/scaling.md). The rows are the same.
 */
export const ofTenant = (ctx: RequestContext) => ({ tenantId: tenantOf(ctx).id });

/** A request its key may not make (support engineers writing, tenants listing tenants). */
const forbidden = (message: string) => new AppError('forbidden', message);

/** The tenant a mutation writes to: only a tenant's own key writes; the support engineers' key reads. */
export function writableTenantOf(ctx: RequestContext): TenantRef {
  if (ctx.actor.kind === 'admin') throw forbidden("The admin key gives read-only access; writes need the tenant's own API key.");
  return ctx.actor.tenant;
}

/** Only the support engineers' key (ADMIN_API_KEY) passes: listing and administering tenants. */
export function assertAdmin(ctx: RequestContext) {
  if (ctx.actor.kind !== 'admin') throw forbidden('Only the admin key (ADMIN_API_KEY) may list or administer tenants.');
}
