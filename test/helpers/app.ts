/**
 * An app over a real database, driven in-process through `app.fetch` exactly as a TMS would call it
 * over HTTP (no ports, no mocks of our own stack).
 */
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import type { DestinationStream } from 'pino';
import { onTestFinished } from 'vitest';
import { createApp, type App } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { openDatabase } from '../../src/db/database.js';
import { createIngestRecorder } from '../../src/domain/ingest-health/recorder.js';
import { createTenant } from '../../src/domain/tenant/service.js';
import type { TenantRef } from '../../src/domain/declaration/tenant-ref.js';
import { createLogger } from '../../src/logger.js';
import { createTestDatabase, type TestDatabase } from '../setup/database.js';
import { createTestClock, type TestClock } from './clock.js';

export interface TestTenant extends TenantRef {
  apiKey: string;
}

export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export interface TestApp {
  app: App;
  database: TestDatabase;
  clock: TestClock;
  fetch(path: string, init?: RequestInit): Promise<Response>;
  createTenant(overrides?: { slug?: string; name?: string; tmsUrlTemplate?: string }): Promise<TestTenant>;
  close(): Promise<void>;
}

export interface TestAppOptions {
  env?: Record<string, string>;
  database?: TestDatabase;
  /** Where the app's JSON log lines go (set `env.LOG_LEVEL` too: tests default to silent). */
  logStream?: DestinationStream;
  /** How slowed 401s wait (failed-key throttling tests record the delays). */
  sleep?: (ms: number) => Promise<void>;
  /** How long API-key lookups are cached (default 0: every request reads the key; the cache's own tests set it). */
  authCacheTtlMs?: number;
  /** false: every query is executed by the resolvers (src/graphql/compiled-read.ts off), to compare the two paths. */
  compiledReads?: boolean;
}

/** Unique slug per call, so tests never collide, even on a shared PostgreSQL database. */
export const uniqueSlug = (prefix = 't') => `${prefix}${randomBytes(4).toString('hex')}`;

/**
 * Tests send many requests quickly from one in-process "address": their apps get limits high enough
 * never to interfere, and no overload shedding (a loaded CI machine lags). The limits' own tests
 * (test/integration/limits/) set the values they exercise through `env`.
 */
const relaxedLimits: Record<string, string> = {
  RATE_LIMIT_RECORDS_PER_SECOND: '1000000',
  RATE_LIMIT_BURST: '10000000',
  RATE_LIMIT_QUERIES_PER_SECOND: '1000000',
  RATE_LIMIT_QUERY_BURST: '10000000',
  AUTH_FAILURES_PER_MINUTE: '1000000',
  OVERLOAD_EVENT_LOOP_LAG_MS: '0',
  OVERLOAD_DB_WAITING: '0',
};

export async function createTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const database = options.database ?? (await createTestDatabase());
  const config = loadConfig({ LOG_LEVEL: 'silent', NODE_ENV: 'test', ...relaxedLimits, ...options.env });
  const logger = createLogger(config.log.level, options.logStream);
  const clock = createTestClock();
  const recorder = createIngestRecorder({ db: database.db, clock, logger, flushIntervalMs: 0 });
  const app = createApp(
    { config, db: database.db, logger, clock, recorder },
    {
      authCacheTtlMs: options.authCacheTtlMs ?? 0,
      sleep: options.sleep,
      compiledReads: options.compiledReads,
    },
  );
  return {
    app,
    database,
    clock,
    fetch: (path, init) => Promise.resolve(app.fetch(new Request(`http://test${path}`, init))),
    async createTenant(overrides = {}) {
      const { tenant, apiKey } = await createTenant(database.db, { slug: uniqueSlug(), name: 'Test tenant', ...overrides });
      return { ...tenant, apiKey };
    },
    async close() {
      await recorder.close();
      await app.services.limits.close();
      await app.services.statistics.idle();
      if (!options.database) await database.drop();
    },
  };
}

/** A second instance: its own pool on the same PostgreSQL database, or the same PGlite database. */
export async function secondInstance(testApp: TestApp, env: Record<string, string> = {}) {
  const { url } = testApp.database;
  const db = url ? await openDatabase({ url, dataDir: '', poolSize: 10 }) : testApp.database.db;
  const app = await createTestApp({ database: { db, url, drop: async () => {} }, env });
  return {
    app,
    async close() {
      await app.close();
      if (url) await db.close();
    },
  };
}

/** Typed request helpers for one API key. */
export function apiFor(testApp: TestApp, apiKey: string) {
  async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<ApiResponse> {
    const res = await testApp.fetch(path, {
      method,
      headers: { 'content-type': 'application/json', 'x-api-key': apiKey, ...headers },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : null;
    } catch {
      // not JSON: keep the text
    }
    return { status: res.status, headers: res.headers, body: parsed };
  }
  return {
    post: (path: string, body?: unknown, headers?: Record<string, string>) => call('POST', path, body, headers),
    get: (path: string, headers?: Record<string, string>) => call('GET', path, undefined, headers),
    call,
    /** A GraphQL operation; returns `{ data, errors }` with the HTTP status. */
    async graphql(query: string, variables?: Record<string, unknown>, headers?: Record<string, string>) {
      return call('POST', '/graphql', { query, variables }, headers);
    },
  };
}
export type Api = ReturnType<typeof apiFor>;

/** An app sharing `testApp`'s database whose JSON log lines (at info and above) are collected; closed when the test ends. */
export async function loggingApp(testApp: TestApp) {
  const lines: { level: number; msg: string; [key: string]: unknown }[] = [];
  const logStream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  const app = await createTestApp({ database: testApp.database, env: { LOG_LEVEL: 'info' }, logStream });
  onTestFinished(() => app.close());
  return { app, lines };
}

/** An app sharing `testApp`'s database whose queries are all executed by the resolvers (no compiled reads); closed when the test ends. */
export async function resolversApp(testApp: TestApp) {
  const app = await createTestApp({ database: testApp.database, compiledReads: false });
  onTestFinished(() => app.close());
  return app;
}
