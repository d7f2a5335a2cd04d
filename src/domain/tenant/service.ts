/**
 * Tenants and their API keys (api-contract.md D). A key is 32 random bytes, shown once; only its
 * SHA-256 hash is stored, so a database leak does not leak keys. Also each tenant's expected interval
 * per ingest source, after which its ingest health turns STALE.
 */
import { createHash, randomBytes } from 'node:crypto';
import { AppError } from '../../errors.js';
import type { Database } from '../../db/database.js';
import type { IngestSourceName } from '../ingest-health/report.js';
import type { TenantRef } from '../declaration/tenant-ref.js';

/** Slugs are the suffix of every permalink: lowercase letters, digits and inner hyphens. */
export const slugPattern = /^[a-z0-9](?:[a-z0-9-]{0,98}[a-z0-9])?$/;

const hashApiKey = (apiKey: string) => createHash('sha256').update(apiKey).digest('hex');

function newApiKey() {
  const apiKey = `tms_${randomBytes(32).toString('base64url')}`;
  return { apiKey, hash: hashApiKey(apiKey), prefix: apiKey.slice(0, 12) };
}

const tenantRef = (t: {
  id: string;
  slug: string;
  name: string;
  tmsUrlTemplate: string | null;
  rateLimitPerSecond: number | null;
  rateLimitBurst: number | null;
}): TenantRef => ({
  id: t.id,
  slug: t.slug,
  name: t.name,
  tmsUrlTemplate: t.tmsUrlTemplate,
  rateLimit: { perSecond: t.rateLimitPerSecond, burst: t.rateLimitBurst },
});

/** A tenant with this slug exists already (the unique constraint on `tenants.slug` decides). */
export class DuplicateTenantError extends AppError {
  constructor(slug: string) {
    super('validation_failed', `Tenant "${slug}" already exists.`, [{ field: 'slug', issue: 'is taken' }]);
  }
}

/** Prisma's unique-constraint violation. */
const isUniqueViolation = (error: unknown) => (error as { code?: unknown } | null)?.code === 'P2002';

export interface CreateTenantInput {
  slug: string;
  name: string;
  tmsUrlTemplate?: string | null;
}

/** Creates a tenant with its first API key; the key is returned once and never stored. */
export async function createTenant(db: Database, input: CreateTenantInput): Promise<{ tenant: TenantRef; apiKey: string }> {
  if (!slugPattern.test(input.slug)) {
    throw new AppError('validation_failed', `Invalid slug "${input.slug}": use lowercase letters, digits and inner hyphens.`, [
      { field: 'slug', issue: 'must match ^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$ (at most 100 characters)' },
    ]);
  }
  if (input.tmsUrlTemplate != null && !input.tmsUrlTemplate.includes('{key}')) {
    throw new AppError('validation_failed', 'The TMS URL template must contain {key}.', [{ field: 'tmsUrlTemplate', issue: 'must contain {key}' }]);
  }
  if (!input.name.trim() || input.name.length > 250) {
    throw new AppError('validation_failed', 'A tenant name must have 1 to 250 characters.', [{ field: 'name', issue: 'must have 1 to 250 characters' }]);
  }
  const key = newApiKey();
  const tenant = await db.prisma.tenant
    .create({
      data: {
        slug: input.slug,
        name: input.name.trim(),
        tmsUrlTemplate: input.tmsUrlTemplate ?? null,
        apiKeys: { create: { hash: key.hash, prefix: key.prefix } },
      },
    })
    .catch((error: unknown) => {
      throw isUniqueViolation(error) ? new DuplicateTenantError(input.slug) : error;
    });
  return { tenant: tenantRef(tenant), apiKey: key.apiKey };
}

async function requireTenant(db: Database, slug: string) {
  const tenant = await db.prisma.tenant.findUnique({ where: { slug } });
  if (!tenant) throw new AppError('not_found', `No tenant "${slug}".`);
  return tenant;
}

/** Revokes every active key of the tenant and issues a new one (returned once). */
export async function rotateApiKey(db: Database, slug: string, now = new Date()): Promise<{ tenant: TenantRef; apiKey: string }> {
  const tenant = await requireTenant(db, slug);
  const key = newApiKey();
  await db.prisma.$transaction([
    db.prisma.apiKey.updateMany({ where: { tenantId: tenant.id, revokedAt: null }, data: { revokedAt: now } }),
    db.prisma.apiKey.create({ data: { tenantId: tenant.id, hash: key.hash, prefix: key.prefix } }),
  ]);
  return { tenant: tenantRef(tenant), apiKey: key.apiKey };
}

/** Revokes every active key of the tenant; returns how many were revoked. */
export async function revokeApiKeys(db: Database, slug: string, now = new Date()): Promise<number> {
  const tenant = await requireTenant(db, slug);
  const { count } = await db.prisma.apiKey.updateMany({ where: { tenantId: tenant.id, revokedAt: null }, data: { revokedAt: now } });
  return count;
}

/** The tenant an active API key belongs to, or null. */
export async function findTenantByApiKey(db: Database, apiKey: string): Promise<TenantRef | null> {
  const key = await db.prisma.apiKey.findUnique({
    where: { hash: hashApiKey(apiKey) },
    select: { revokedAt: true, tenant: true },
  });
  return key && !key.revokedAt ? tenantRef(key.tenant) : null;
}

export async function findTenantBySlug(db: Database, slug: string): Promise<TenantRef | null> {
  const tenant = await db.prisma.tenant.findUnique({ where: { slug } });
  return tenant ? tenantRef(tenant) : null;
}

