/**
 * The response cache (src/graphql/response-cache.ts): identical tenant-data queries of a tenant share
 * one answer until the tenant's data changes — at once for writes through this instance and for
 * change events from any instance, within RESPONSE_CACHE_TTL_MS for other instances' event-less writes.
 */
import { describe, expect, test } from '../../fixtures.js';
import { randomUUID } from 'node:crypto';
import { apiFor, secondInstance, type Api, type TestApp } from '../../helpers/app.js';
import { loadBody, loadUpdateBody, routes, seed, seedLoadTree } from '../../factories/records.js';
import { gqlData } from '../../factories/graphql.js';

const board = /* GraphQL */ `{ loads(first: 10) { totalCount edges { node {
  permalink status phase lastActivityAt
  legs { permalink driverName carrier { permalink name } stops { permalink arrivedAt } }
  updates(first: 1) { permalink message }
} } } }`;

/** Asks `query`; returns what the cache did (the X-Response-Cache header) and the data. */
async function ask(api: Api, query = board, headers?: Record<string, string>) {
  const res = await api.graphql(query, undefined, headers);
  expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
  expect(res.status).toBe(200);
  return { cache: res.headers.get('x-response-cache'), data: res.body.data };
}

/**
 * Resolves once the app's change listener has taken every notification of the writes answered so far:
 * their numbering passes, which NOTIFY, follow the answers (decision 0045), so this waits for them
 * first; then a NOTIFY of a marker, sent now, arrives after theirs, in commit order, and the listener
 * hands each notification to every observer in turn. Fails if the marker never arrives.
 */
async function notificationsTaken(testApp: TestApp) {
  await testApp.app.services.sequencer.idle();
  const marker = randomUUID();
  let taken!: () => void;
  const arrived = new Promise<void>((resolve) => (taken = resolve));
  await testApp.app.services.events.watch({ changed: (tenantId) => tenantId === marker && taken(), reconnected: () => {} });
  await testApp.database.db.sql.query("SELECT pg_notify('load_events', $1)", [marker]);
  await within(arrived, 10_000, 'the NOTIFY of a marker never reached the app');
}

/** Resolves once `testApp`'s change listener is told of a change of `tenantId` (call before the write). */
async function changeOf(testApp: TestApp, tenantId: string) {
  let told!: () => void;
  const changed = new Promise<void>((resolve) => (told = resolve));
  await testApp.app.services.events.watch({ changed: (id) => id === tenantId && told(), reconnected: () => {} });
  return () => within(changed, 10_000, `no change of tenant ${tenantId} reached the instance`);
}

/** `promise`, or a failure naming what did not happen once `ms` have passed. */
async function within<T>(promise: Promise<T>, ms: number, failure: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(failure)), ms)));
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

