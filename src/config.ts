import { z } from 'zod';

const blankAsUnset = (v: unknown) => (v === '' ? undefined : v);
const optional = <T extends z.ZodType>(schema: T) => z.preprocess(blankAsUnset, schema.optional());
const withDefault = <T extends z.ZodType>(schema: T, value: z.input<T>) =>
  z.preprocess(blankAsUnset, schema.default(value as never));

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
});

/** Reads the environment once; reports every problem together. */
export function loadConfig(env: Record<string, string | undefined>) {
  const parsed = Env.safeParse(env);
  if (!parsed.success) throw new Error(`Invalid configuration:\n${z.prettifyError(parsed.error)}`);
  const e = parsed.data;
  return Object.freeze({
    env: e.NODE_ENV,
    http: { port: e.PORT, host: e.HOST, maxBodyBytes: 1_048_576, shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS },
    db: { url: e.DATABASE_URL, dataDir: e.DATA_DIR, poolSize: e.DATABASE_POOL_SIZE },
    admin: e.ADMIN_API_KEY ? { apiKey: e.ADMIN_API_KEY } : null,
    log: { level: e.LOG_LEVEL },
    ingest: { flushIntervalMs: e.INGEST_FLUSH_INTERVAL_MS, degradedRejectionRate: e.INGEST_DEGRADED_REJECTION_RATE },
  });
}
export type Config = ReturnType<typeof loadConfig>;
