/**
 * Rate limits shared through Redis (REDIS_URL): two app instances on one database share a tenant's
 * bucket; with Redis unreachable from the start, or stopped mid-way, the service keeps answering
 * (never 500), limits in memory and says so in the log; a restarted Redis is used again.
 * The shared Redis on 127.0.0.1:6379 gets a key prefix unique to each test; the outage test runs a
 * private redis-server of its own on a free port.
 * `npm test` needs Node.js alone: with no Redis answering on 127.0.0.1:6379 (decided by a real PING
 * before the tests are collected) the shared-bucket test is skipped, and with no `redis-server` on the
 * PATH the outage test is, each with the reason in its name. CI sets REQUIRE_REDIS=1 (`.ci/run`), which
 * runs them anyway, so a missing Redis there fails them instead of skipping.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { accessSync, constants } from 'node:fs';
import { connect, createServer } from 'node:net';
import { delimiter, join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { carrierBody, routes } from '../../factories/records.js';
import { apiFor, createTestApp, type TestApp, type TestTenant } from '../../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../../setup/database.js';

const sharedRedis = 'redis://127.0.0.1:6379';
const requireRedis = process.env.REQUIRE_REDIS === '1';
const sharedRedisAnswers = await redisAnswers('127.0.0.1', 6379);
const redisServerInstalled = onPath('redis-server');
// 4 records, then one record every 100 s: refills never interfere with a test, however slow the machine.
const limitsEnv = (url: string) => ({
  REDIS_URL: url,
  REDIS_KEY_PREFIX: `test-limits-${randomBytes(6).toString('hex')}:`,
  RATE_LIMIT_RECORDS_PER_SECOND: '0.01',
  RATE_LIMIT_BURST: '4',
});

/** Waits (bounded) until `check` holds: readiness, not a timing assertion. */
async function eventually(check: () => boolean | Promise<boolean>, what: string, timeoutMs = 15_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`Timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Log lines of an app, parsed. */
function logCollector() {
  const lines: { level: number; msg: string }[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { lines, stream, messages: () => lines.map((l) => l.msg) };
}

const post = (app: TestApp, tenant: TestTenant) => apiFor(app, tenant.apiKey).post(routes.carrier, carrierBody(tenant));

let database: TestDatabase;
beforeAll(async () => {
  database = await createTestDatabase();
}, 180_000);
afterAll(() => database?.drop());

describe('rate limits through Redis', () => {
  test.skipIf(!sharedRedisAnswers && !requireRedis)("needs a Redis on 127.0.0.1:6379: two instances on one database share the tenant's bucket", async () => {
    expect(sharedRedisAnswers, 'REQUIRE_REDIS=1: a Redis must answer on 127.0.0.1:6379').toBe(true);
    const env = limitsEnv(sharedRedis);
    const a = await createTestApp({ database, env });
    const b = await createTestApp({ database, env });
    try {
      await eventually(() => a.app.services.limits.shared && b.app.services.limits.shared, 'Redis');
      const tenant = await a.createTenant();
      const statuses = [];
      for (const app of [a, b, a, b, a, b]) statuses.push((await post(app, tenant)).status);
      expect(statuses).toEqual([200, 200, 200, 200, 429, 429]);
      const refused = await post(b, tenant);
      expect(refused.body.error.code).toBe('rate_limited');
      expect(refused.headers.get('ratelimit')).toMatch(/^"ingest";r=0;t=(3[89]\d|400)$/);
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(80); // 100 s for one record, less what real time refilled meanwhile
      expect(await database.db.prisma.carrier.count({ where: { tenantId: tenant.id } })).toBe(4);
      expect(await (await a.fetch('/metrics')).text()).toContain('rate_limit_redis_shared 1');
    } finally {
      await a.close();
      await b.close();
    }
  });

  test('with Redis unreachable from the start the service serves, limits in memory and logs it', async () => {
    const log = logCollector();
    const app = await createTestApp({ database, env: { ...limitsEnv('redis://127.0.0.1:1'), LOG_LEVEL: 'warn' }, logStream: log.stream });
    try {
      const tenant = await app.createTenant();
      const statuses = [];
      for (let i = 0; i < 5; i++) statuses.push((await post(app, tenant)).status);
      expect(statuses).toEqual([200, 200, 200, 200, 429]);
      await eventually(() => log.messages().some((m) => /Redis is unreachable; limiting in memory/.test(m)), 'the log line');
      expect(app.app.services.limits.shared).toBe(false);
      expect(await (await app.fetch('/metrics')).text()).toContain('rate_limit_redis_shared 0');
    } finally {
      await app.close();
    }
  });

  test.skipIf(!redisServerInstalled && !requireRedis)(
    'needs redis-server on the PATH: Redis stopped mid-way: no 500s, memory limits, logged; used again once it is back',
    async () => {
      expect(redisServerInstalled, 'REQUIRE_REDIS=1: redis-server must be on the PATH').toBe(true);
      const port = await freePort();
      let redis = startRedis(port);
      const log = logCollector();
      const app = await createTestApp({ database, env: { ...limitsEnv(`redis://127.0.0.1:${port}`), LOG_LEVEL: 'info' }, logStream: log.stream });
      try {
        await eventually(() => app.app.services.limits.shared, 'Redis');
        const tenant = await app.createTenant();
        expect((await post(app, tenant)).status).toBe(200);

        await stopRedis(redis);
        // A tenant whose memory bucket is untouched: a Redis command that timed out under load before
        // the outage (250 ms) was rightly charged to the memory bucket of the tenant that sent it.
        const other = await app.createTenant();
        const during = [];
        for (let i = 0; i < 6; i++) during.push((await post(app, other)).status);
        // The in-memory bucket takes over with a full burst of its own: 4 pass, then 429; never a 500.
        expect(during).toEqual([200, 200, 200, 200, 429, 429]);
        expect(app.app.services.limits.shared).toBe(false);
        expect(log.messages()).toContainEqual(expect.stringMatching(/Redis is unreachable; limiting in memory/));

        redis = startRedis(port);
        await eventually(() => app.app.services.limits.shared, 'Redis to be used again', 30_000);
        expect(log.messages()).toContainEqual(expect.stringMatching(/Redis is reachable again/));
        // Back on Redis: the restarted server kept nothing, so the shared bucket starts full again.
        const after = [];
        for (let i = 0; i < 5; i++) after.push((await post(app, tenant)).status);
        expect(after).toEqual([200, 200, 200, 200, 429]);
      } finally {
        await app.close();
        await stopRedis(redis);
      }
    },
  );
});

/** Whether a Redis answers PING on host:port (within 2 s): the shared Redis test's condition. */
function redisAnswers(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host, port });
    let reply = '';
    const done = (answered: boolean) => {
      socket.destroy();
      resolve(answered);
    };
    socket.setTimeout(2_000, () => done(false));
    socket.once('error', () => done(false));
    socket.once('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      reply += String(chunk);
      if (reply.includes('\r\n')) done(reply.startsWith('+PONG'));
    });
  });
}

/** Whether an executable of that name is on the PATH. */
function onPath(command: string): boolean {
  return (process.env.PATH ?? '').split(delimiter).some((dir) => {
    try {
      accessSync(join(dir, command), constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

function startRedis(port: number): ChildProcess {
  return spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], { stdio: 'ignore' });
}

function stopRedis(redis: ChildProcess): Promise<void> {
  if (redis.exitCode !== null || redis.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    redis.once('exit', () => resolve());
    redis.kill('SIGKILL');
  });
}
