/**
 * The service's protective limits, behind one object the transports call at a few points:
 * - per-tenant ingestion token bucket counted in records (REST single and bulk routes, GraphQL
 *   mutations), and a per-tenant bucket for GraphQL queries; answers carry the IETF draft's
 *   `RateLimit-Policy` / `RateLimit` headers, refusals are 429 `rate_limited` with `Retry-After`;
 * - failed-key throttling per client address;
 * - overload shedding (503 `unavailable`).
 * Buckets live in memory, or in Redis with REDIS_URL (shared across instances, memory while Redis is down).
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import type { Clock } from '../clock.js';
import type { Config } from '../config.js';
import type { Database } from '../db/database.js';
import type { TenantRef } from '../domain/declaration/tenant-ref.js';
import { AppError } from '../errors.js';
import type { Logger } from '../logger.js';
import { createAuthFailureThrottle } from './auth-failures.js';
import { createOverloadDetector } from './overload.js';
import { createMemoryBucketStore, createRedisBucketStore, type BucketDecision, type BucketPolicy, type BucketStore } from './token-bucket.js';

export type LimitName = 'ingest' | 'queries';

/** The outcome of charging a request: headers for the answer, and the 429 to throw when refused. */
export interface Charge {
  allowed: boolean;
  headers: Record<string, string>;
  /** Set when refused: the contract's 429 with Retry-After and the RateLimit headers. */
  error?: AppError;
}

export interface LimitsOptions {
  config: Config;
  clock: Clock;
  logger: Logger;
  db: Database;
  registry: Registry;
  /** How a slowed 401 waits (tests record the delays instead of timing them). */
  sleep?: (ms: number) => Promise<void>;
}

const realSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** `RateLimit-Policy` and `RateLimit` (draft-ietf-httpapi-ratelimit-headers): quota, window, remaining, reset. */
function rateLimitHeaders(name: LimitName, policy: BucketPolicy, decision: BucketDecision): Record<string, string> {
  const window = Math.max(1, Math.ceil(policy.burst / policy.perSecond));
  return {
    'RateLimit-Policy': `"${name}";q=${policy.burst};w=${window}`,
    RateLimit: `"${name}";r=${decision.remaining};t=${decision.resetSeconds}`,
  };
}

