/**
 * Overload shedding through the HTTP surface, on what clients cause: while the event loop lags beyond
 * the threshold with requests in flight, or more requests' queries than allowed wait for a database
 * connection (PostgreSQL's pool; the embedded database's one connection), new requests get 503
 * `unavailable` with Retry-After at once; the probes stay answerable; service resumes after. What is
 * not load does not shed: a stall while no request is in flight (start-up, maintenance), background
 * calls queued on the embedded database, whose requests' calls go first. (One stall is not a lag that
 * lasts: test/unit/overload.test.ts. The embedded database's own
 * work is not lag: test/integration/process/shedding.test.ts, on the real server; restarts:
 * test/integration/process/ready.test.ts.)
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { asRequestWork } from '../../../src/db/database.js';
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

/**
 * A REST post in flight until `finish` sends its body: resolves once the app reads the body (it has
 * admitted the request and not answered it).
 */
async function postInFlight(testApp: TestApp, apiKey: string, body: object) {
  let finish!: () => void;
  let reading!: () => void;
  const read = new Promise<void>((resolve) => (reading = resolve));
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      reading();
      return new Promise<void>((sent) => {
        finish = () => {
          controller.enqueue(new TextEncoder().encode(JSON.stringify(body)));
          controller.close();
          sent();
        };
      });
    },
  });
  const answer = testApp.fetch(routes.carrier, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
    body: stream,
    duplex: 'half',
  } as RequestInit);
  await read;
  return { answer, finish: () => finish() };
}

describe('event-loop lag', () => {
  let testApp: TestApp;
  beforeAll(async () => {
    testApp = await createTestApp({ env: { OVERLOAD_EVENT_LOOP_LAG_MS: '400' } });
  }, 180_000);
  afterAll(() => testApp?.close());

  test('an idle server never sheds: stalls while no request is in flight are not load', async () => {
    const tenant = await testApp.createTenant();
    const api = apiFor(testApp, tenant.apiKey);
    for (let stall = 0; stall < 3; stall++) {
      blockEventLoop(1000);
      await nextTimers(); // the lag sampler's late tick runs first
    }
    expect((await api.post(routes.carrier, carrierBody(tenant))).status).toBe(200);
    expect((await api.graphql('{ viewer { slug } }')).status).toBe(200);
  });

  test('a lag that lasts while requests are served sheds new ones with 503 unavailable and Retry-After; the probes answer; then service resumes', async () => {
    const tenant = await testApp.createTenant();
    const api = apiFor(testApp, tenant.apiKey);
    const held = await postInFlight(testApp, tenant.apiKey, carrierBody(tenant));
    blockEventLoop(1000);
    await nextTimers(); // the lag sampler's late tick runs first
    blockEventLoop(1000);
    await nextTimers();
    const shed = await api.post(routes.carrier, carrierBody(tenant));
    expect(shed.status).toBe(503);
    expect(shed.body).toEqual({ error: { code: 'unavailable', message: expect.stringContaining('overloaded') } });
    expect(shed.headers.get('retry-after')).toBe('1');
    const gql = await api.graphql('{ viewer { slug } }');
    expect(gql.status).toBe(503);
    expect((await testApp.fetch('/healthz')).status).toBe(200);
    expect((await testApp.fetch('/readyz')).status).toBe(200);
    const metrics = await (await testApp.fetch('/metrics')).text();
    expect(metrics).toMatch(/requests_shed_total\{reason="event_loop_lag"\} [1-9]/);
    held.finish();
    expect((await held.answer).status).toBe(200); // admitted before: answered
    expect(await testApp.database.db.prisma.carrier.count({ where: { tenantId: tenant.id } })).toBe(1);

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

  test('more requests waiting than allowed shed new requests (on the embedded database: requests’ calls queued for its one connection)', async () => {
    const tenant = await testApp.createTenant();
    const api = apiFor(testApp, tenant.apiKey);
    const { db } = testApp.database;
    // PostgreSQL: the test database's pool has 20 connections, 25 slow queries leave 5 waiting. The
    // embedded database runs one call at a time: 8 slow ones of requests leave 7 queued.
    const hold = onPostgres()
      ? Array.from({ length: 25 }, () => db.sql.query('SELECT pg_sleep(2)', []))
      : asRequestWork(() => Array.from({ length: 8 }, () => db.sql.query('SELECT pg_sleep(0.3)', [])));
    try {
      expect(db.poolStats().waitingRequests).toBeGreaterThan(2);
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

  test.runIf(!onPostgres())('embedded database: background calls queued for its connection are not load, and requests’ calls go ahead of them', async () => {
    const tenant = await testApp.createTenant();
    const api = apiFor(testApp, tenant.apiKey);
    const { db } = testApp.database;
    // Maintenance, statistics, flushes: 20 slow calls queued outside any request.
    let finished = 0;
    const background = Array.from({ length: 20 }, () => db.sql.query('SELECT pg_sleep(0.1)', []).then(() => finished++));
    try {
      expect(db.poolStats().waiting).toBe(19);
      expect(db.poolStats().waitingRequests).toBe(0);
      const answer = await api.post(routes.carrier, carrierBody(tenant));
      expect(answer.status).toBe(200);
      // Each of the request's few calls waited for the one call running at most, not for the queue.
      expect(finished).toBeLessThan(10);
    } finally {
      await Promise.all(background);
    }
    expect(finished).toBe(20);
  });
});
