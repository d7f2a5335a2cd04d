/**
 * The server as a process: `npm start` on a free port against a PGlite directory (and PostgreSQL when
 * DATABASE_URL is set), driven over real HTTP. First run, health and readiness, graceful shutdown with
 * a request in flight, and the embedded database's one-process rule.
 */
import { existsSync } from 'node:fs';
import { request } from 'node:http';
import { connect, createServer as createNetServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll } from 'vitest';
import { describe, expect, test } from '../../fixtures.js';
import { openDatabase } from '../../../src/db/database.js';
import { migrate } from '../../../src/db/migrate.js';
import { loadConfig } from '../../../src/config.js';
import { createLogger } from '../../../src/logger.js';
import { startupMessage } from '../../../src/startup.js';
import { countTenants, createTenant } from '../../../src/domain/tenant/service.js';
import { carrierBody, loadBody, routes } from '../../factories/records.js';
import { createTestApp, uniqueSlug } from '../../helpers/app.js';
import { consoleRoutes } from '../../../src/http/console.js';
import { pageRoutes } from '../../../src/http/pages.js';
import { pgliteTarget, postgresTarget, targets, type Target } from '../cli/targets.js';
import { inFlightPost, startServer, type ServerProcess } from './server-process.js';

const apiKeyPattern = /tms_[A-Za-z0-9_-]{43}/;

