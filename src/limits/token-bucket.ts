/**
 * Token buckets: a bucket holds up to `burst` tokens, refills at `perSecond` tokens a second, and a
 * request takes `cost` tokens or is refused (nothing taken). Two stores: in memory (one process,
 * driven by the app's clock) and Redis (every instance sharing REDIS_URL shares the bucket; one Lua
 * script reads, refills and takes atomically, on Redis's own clock). The Redis store falls back to
 * the memory store while Redis is unreachable and says so in the log, once per outage.
 *
 * rate-limiter-flexible was considered: its limiters are fixed windows (BurstyRateLimiter adds a
 * second window, which lets the long-run rate reach rate + burst/window), not a token bucket; the
 * atomic script is what a token bucket needs, with ioredis as the maintained Redis client.
 */
import { createRequire } from 'node:module';
import type { Redis } from 'ioredis';
import type { Clock } from '../clock.js';
import type { Logger } from '../logger.js';

export interface BucketPolicy {
  /** Tokens added per second (> 0). */
  perSecond: number;
  /** Bucket size: the largest burst. */
  burst: number;
}

export interface BucketDecision {
  allowed: boolean;
  /** Whole tokens left after this request. */
  remaining: number;
  /** Seconds until the bucket is full again. */
  resetSeconds: number;
  /** When refused: seconds until `cost` tokens are there (≥ 1). */
  retryAfterSeconds: number;
}

export interface BucketStore {
  take(key: string, cost: number, policy: BucketPolicy): Promise<BucketDecision>;
  /** Whether the shared store is in use right now (memory: always false). */
  readonly shared: boolean;
  close(): Promise<void>;
}

/** The decision for a bucket holding `tokens` after the attempt. */
function decide(allowed: boolean, tokens: number, cost: number, { perSecond, burst }: BucketPolicy): BucketDecision {
  return {
    allowed,
    remaining: Math.max(0, Math.floor(tokens)),
    resetSeconds: Math.max(0, Math.ceil((burst - tokens) / perSecond)),
    retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil((cost - tokens) / perSecond)),
  };
}

/** A request can never need more than a full bucket. */
const clampCost = (cost: number, policy: BucketPolicy) => Math.min(Math.max(1, cost), policy.burst);

/** In-memory buckets (per process). Keeps at most `maxKeys` buckets; the least recently used go first. */
export function createMemoryBucketStore(clock: Clock, maxKeys = 100_000): BucketStore {
  const buckets = new Map<string, { tokens: number; at: number }>();
  return {
    shared: false,
    async take(key, requested, policy) {
      const cost = clampCost(requested, policy);
      const now = clock.now().getTime();
      const bucket = buckets.get(key);
      let tokens = policy.burst;
      if (bucket) {
        tokens = Math.min(policy.burst, bucket.tokens + (Math.max(0, now - bucket.at) * policy.perSecond) / 1000);
        buckets.delete(key);
      } else if (buckets.size >= maxKeys) {
        buckets.delete(buckets.keys().next().value!);
      }
      const allowed = tokens >= cost;
      if (allowed) tokens -= cost;
      buckets.set(key, { tokens, at: now });
      return decide(allowed, tokens, cost, policy);
    },
    async close() {
      buckets.clear();
    },
  };
}

/** KEYS[1]: bucket; ARGV: per second, burst, cost. Returns {allowed, tokens as text}. */
const takeScript = `
local now = redis.call('TIME')
local ms = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
local rate = tonumber(ARGV[1])
local burst = tonumber(ARGV[2])
local cost = tonumber(ARGV[3])
local state = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = tonumber(state[1])
local at = tonumber(state[2])
if tokens == nil or at == nil then
  tokens = burst
else
  tokens = math.min(burst, tokens + math.max(0, ms - at) * rate / 1000)
end
local allowed = 0
if tokens >= cost then
  tokens = tokens - cost
  allowed = 1
end
redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(ms))
redis.call('PEXPIRE', KEYS[1], math.ceil(burst / rate * 1000) + 1000)
return {allowed, tostring(tokens)}
`;

type RedisWithTake = Redis & { takeTokens(key: string, perSecond: number, burst: number, cost: number): Promise<[number, string]> };

export interface RedisBucketStoreOptions {
  url: string;
  keyPrefix: string;
  logger: Logger;
  /** Used while Redis is unreachable. */
  fallback: BucketStore;
  /** Longest wait for one Redis answer before the fallback decides (default 250 ms). */
  commandTimeoutMs?: number;
  /** Called when the store switches between Redis and the fallback. */
  onSharedChange?(shared: boolean): void;
}

/**
 * Buckets in Redis, shared by every instance with the same URL and key prefix. While Redis is down
 * (not connected, or a command fails or times out), the in-memory fallback decides: the service keeps
 * serving, each instance limiting on its own, and logs the switch both ways.
 */
export function createRedisBucketStore({ url, keyPrefix, logger, fallback, commandTimeoutMs = 250, onSharedChange }: RedisBucketStoreOptions): BucketStore {
  // Loaded only when REDIS_URL is set: a service without Redis never pays for the client's modules.
  const { Redis } = createRequire(import.meta.url)('ioredis') as typeof import('ioredis');
  const redis = new Redis(url, {
    keyPrefix,
    lazyConnect: false,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: commandTimeoutMs,
    connectTimeout: 2000,
    retryStrategy: (attempt) => Math.min(attempt * 250, 2000),
  }) as RedisWithTake;
  redis.defineCommand('takeTokens', { numberOfKeys: 1, lua: takeScript });
  // 'starting' until the first connection succeeds or fails; requests meanwhile use the fallback.
  let state: 'starting' | 'redis' | 'fallback' = 'starting';
  let closed = false;
  const setShared = (value: boolean, error?: unknown) => {
    const next = value ? 'redis' : 'fallback';
    if (state === next || closed) return;
    const first = state === 'starting';
    state = next;
    if (value)
      logger.info(first ? 'rate limits: shared across instances through Redis' : 'rate limits: Redis is reachable again; limits are shared across instances');
    else logger.warn({ err: error }, 'rate limits: Redis is unreachable; limiting in memory, per instance, until it is back');
    onSharedChange?.(value);
  };
  // ioredis reports connection problems as events; without a listener they would crash the process.
  redis.on('error', (error) => setShared(false, error));
  redis.on('ready', () => setShared(true));

  return {
    get shared() {
      return state === 'redis';
    },
    async take(key, requested, policy) {
      const cost = clampCost(requested, policy);
      if (redis.status !== 'ready') {
        if (state !== 'starting') setShared(false, new Error(`Redis connection is ${redis.status}`));
        return fallback.take(key, cost, policy);
      }
      try {
        const [allowed, tokens] = await redis.takeTokens(key, policy.perSecond, policy.burst, cost);
        setShared(true);
        return decide(allowed === 1, Number(tokens), cost, policy);
      } catch (error) {
        setShared(false, error);
        return fallback.take(key, cost, policy);
      }
    },
    async close() {
      closed = true;
      redis.disconnect();
      await fallback.close();
    },
  };
}
