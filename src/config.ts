import { z } from 'zod';

const blankAsUnset = (v: unknown) => (v === '' ? undefined : v);
const optional = <T extends z.ZodType>(schema: T) => z.preprocess(blankAsUnset, schema.optional());
const withDefault = <T extends z.ZodType>(schema: T, value: z.input<T>) => z.preprocess(blankAsUnset, schema.default(value as never));

const Env = z.object({
  NODE_ENV: withDefault(z.enum(['development', 'test', 'production']), 'development'),
  PORT: withDefault(z.coerce.number().int().min(0).max(65535), 4000),
  HOST: withDefault(z.string(), '0.0.0.0'),
  DATABASE_URL: optional(z.string().regex(/^postgres(ql)?:\/\//, 'must be a postgres:// or postgresql:// URL')),
  DATA_DIR: withDefault(z.string(), './data'),
  DATABASE_POOL_SIZE: withDefault(z.coerce.number().int().min(1).max(200), 10),
  ADMIN_API_KEY: optional(z.string().min(32, 'must be at least 32 characters')),
  LOG_LEVEL: withDefault(z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']), 'info'),
  INGEST_FLUSH_INTERVAL_MS: withDefault(z.coerce.number().int().min(100), 5000),
  INGEST_DEGRADED_REJECTION_RATE: withDefault(z.coerce.number().min(0).max(1), 0.2),
  SHUTDOWN_TIMEOUT_MS: withDefault(z.coerce.number().int().min(0), 10000),
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: withDefault(z.enum(['true', 'false']), 'false'),
  WEBHOOK_TIMEOUT_MS: withDefault(z.coerce.number().int().min(1).max(60_000), 15000),
  WEBHOOK_POLL_INTERVAL_MS: withDefault(z.coerce.number().int().min(10).max(60_000), 1000),
  WEBHOOK_CONCURRENCY: withDefault(z.coerce.number().int().min(1).max(200), 10),
  EVENTS_RETENTION_DAYS: withDefault(z.coerce.number().positive().max(3650), 7),
  DELETED_RETENTION_DAYS: withDefault(z.coerce.number().positive().max(3650), 30),
  EVENTS_MAX_SUBSCRIPTIONS_PER_TENANT: withDefault(z.coerce.number().int().min(1).max(100_000), 50),
  EVENTS_MAINTENANCE_INTERVAL_MS: withDefault(z.coerce.number().int().min(1000), 30000),
  PAYLOAD_HISTORY_DAYS: withDefault(z.coerce.number().int().min(0).max(3650), 14),
  PAYLOAD_HISTORY_PER_RECORD: withDefault(z.coerce.number().int().min(1).max(100), 50),
  // Field coverage (data quality, api-contract.md F) is counted with every write; `off` only to measure its cost (npm run bench).
  INGEST_FIELD_COVERAGE: withDefault(z.enum(['on', 'off']), 'on'),
  RESPONSE_CACHE_TTL_MS: withDefault(z.coerce.number().int().min(0).max(3_600_000), 1000),
  RESPONSE_CACHE_MAX_MB: withDefault(z.coerce.number().positive().max(65_536), 64),
  HTTP_HEADERS_TIMEOUT_MS: withDefault(z.coerce.number().int().min(1000), 10000),
  HTTP_REQUEST_TIMEOUT_MS: withDefault(z.coerce.number().int().min(1000), 30000),
  HTTP_KEEP_ALIVE_TIMEOUT_MS: withDefault(z.coerce.number().int().min(1000), 5000),
  // Rates may be fractional (0.5 = one record every 2 s); 0 turns the limit off.
  RATE_LIMIT_RECORDS_PER_SECOND: withDefault(z.coerce.number().min(0), 1000),
  RATE_LIMIT_BURST: withDefault(z.coerce.number().int().min(1), 10000),
  RATE_LIMIT_QUERIES_PER_SECOND: withDefault(z.coerce.number().min(0), 20),
  RATE_LIMIT_QUERY_BURST: withDefault(z.coerce.number().int().min(1), 100),
  REDIS_URL: optional(z.string().regex(/^rediss?:\/\//, 'must be a redis:// or rediss:// URL')),
  REDIS_KEY_PREFIX: withDefault(z.string().min(1), 'tms-ingest:'),
  AUTH_FAILURES_PER_MINUTE: withDefault(z.coerce.number().int().min(30), 30),
  AUTH_FAILURE_BLOCK_SECONDS: withDefault(z.coerce.number().int().min(1).max(3600), 60),
  AUTH_FAILURE_DELAY_MS: withDefault(z.coerce.number().int().min(0).max(10000), 100),
  CLIENT_ADDRESS_HEADER: optional(z.string().regex(/^[A-Za-z0-9-]+$/, 'must be a header name')),
  OVERLOAD_EVENT_LOOP_LAG_MS: withDefault(z.coerce.number().int().min(0), 500),
  OVERLOAD_DB_WAITING: withDefault(z.coerce.number().int().min(0), 100),
});

/** An environment the service cannot run with; its message lists every problem. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}

/** The environment variables the service reads (`.env.example` lists them). */
export const configVariables = Object.keys(Env.shape);

/** Reads the environment once; reports every problem together. */
export function loadConfig(env: Record<string, string | undefined>) {
  const parsed = Env.safeParse(env);
  if (!parsed.success) throw new ConfigError(`Invalid configuration:\n${z.prettifyError(parsed.error)}`);
  const e = parsed.data;
  return Object.freeze({
    env: e.NODE_ENV,
    http: {
      port: e.PORT,
      host: e.HOST,
      maxBodyBytes: 1_048_576,
      shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
      headersTimeoutMs: e.HTTP_HEADERS_TIMEOUT_MS,
      requestTimeoutMs: e.HTTP_REQUEST_TIMEOUT_MS,
      keepAliveTimeoutMs: e.HTTP_KEEP_ALIVE_TIMEOUT_MS,
    },
    db: { url: e.DATABASE_URL, dataDir: e.DATA_DIR, poolSize: e.DATABASE_POOL_SIZE },
    admin: e.ADMIN_API_KEY ? { apiKey: e.ADMIN_API_KEY } : null,
    log: { level: e.LOG_LEVEL },
    limits: {
      /** Per-tenant ingestion token bucket (records); a rate of 0 turns it off. */
      records: { perSecond: e.RATE_LIMIT_RECORDS_PER_SECOND, burst: e.RATE_LIMIT_BURST },
      /** Per-tenant GraphQL query token bucket (operations); a rate of 0 turns it off. */
      queries: { perSecond: e.RATE_LIMIT_QUERIES_PER_SECOND, burst: e.RATE_LIMIT_QUERY_BURST },
      redis: e.REDIS_URL ? { url: e.REDIS_URL, keyPrefix: e.REDIS_KEY_PREFIX } : null,
      authFailures: { perMinute: e.AUTH_FAILURES_PER_MINUTE, blockSeconds: e.AUTH_FAILURE_BLOCK_SECONDS, delayStepMs: e.AUTH_FAILURE_DELAY_MS },
      /** Request header holding the client address (set by a trusted proxy); absent = the socket's address. */
      clientAddressHeader: e.CLIENT_ADDRESS_HEADER?.toLowerCase() ?? null,
      /** Shed new requests (503) above this event-loop lag (0 = never). */
      overloadLagMs: e.OVERLOAD_EVENT_LOOP_LAG_MS,
      /** Shed new requests (503) when more queries than this wait for a pool connection (0 = never; PostgreSQL only). */
      overloadDbWaiting: e.OVERLOAD_DB_WAITING,
    },
    ingest: {
      flushIntervalMs: e.INGEST_FLUSH_INTERVAL_MS,
      degradedRejectionRate: e.INGEST_DEGRADED_REJECTION_RATE,
      /** Whether each write statement counts its recommended fields (db/field-coverage.ts); off only for the bench. */
      fieldCoverage: e.INGEST_FIELD_COVERAGE === 'on',
    },
    webhooks: {
      allowPrivateNetworks: e.WEBHOOK_ALLOW_PRIVATE_NETWORKS === 'true',
      timeoutMs: e.WEBHOOK_TIMEOUT_MS,
      pollIntervalMs: e.WEBHOOK_POLL_INTERVAL_MS,
      concurrency: e.WEBHOOK_CONCURRENCY,
    },
    events: {
      retentionMs: e.EVENTS_RETENTION_DAYS * 86_400_000,
      /** Deleted records (tombstones) are purged this long after their delete. */
      deletedRetentionMs: e.DELETED_RETENTION_DAYS * 86_400_000,
      maxSubscriptionsPerTenant: e.EVENTS_MAX_SUBSCRIPTIONS_PER_TENANT,
      maintenanceIntervalMs: e.EVENTS_MAINTENANCE_INTERVAL_MS,
    },
    /**
     * The bodies of accepted writes, per record (api-contract.md E, domain/payload-history): kept for
     * `days` whole days (0 = not recorded), at most `perRecord` per record.
     */
    payloadHistory: { days: e.PAYLOAD_HISTORY_DAYS, perRecord: e.PAYLOAD_HISTORY_PER_RECORD },
    /** GraphQL answers of tenant-data queries, shared until the tenant's data changes (graphql/response-cache.ts). */
    responseCache: { ttlMs: e.RESPONSE_CACHE_TTL_MS, maxBytes: Math.round(e.RESPONSE_CACHE_MAX_MB * 1_048_576) },
  });
}
export type Config = ReturnType<typeof loadConfig>;