const post = (base: string, path: string, apiKey: string, body: unknown) =>
  fetch(`${base}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': apiKey }, body: JSON.stringify(body) });

/** Stops the server even when a test fails half-way. */
/** GET over a connection of its own (no keep-alive socket shared with earlier requests). */
function statusOnNewConnection(url: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request(url, { agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode!));
    });
    req.on('error', reject);
    req.end();
  });
}

async function withServer<T>(env: Record<string, string>, fn: (server: ServerProcess) => Promise<T>): Promise<T> {
  const server = startServer(env);
  try {
    return await fn(server);
  } finally {
    await server.stop();
  }
}

// Each test starts Node processes: generous timeouts, no timing assertions.
describe('first run on the embedded database', { timeout: 180_000 }, () => {
  let target: Target;
  beforeAll(() => {
    target = pgliteTarget();
  });
  afterAll(() => target.cleanup());

  test('creates tenant demo, prints its key once with a curl example, and the key works', async () => {
    const demoKey = await withServer(target.env, async (server) => {
      const base = await server.started();
      const banner = await server.waitFor(/First run: created tenant "demo"[\s\S]*?(tms_[A-Za-z0-9_-]{43})[\s\S]*?OpenAPI: .*\n/);
      const apiKey = banner[1]!;
      expect(banner[0]).toContain(`curl -s ${base}/api/v1/loads/upsert`);
      expect(banner[0]).toContain(`-H 'X-API-Key: ${apiKey}'`);

      const res = await post(base, routes.carrier, apiKey, carrierBody({ slug: 'demo' }));
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ status: 'processed' });
      return apiKey;
    });

    // A second start neither creates another tenant nor prints a key; the first key still works.
    await withServer(target.env, async (server) => {
      const base = await server.started();
      const res = await post(base, routes.carrier, demoKey, carrierBody({ slug: 'demo' }));
      expect(res.status).toBe(200);
      expect(server.output()).not.toContain('First run');
      expect(server.output().match(new RegExp(apiKeyPattern, 'g'))).toBeNull();
      // Every start helps: the URLs, and how to recover the demo key.
      await server.waitFor(/GraphiQL: +http:\/\/127\.0\.0\.1:\d+\/graphql/);
      expect(server.output()).toContain('npm run tenant -- rotate-key demo');
    });
    expect(await target.withDatabase(countTenants)).toBe(1);
  });

  test('a first start whose port is in use creates no tenant; the next start creates demo and prints its key', async () => {
    const fresh = pgliteTarget();
    const blocker = createNetServer();
    try {
      await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve));
      const { port } = blocker.address() as AddressInfo;
      const busy = startServer({ ...fresh.env, PORT: String(port) });
      expect(await busy.exited).toBe(1);
      expect(busy.output()).toContain('The port is in use');
      expect(busy.output()).not.toMatch(apiKeyPattern);
      expect(existsSync(join(fresh.env.DATA_DIR!, 'tms-ingest.lock'))).toBe(false); // released, not left to take over
      expect(await fresh.withDatabase(countTenants)).toBe(0);

      await withServer(fresh.env, async (server) => {
        const base = await server.started();
        const apiKey = (await server.waitFor(/First run: created tenant "demo"[\s\S]*?(tms_[A-Za-z0-9_-]{43})/))[1]!;
        const res = await post(base, routes.carrier, apiKey, carrierBody({ slug: 'demo' }));
        expect(res.status).toBe(200);
      });
      expect(await fresh.withDatabase(countTenants)).toBe(1);
    } finally {
      await new Promise((resolve) => blocker.close(resolve));
      await fresh.cleanup();
    }
  });

  test('a second server on the same directory exits 1 with a plain "in use" message', async () => {
    await withServer(target.env, async (first) => {
      await first.started();
      const second = startServer(target.env);
      expect(await second.exited).toBe(1);
      expect(second.output()).toContain(`is in use by process ${first.child.pid} (is the server running?)`);
      expect(second.output()).not.toMatch(/\n\s+at /); // a message, not a stack trace
      // The first server is unaffected.
      expect((await fetch(`${await first.started()}/readyz`)).status).toBe(200);
    });
  });
});

describe('an invalid configuration', { timeout: 120_000 }, () => {
  test('stops the server at start with exit 1 and the ConfigError as plain lines (no stack)', async () => {
    const server = startServer({ PORT: 'not-a-port', DATABASE_URL: 'mysql://nowhere' });
    expect(await server.exited).toBe(1);
    expect(server.output()).toContain('Invalid configuration');
    expect(server.output()).toContain('DATABASE_URL');
    expect(server.output()).not.toMatch(/\n\s+at /); // a message, not a stack trace
  });
});

if (process.env.DATABASE_URL) {
  describe('first run with DATABASE_URL', { timeout: 180_000 }, () => {
    test('creates no demo tenant and prints no key', async () => {
      const target = await postgresTarget();
      try {
        await withServer(target.env, async (server) => {
          const base = await server.started();
          expect((await fetch(`${base}/readyz`)).status).toBe(200);
          expect(server.output()).not.toContain('First run');
          expect(server.output()).not.toMatch(apiKeyPattern);
          await server.waitFor(/No tenants yet\. Create one[\s\S]*npm run tenant -- create <slug>[\s\S]*GraphiQL:/);
        });
        expect(await target.withDatabase(countTenants)).toBe(0);
      } finally {
        await target.cleanup();
      }
    });

    test('logs an idle pooled connection the database drops, and keeps serving on a new one', async () => {
      const target = await postgresTarget();
      try {
        await withServer(target.env, async (server) => {
          const base = await server.started();
          const lost = /database connection lost \(the pool replaces it\)/;
          // The server has just used a pooled connection (readyz), which now sits idle in its pool: every
          // session of the database idle at that moment is ended (a busy one would fail its query instead
          // of going idle-dead), and the pool tells of the one it loses.
          const admin = new pg.Client({ connectionString: target.env.DATABASE_URL });
          await admin.connect();
          try {
            expect((await fetch(`${base}/readyz`)).status).toBe(200);
            const ended = await admin.query(
              "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND state = 'idle'",
            );
            expect(ended.rowCount).toBeGreaterThan(0);
          } finally {
            await admin.end();
          }
          await server.waitFor(lost);
          // On a new HTTP connection: the first request's keep-alive socket may be closing by now
          // (HTTP_KEEP_ALIVE_TIMEOUT_MS), which would fail the request, not the database.
          expect(await statusOnNewConnection(`${base}/readyz`)).toBe(200);
        });
      } finally {
        await target.cleanup();
      }
    });
  });
}

describe.each(targets)('server on $name', { timeout: 180_000 }, ({ create }) => {
  let target: Target;
  beforeAll(async () => {
    target = await create();
  });
  afterAll(() => target.cleanup());

  const newTenant = () => target.withDatabase((db) => createTenant(db, { slug: uniqueSlug('srv'), name: 'Server test' }));

  test('answers /healthz, /readyz (database reachable) and serves the OpenAPI document without a key', async () => {
    await withServer(target.env, async (server) => {
      const base = await server.started();
      expect((await fetch(`${base}/healthz`)).status).toBe(200);
      const ready = await fetch(`${base}/readyz`);
      expect(ready.status).toBe(200);
      expect(await ready.json()).toEqual({ status: 'ready' });
      const openapi = await fetch(`${base}/api/v1/openapi.json`);
      expect(openapi.status).toBe(200);
      expect((await openapi.json()).openapi).toBe('3.1.0');
    });
  });

  // The build bundles the code into chunks at other depths than its sources: every file the server reads
  // at run time (console assets, Redoc, Chart.js, GraphiQL, package.json) must still be found.
  test('serves every page and asset of the compiled build: landing page, API reference, console, GraphiQL', async () => {
    await withServer(target.env, async (server) => {
      const base = await server.started();
      for (const { path } of [...pageRoutes, ...consoleRoutes, { path: '/graphql' }]) {
        const res = await fetch(`${base}${path}`, { headers: { accept: 'text/html' } });
        expect({ path, status: res.status }).toEqual({ path, status: 200 });
        expect((await res.text()).length).toBeGreaterThan(100);
      }
    });
  });

  test("a control byte in a header gets the contract's JSON 400, and the connection is closed", async () => {
    await withServer(target.env, async (server) => {
      const { hostname, port } = new URL(await server.started());
      const answer = await new Promise<string>((resolve, reject) => {
        const socket = connect({ host: hostname, port: Number(port) });
        let text = '';
        socket.on('data', (chunk) => (text += chunk.toString('latin1')));
        // 'close' comes only once the server has closed its side: the test would time out otherwise.
        socket.on('close', () => resolve(text));
        socket.on('error', reject);
        socket.write(`POST ${routes.load} HTTP/1.1\r\nHost: ${hostname}\r\nX-API-Key: a\u0001b\r\nContent-Length: 2\r\n\r\n{}`);
      });
      const [head, body] = answer.split('\r\n\r\n');
      expect(head).toMatch(/^HTTP\/1\.1 400 /);
      expect(head).toMatch(/^content-type: application\/json/im);
      expect(head).toMatch(/^x-request-id: [0-9a-f-]{36}$/im);
      expect(JSON.parse(body!)).toEqual({ error: { code: 'validation_failed', message: expect.stringContaining('not valid HTTP/1.1') } });
      expect(await statusOnNewConnection(`http://${hostname}:${port}/healthz`)).toBe(200); // the server goes on
    });
  });

  test('SIGTERM lets an in-flight request finish with 200, answers new connections 503, closes the database and exits 0', async () => {
    const { tenant, apiKey } = await newTenant();
    const load = loadBody(tenant);
    const text = JSON.stringify(load);

    await withServer(target.env, async (server) => {
      const base = await server.started();
      // `Expect: 100-continue`: the request is provably in flight when SIGTERM arrives; the body is sent
      // only after shutdown has begun.
      const post = await inFlightPost(base, routes.load, { 'x-api-key': apiKey });

      server.child.kill('SIGTERM');
      await server.waitFor(/shutting down/);
      // A connection made during the drain is answered, not reset: 503 with Retry-After and Connection: close (issue 37).
      const late = await fetch(`${base}/healthz`);
      expect([late.status, late.headers.get('retry-after'), late.headers.get('connection')]).toEqual([503, '1', 'close']);

      const answer = await post.send(text);
      expect(answer.status).toBe(200);
      expect(JSON.parse(answer.body)).toMatchObject({ status: 'processed', permalink: load.native_system_load_permalink });

      expect(await server.exited).toBe(0);
      expect(server.output()).toContain('"msg":"stopped"'); // logged after the database is closed
    });

    if (target.name === 'pglite') expect(existsSync(join(target.env.DATA_DIR!, 'tms-ingest.lock'))).toBe(false);
    const stored = await target.withDatabase((db) => db.prisma.load.findFirst({ where: { permalink: load.native_system_load_permalink as string } }));
    expect(stored?.tmsId).toBe(load.native_system_load_id);
  });
});

