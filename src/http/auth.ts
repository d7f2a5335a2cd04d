/**
 * API-key authentication with a short-lived cache: the hot path hashes a key and queries the
 * database only once per TTL (revocations made elsewhere take effect within the TTL, 30 s by default;
 * changes made through this instance's admin mutations call `forgetTenant` and apply at once).
 */
import { timingSafeEqual } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { AppError } from '../errors.js';
import type { Actor, Authenticator } from '../context.js';
import type { Database } from '../db/database.js';
import { findTenantByApiKey, findTenantBySlug } from '../domain/tenant/service.js';
import type { TenantRef } from '../domain/declaration/tenant-ref.js';
import type { Clock } from '../clock.js';

export interface AuthOptions {
  ttlMs?: number;
  /** Support engineers' key (ADMIN_API_KEY); GraphQL only. */
  adminApiKey?: string | null;
  maxEntries?: number;
}

const unauthenticated = (message: string) => new AppError('unauthenticated', message);

export function createAuthenticator(db: Database, clock: Clock, options: AuthOptions = {}): Authenticator {
  const ttlMs = options.ttlMs ?? 30_000;
  const maxEntries = options.maxEntries ?? 10_000;
  // Unknown keys are cached too (briefly), so a flood of bad keys does not reach the database.
  const cache = new LRUCache<string, { tenant: TenantRef | null }>({
    max: maxEntries,
    ttl: ttlMs,
    ttlAutopurge: false,
    // Age is read from our clock on every lookup: lru-cache's default 1 ms debounce of `now` (reset by a
    // timer) would keep an old time while a request runs without yielding to timers.
    ttlResolution: 0,
    perf: { now: () => clock.now().getTime() },
  });
  const admin = options.adminApiKey ? Buffer.from(options.adminApiKey) : null;

  async function lookup(apiKey: string): Promise<TenantRef | null> {
    const hit = cache.get(apiKey);
    if (hit) return hit.tenant;
    const tenant = await findTenantByApiKey(db, apiKey);
    if (ttlMs > 0) cache.set(apiKey, { tenant }, { ttl: tenant ? ttlMs : Math.min(ttlMs, 5_000) });
    return tenant;
  }

  const isAdminKey = (apiKey: string) => {
    if (!admin) return false;
    const given = Buffer.from(apiKey);
    return given.length === admin.length && timingSafeEqual(given, admin);
  };

  return {
    forgetTenant(slug: string) {
      for (const [apiKey, entry] of cache.entries()) if (entry.tenant?.slug === slug) cache.delete(apiKey);
    },

    /** The tenant of a tenant API key (REST ingestion never accepts the admin key). */
    async authenticateTenant(apiKey: string | null): Promise<TenantRef> {
      if (!apiKey) throw unauthenticated('The X-API-Key header is missing.');
      const tenant = await lookup(apiKey);
      if (!tenant) throw unauthenticated('The API key is unknown or revoked.');
      return tenant;
    },

    /** A tenant, or the admin with the tenant named by `X-Tenant` (GraphQL). */
    async authenticate(apiKey: string | null, tenantSlug: string | null): Promise<Actor> {
      if (apiKey && isAdminKey(apiKey)) {
        if (!tenantSlug) return { kind: 'admin', tenant: null };
        const tenant = await findTenantBySlug(db, tenantSlug);
        if (!tenant) throw new AppError('not_found', `No tenant "${tenantSlug}" (X-Tenant).`);
        return { kind: 'admin', tenant };
      }
      return { kind: 'tenant', tenant: await this.authenticateTenant(apiKey) };
    },
  };
}