/** A tenant as `tenant list` and the admin GraphQL fields show it: with its active key count and stale intervals. */
export interface TenantSummary extends TenantRef {
  createdAt: Date;
  activeKeys: number;
  staleSeconds: Record<IngestSourceName, number>;
}

/** Tenants matching `where` (every tenant by default), by slug, as summaries. */
async function findTenantSummaries(db: Database, where: { slug?: string; id?: string } = {}): Promise<TenantSummary[]> {
  const tenants = await db.prisma.tenant.findMany({
    where,
    orderBy: { slug: 'asc' },
    include: { _count: { select: { apiKeys: { where: { revokedAt: null } } } } },
  });
  return tenants.map((t) => ({
    ...tenantRef(t),
    createdAt: t.createdAt,
    activeKeys: t._count.apiKeys,
    staleSeconds: { pull: t.pullStaleSeconds, webhook: t.webhookStaleSeconds, unspecified: t.unspecifiedStaleSeconds },
  }));
}

/** Every tenant with its count of active keys and stale intervals, for `tenant list` and the admin `tenants` query. */
export async function listTenants(db: Database): Promise<TenantSummary[]> {
  return findTenantSummaries(db);
}

/** One tenant's summary, by slug or id; `not_found` when there is none. */
export async function describeTenant(db: Database, where: { slug: string } | { id: string }): Promise<TenantSummary> {
  const [tenant] = await findTenantSummaries(db, where);
  if (!tenant) throw new AppError('not_found', `No tenant "${'slug' in where ? where.slug : where.id}".`);
  return tenant;
}

/** The `tenants` column holding each source's expected interval (schema.prisma). */
const staleColumns = {
  pull: 'pull_stale_seconds',
  webhook: 'webhook_stale_seconds',
  unspecified: 'unspecified_stale_seconds',
} as const satisfies Record<IngestSourceName, string>;

/** Bounds of an expected interval: a minute to a year. */
export const staleSecondsRange = { min: 60, max: 31_536_000 } as const;

/**
 * Sets how long a source of the tenant may stay silent before its ingest health turns STALE;
 * `null` restores the column's default. Returns the interval now in force.
 */
export async function setStaleInterval(db: Database, slug: string, source: IngestSourceName, seconds: number | null): Promise<number> {
  const column = staleColumns[source];
  if (!column) {
    throw new AppError('validation_failed', `Unknown ingest source "${source}".`, [{ field: 'source', issue: 'must be pull, webhook or unspecified' }]);
  }
  if (seconds !== null && !(Number.isInteger(seconds) && seconds >= staleSecondsRange.min && seconds <= staleSecondsRange.max)) {
    throw new AppError('validation_failed', `The interval must be a whole number of seconds from ${staleSecondsRange.min} to ${staleSecondsRange.max}.`, [
      { field: 'seconds', issue: `must be an integer from ${staleSecondsRange.min} to ${staleSecondsRange.max}` },
    ]);
  }
  // DEFAULT keeps the schema the one place the default interval is written down.
  const [row] =
    seconds === null
      ? await db.sql.query<{ seconds: number }>(`UPDATE tenants SET ${column} = DEFAULT WHERE slug = $1 RETURNING ${column} AS seconds`, [slug])
      : await db.sql.query<{ seconds: number }>(`UPDATE tenants SET ${column} = $2 WHERE slug = $1 RETURNING ${column} AS seconds`, [slug, seconds]);
  if (!row) throw new AppError('not_found', `No tenant "${slug}".`);
  return row.seconds;
}

/** Bounds of a tenant's rate limit: records per second (0 = no limit) and bucket size. */
export const rateLimitRange = { perSecond: { min: 0, max: 1_000_000 }, burst: { min: 1, max: 10_000_000 } } as const;

/**
 * Sets the tenant's ingestion rate limit: records per second (0 = no limit) and optionally the
 * bucket size, or `null` for the service defaults (RATE_LIMIT_RECORDS_PER_SECOND, RATE_LIMIT_BURST).
 * Returns what is stored. Running servers pick it up with the tenant's next key lookup (≤ 30 s; at once on
 * the instance that served the `setTenantRateLimit` mutation).
 */
export async function setRateLimit(db: Database, slug: string, perSecond: number | null, burst: number | null = null) {
  const { perSecond: rate, burst: size } = rateLimitRange;
  const inRange = (v: number | null, r: { min: number; max: number }) => v === null || (Number.isInteger(v) && v >= r.min && v <= r.max);
  if (!inRange(perSecond, rate) || !inRange(burst, size)) {
    throw new AppError('validation_failed', `The rate must be ${rate.min}–${rate.max} records per second and the burst ${size.min}–${size.max} records.`, [
      { field: 'rate', issue: `records per second from ${rate.min} to ${rate.max} (0 = no limit)` },
    ]);
  }
  if (burst !== null && !perSecond) {
    throw new AppError('validation_failed', `A burst goes with a number of records per second, not ${perSecond === null ? 'the default' : 'no limit (0)'}.`, [
      { field: 'burst', issue: 'is only allowed with a rate above 0' },
    ]);
  }
  const [row] = await db.sql.query<{ per_second: number | null; burst: number | null }>(
    'UPDATE tenants SET rate_limit_per_second = $2, rate_limit_burst = $3 WHERE slug = $1 RETURNING rate_limit_per_second AS per_second, rate_limit_burst AS burst',
    [slug, perSecond, burst],
  );
  if (!row) throw new AppError('not_found', `No tenant "${slug}".`);
  return { perSecond: row.per_second, burst: row.burst };
}

export async function countTenants(db: Database): Promise<number> {
  return db.prisma.tenant.count();
}