export function createLimits({ config, clock, logger, db, registry, sleep = realSleep }: LimitsOptions) {
  const settings = config.limits;
  const memory = createMemoryBucketStore(clock);
  const redisUp = settings.redis
    ? new Gauge({
        name: 'rate_limit_redis_shared',
        help: '1 while rate limits are shared through Redis, 0 while limiting in memory per instance.',
        registers: [registry],
      })
    : null;
  redisUp?.set(0);
  const store: BucketStore = settings.redis
    ? createRedisBucketStore({ ...settings.redis, logger, fallback: memory, onSharedChange: (shared) => redisUp?.set(shared ? 1 : 0) })
    : memory;
  const throttle = createAuthFailureThrottle({ ...settings.authFailures, clock });
  const overload = createOverloadDetector({ lagMs: settings.overloadLagMs, dbWaiting: settings.overloadDbWaiting, db });

  const limited = new Counter({
    name: 'rate_limited_requests_total',
    help: 'Requests refused with 429 by a per-tenant limit (`ingest`: records, `queries`: GraphQL queries).',
    labelNames: ['limit', 'tenant'] as const,
    registers: [registry],
  });
  const authThrottled = new Counter({
    name: 'auth_failures_throttled_total',
    help: 'Failed authentications answered slowly (`delayed`) or with 429 (`refused`), per failed-key throttling.',
    labelNames: ['action'] as const,
    registers: [registry],
  });
  const shed = new Counter({
    name: 'requests_shed_total',
    help: 'Requests answered 503 at once because the service was overloaded, by reason.',
    labelNames: ['reason'] as const,
    registers: [registry],
  });
  const defaults = new Gauge({
    name: 'rate_limit_default',
    help: 'Default per-tenant limits: `rate` per second and `burst`, for `ingest` (records) and `queries` (GraphQL queries); rate 0 = no limit.',
    labelNames: ['limit', 'setting'] as const,
    registers: [registry],
  });
  defaults.set({ limit: 'ingest', setting: 'rate' }, settings.records.perSecond);
  defaults.set({ limit: 'ingest', setting: 'burst' }, settings.records.burst);
  defaults.set({ limit: 'queries', setting: 'rate' }, settings.queries.perSecond);
  defaults.set({ limit: 'queries', setting: 'burst' }, settings.queries.burst);

  /** The tenant's ingestion bucket, or null when unlimited (tenant or service rate 0). */
  function ingestPolicy(tenant: TenantRef): BucketPolicy | null {
    const perSecond = tenant.rateLimit?.perSecond ?? settings.records.perSecond;
    if (perSecond <= 0) return null;
    const burst = tenant.rateLimit?.burst ?? (tenant.rateLimit?.perSecond != null ? Math.max(settings.records.burst, perSecond) : settings.records.burst);
    return { perSecond, burst };
  }

  function queryPolicy(): BucketPolicy | null {
    return settings.queries.perSecond > 0 ? settings.queries : null;
  }

  async function charge(name: LimitName, key: string, tenantSlug: string, policy: BucketPolicy | null, cost: number): Promise<Charge> {
    if (!policy) return { allowed: true, headers: {} };
    const decision = await store.take(`${name}:${key}`, cost, policy);
    const headers = rateLimitHeaders(name, policy, decision);
    if (decision.allowed) return { allowed: true, headers };
    limited.inc({ limit: name, tenant: tenantSlug });
    const what = name === 'ingest' ? `${policy.perSecond} records/s, bursts of ${policy.burst}` : `${policy.perSecond} queries/s, bursts of ${policy.burst}`;
    const error = new AppError(
      'rate_limited',
      `The tenant's ${name === 'ingest' ? 'ingestion' : 'GraphQL query'} rate limit (${what}) is exceeded; retry after ${decision.retryAfterSeconds} s.`,
      undefined,
      {
        'Retry-After': String(decision.retryAfterSeconds),
        ...headers,
      },
    );
    return { allowed: false, headers, error };
  }

  return {
    /** Charges `records` records (1 for a single-record request) to the tenant's ingestion bucket. */
    chargeRecords(tenant: TenantRef, records: number): Promise<Charge> {
      return charge('ingest', tenant.id, tenant.slug, ingestPolicy(tenant), records);
    },
    /** Charges one GraphQL query operation; `key` is the tenant id (or `admin` for support engineers). */
    chargeQuery(key: string, tenantSlug: string): Promise<Charge> {
      return charge('queries', key, tenantSlug, queryPolicy(), 1);
    },

    /**
     * Runs an authentication; when it fails with 401, counts the failure against the client address
     * and answers it slowly, or with 429 while the address is blocked. Valid keys pass untouched.
     */
    async guardAuthentication<T>(address: string, authenticate: () => Promise<T>): Promise<T> {
      try {
        return await authenticate();
      } catch (error) {
        if (!(error instanceof AppError) || error.code !== 'unauthenticated') throw error;
        const verdict = throttle.fail(address);
        if (verdict.retryAfterSeconds > 0) {
          authThrottled.inc({ action: 'refused' });
          throw new AppError('rate_limited', `Too many failed API keys from this address; retry after ${verdict.retryAfterSeconds} s.`, undefined, {
            'Retry-After': String(verdict.retryAfterSeconds),
          });
        }
        if (verdict.delayMs > 0) {
          authThrottled.inc({ action: 'delayed' });
          await sleep(verdict.delayMs);
        }
        throw error;
      }
    },

    /**
     * Admits a new request, counted in flight until `answered`, or returns the 503 to answer at once
     * when the service is overloaded; a shed request is logged with the limit that shed it.
     */
    admit(request: { method: string; path: string }): AppError | null {
      const overloaded = overload.overload();
      if (!overloaded) {
        overload.received();
        return null;
      }
      shed.inc({ reason: overloaded.limit });
      logger.warn({ method: request.method, path: request.path, status: 503, ...overloaded }, 'request shed');
      const why = overloaded.limit === 'event_loop_lag' ? 'the service is overloaded' : 'the database is saturated';
      return new AppError('unavailable', `Temporarily unavailable: ${why}; retry shortly.`, undefined, { 'Retry-After': '1' });
    },

    /** An admitted request was answered. */
    answered() {
      overload.answered();
    },

    /** Whether limits are shared across instances right now (Redis in use). */
    get shared() {
      return store.shared;
    },

    async close() {
      overload.close();
      await store.close();
    },
  };
}

export type Limits = ReturnType<typeof createLimits>;