describe('response cache', { timeout: 120_000 }, () => {
  test('a repeated query is a hit; every write path of the tenant drops its answers before it answers', async ({ testApp, api, tenant }) => {
    testApp.clock.freeze(); // an answer's age moves only when a test says so (a loaded machine is slow)
    const { carrier, load, leg, stop } = await seedLoadTree(api, tenant);
    await notificationsTaken(testApp);
    const first = await ask(api);
    expect(first.cache).toBe('miss');
    const again = await ask(api);
    expect(again).toEqual({ cache: 'hit', data: first.data });

    const node = async () => (await ask(api)).data.loads.edges[0].node;
    const writes: [string, () => Promise<unknown>, (n: any) => unknown, unknown][] = [
      ['load', () => seed(api, routes.load, { ...load, native_system_load_status: 'Delivered' }), (n) => n.status, 'Delivered'],
      ['leg', () => seed(api, routes.load_leg, { ...leg, driver_name: 'New Driver' }), (n) => n.legs[0].driverName, 'New Driver'],
      ['carrier', () => seed(api, routes.carrier, { ...carrier, carrier_name: 'Renamed Carrier' }), (n) => n.legs[0].carrier.name, 'Renamed Carrier'],
      ['stop', () => seed(api, routes.stop, { ...stop, arrived_at: '2026-11-25T08:00:00Z' }), (n) => n.legs[0].stops[0].arrivedAt, '2026-11-25T08:00:00.000Z'],
      [
        'load update',
        () => seed(api, routes.load_update, loadUpdateBody(tenant, load, { message: 'at the gate' })),
        (n) => n.updates[0].message,
        'at the gate',
      ],
      [
        'editLoad',
        () =>
          gqlData(
            api,
            `mutation { editLoad(permalink: "${String(load.native_system_load_permalink)}", patch: { nativeSystemLoadStatus: "Invoiced" }) { status } }`,
          ),
        (n) => n.status,
        'Invoiced',
      ],
      ['setStatusMapping', () => gqlData(api, 'mutation { setStatusMapping(status: "Invoiced", phase: DELIVERED) { phase } }'), (n) => n.phase, 'DELIVERED'],
    ];
    for (const [label, write, read, expected] of writes) {
      expect((await ask(api)).cache, label).toBe('hit');
      await write();
      await notificationsTaken(testApp);
      const res = await ask(api);
      expect(res.cache, label).toBe('miss');
      expect(read(res.data.loads.edges[0].node), label).toEqual(expected);
      expect(read(await node()), label).toEqual(expected);
    }
    // A new load changes the list itself.
    await seed(api, routes.load, loadBody(tenant));
    expect((await ask(api)).data.loads.totalCount).toBe(2);

    const metrics = await (await testApp.fetch('/metrics')).text();
    expect(metrics).toMatch(/^graphql_response_cache_total\{outcome="hit"\} [1-9]/m);
    expect(metrics).toMatch(/^graphql_response_cache_total\{outcome="miss"\} [1-9]/m);
  });

  test('identical requests arriving while an answer is computed share that one computation', async ({ testApp, api, tenant }) => {
    testApp.clock.freeze(); // an answer's age moves only when a test says so (a loaded machine is slow)
    await seedLoadTree(api, tenant);
    await notificationsTaken(testApp);
    const pages: string[] = [];
    const stop = testApp.database.db.onStatement((sql) => {
      if (sql.includes('json_build_object') && /\bloads\b/.test(sql)) pages.push(sql); // the compiled statement (graphql/compiled-read.ts)
    });
    try {
      const answers = await Promise.all(Array.from({ length: 8 }, () => api.graphql(board)));
      const outcomes = answers.map((a) => a.headers.get('x-response-cache'));
      expect(outcomes.filter((o) => o === 'miss')).toHaveLength(1);
      for (const outcome of outcomes) expect(['miss', 'shared', 'hit']).toContain(outcome);
      expect(pages).toHaveLength(1);
      for (const a of answers) expect(a.body).toEqual(answers[0]!.body);
    } finally {
      stop();
    }
  });

  test("tenants never share answers, and one tenant's writes keep the other's", async ({ testApp, api, otherApi, tenant, otherTenant }) => {
    testApp.clock.freeze(); // an answer's age moves only when a test says so (a loaded machine is slow)
    await seed(api, routes.load, loadBody(tenant));
    await notificationsTaken(testApp);
    await ask(api);
    expect((await ask(api)).cache).toBe('hit');
    const other = await ask(otherApi);
    expect(other.cache).toBe('miss');
    expect(other.data.loads.totalCount).toBe(0);
    await seed(otherApi, routes.load, loadBody(otherTenant));
    await notificationsTaken(testApp);
    expect((await ask(otherApi)).data.loads.totalCount).toBe(1);
    expect(await ask(api)).toMatchObject({ cache: 'hit', data: { loads: { totalCount: 1 } } });
  });

  test('Cache-Control: no-cache skips it; other queries, failed ones and RESPONSE_CACHE_TTL_MS=0 are never cached', async ({ testApp, api, tenant }) => {
    testApp.clock.freeze(); // an answer's age moves only when a test says so (a loaded machine is slow)
    await seedLoadTree(api, tenant);
    await notificationsTaken(testApp);
    await ask(api);
    expect((await ask(api, board, { 'cache-control': 'no-cache' })).cache).toBe('bypass');
    expect((await ask(api)).cache).toBe('hit');

    // ingestHealth depends on the clock, not only on records: never cached.
    const health = await api.graphql('{ ingestHealth { sources { source state } } }');
    expect(health.status).toBe(200);
    expect(health.headers.get('x-response-cache')).toBeNull();
    // A query that fails is computed again every time.
    const failing = '{ loads(first: 1) { edges { node { updates(first: 500) { permalink } } } } }';
    for (let i = 0; i < 2; i++) {
      const res = await api.graphql(failing);
      expect(res.body.errors?.[0]?.extensions?.code).toBe('validation_failed');
      expect(res.headers.get('x-response-cache')).toBe('miss');
    }

    const uncached = await secondInstance(testApp, { RESPONSE_CACHE_TTL_MS: '0' });
    try {
      const res = await apiFor(uncached.app, tenant.apiKey).graphql(board);
      expect(res.status).toBe(200);
      expect(res.headers.get('x-response-cache')).toBeNull();
    } finally {
      await uncached.close();
    }
  });

  test("another instance's writes: change events drop answers at once (NOTIFY); event-less writes show within the TTL", async ({ testApp, api, tenant }) => {
    testApp.clock.freeze(); // an answer's age moves only when a test says so (a loaded machine is slow)
    const { carrier, load } = await seedLoadTree(api, tenant);
    // The seed's numbering passes NOTIFY once they commit: done before the instances listen, or a late one
    // would stand for the load write's below (seen on a Citus cluster, where the passes are slower).
    await testApp.app.services.sequencer.idle();
    // `patient` would keep an answer 10 minutes without a notification; `brief` 300 ms.
    const patient = await secondInstance(testApp, { RESPONSE_CACHE_TTL_MS: '600000' });
    const brief = await secondInstance(testApp, { RESPONSE_CACHE_TTL_MS: '300' });
    brief.app.clock.freeze();
    try {
      const patientApi = apiFor(patient.app, tenant.apiKey);
      const briefApi = apiFor(brief.app, tenant.apiKey);
      await ask(patientApi);
      expect((await ask(patientApi)).cache).toBe('hit');

      // A load write on this instance records load.changed; its sequencing pass NOTIFYs every instance.
      const patientTold = await changeOf(patient.app, tenant.id);
      await seed(api, routes.load, { ...load, native_system_load_status: 'Delivered' });
      await patientTold();
      const seen = await ask(patientApi);
      expect(seen.cache).toBe('miss');
      expect(seen.data.loads.edges[0].node.status).toBe('Delivered');

      // A carrier rename records no event: the patient instance keeps its answer…
      await ask(briefApi);
      expect((await ask(patientApi)).cache).toBe('hit');
      await seed(api, routes.carrier, { ...carrier, carrier_name: 'Renamed Carrier' });
      const kept = await ask(patientApi);
      expect(kept.cache).toBe('hit');
      expect(kept.data.loads.edges[0].node.legs[0].carrier.name).toBe(carrier.carrier_name);
      // …and so does an instance with a 300 ms TTL, until its clock has moved 300 ms on.
      expect((await ask(briefApi)).cache).toBe('hit');
      brief.app.clock.advance(300);
      const fresh = await ask(briefApi);
      expect(fresh.cache).toBe('miss');
      expect(fresh.data.loads.edges[0].node.legs[0].carrier.name).toBe('Renamed Carrier');
    } finally {
      await patient.close();
      await brief.close();
    }
  });
});