// Each test opens and migrates a database in this process: a busy machine's timeout.
describe('readiness', { timeout: 180_000 }, () => {
  test('/readyz answers 503 unavailable with Retry-After, without the error text, when the database is gone', async () => {
    const db = await openDatabase({ dataDir: 'memory://' });
    await migrate(db.adapterFactory);
    const testApp = await createTestApp({ database: { db, url: null, drop: async () => {} } });
    try {
      expect((await testApp.fetch('/readyz')).status).toBe(200);
      await db.close();
      const res = await testApp.fetch('/readyz');
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('5');
      expect(await res.json()).toEqual({ error: { code: 'unavailable', message: 'The database is unreachable.' } });
      // Liveness does not depend on the database.
      expect((await testApp.fetch('/healthz')).status).toBe(200);
    } finally {
      await testApp.close();
    }
  });

  test('the start-up summary, printed after listening, still gives the URLs when the database fails then', async () => {
    const db = await openDatabase({ dataDir: 'memory://' });
    await migrate(db.adapterFactory);
    await db.close();
    const lines: unknown[] = [];
    const log = createLogger('warn', { write: (line: string) => void lines.push(JSON.parse(line)) });
    const startup = await startupMessage(loadConfig({}), db, log, 'http://127.0.0.1:4000');
    expect(startup.demoApiKey).toBeNull();
    expect(startup.message).toContain('tms-ingest is running:');
    expect(startup.message).toContain('http://127.0.0.1:4000/graphql');
    expect(lines).toEqual([expect.objectContaining({ level: 40, msg: expect.stringContaining('serving anyway') })]);
  });
});
