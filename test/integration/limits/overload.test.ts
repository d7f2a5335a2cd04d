/**
 * Overload shedding through the HTTP surface: while the event loop lags beyond the threshold, or more
 * queries than allowed wait for a database connection (PostgreSQL's pool; the embedded database's one
 * connection), new requests get 503 `unavailable` with Retry-After at once; /healthz and /metrics stay
 * answerable; service resumes after. (The embedded database's own work is not lag:
 * test/integration/process/shedding.test.ts, on the real server.)
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { carrierBody, routes } from '../../factories/records.js';
import { apiFor, createTestApp, type TestApp } from '../../helpers/app.js';
import { onPostgres } from '../../setup/database.js';

/** Blocks the event loop for `ms` (what a CPU-bound burst does to the process). */
function blockEventLoop(ms: number) {
  const until = performance.now() + ms;
  while (performance.now() < until) {
    // busy
  }
}
const nextTimers = () => new Promise((resolve) => setTimeout(resolve, 0));

describe('event-loop lag', () => {
  let testApp: TestApp;
  beforeAll(async () => {
    testApp = await createTestApp({ env: { OVERLOAD_EVENT_LOOP_LAG_MS: '400' } });
  }, 180_000);
  afterAll(() => testApp?.close());

  test('beyond the threshold new requests are shed with 503 unavailable and Retry-After; /healthz answers; then service resumes', async () => {
    const tenant = await testApp.createTenant();
    const api = apiFor(testApp, tenant.apiKey);
    blockEventLoop(1500);
    await nextTimers(); // the lag sampler's late tick runs first
    const shed = await api.post(routes.carrier, carrierBody(tenant));
    expect(shed.status).toBe(503);
    expect(shed.body).toEqual({ error: { code: 'unavailable', message: expect.stringContaining('overloaded') } });
    expect(shed.headers.get('retry-after')).toBe('1');
    const gql = await api.graphql('{ viewer { slug } }');
    expect(gql.status).toBe(503);
    expect((await testApp.fetch('/healthz')).status).toBe(200);
    const metrics = await (await testApp.fetch('/metrics')).text();
    expect(metrics).toMatch(/requests_shed_total\{reason="event_loop_lag"\} [1-9]/);
    expect(await testApp.database.db.prisma.carrier.count({ where: { tenantId: tenant.id } })).toBe(0);

    // The next samples see a normal loop again.
    let status = 0;
    for (let i = 0; i < 100 && status !== 200; i++) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      status = (await api.post(routes.carrier, carrierBody(tenant))).status;
    }
    expect(status).toBe(200);
  });
});

describe('database pool waiters', () => {
  let testApp: TestApp;
  beforeAll(async () => {
    testApp = await createTestApp({ env: { OVERLOAD_DB_WAITING: '2' } });
  }, 180_000);
  afterAll(() => testApp?.close());

  test('more waiters than allowed shed new requests (on the embedded database: calls queued for its one connection)', async () => {
    const tenant = await testApp.createTenant();
    const api = apiFor(testApp, tenant.apiKey);
    const { db } = testApp.database;
    // PostgreSQL: the test database's pool has 20 connections, 25 slow queries leave 5 waiting. The
    // embedded database runs one call at a time: 8 slow ones leave 7 queued.
    const hold = onPostgres()
      ? Array.from({ length: 25 }, () => db.sql.query('SELECT pg_sleep(2)', []))
      : Array.from({ length: 8 }, () => db.sql.query('SELECT pg_sleep(0.3)', []));
    try {
      expect(db.poolStats().waiting).toBeGreaterThan(2);
      const shed = await api.post(routes.carrier, carrierBody(tenant));
      expect(shed.status).toBe(503);
      expect(shed.body.error.message).toContain('database is saturated');
      expect(shed.headers.get('retry-after')).toBe('1');
      expect((await testApp.fetch('/healthz')).status).toBe(200);
      expect(await (await testApp.fetch('/metrics')).text()).toMatch(/requests_shed_total\{reason="db_pool_waiting"\} [1-9]/);
    } finally {
      await Promise.all(hold);
    }
    expect(db.poolStats().waiting).toBe(0);
    expect((await api.post(routes.carrier, carrierBody(tenant))).status).toBe(200);
  });
});
