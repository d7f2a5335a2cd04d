/**
 * Failed-key throttling through the HTTP surface. The app waits through an injected `sleep`, which
 * records each delay: the test checks which answers are slowed and by how much, never how long they took.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { revokeApiKeys } from '../../../src/domain/tenant/service.js';
import { carrierBody, routes } from '../../factories/records.js';
import { apiFor, createTestApp, type TestApp } from '../../helpers/app.js';

const delays: number[] = [];
let testApp: TestApp;
beforeAll(async () => {
  testApp = await createTestApp({
    env: { CLIENT_ADDRESS_HEADER: 'X-Forwarded-For', AUTH_FAILURES_PER_MINUTE: '30', AUTH_FAILURE_BLOCK_SECONDS: '60', AUTH_FAILURE_DELAY_MS: '100' },
    sleep: async (ms) => void delays.push(ms),
  });
  testApp.clock.freeze();
}, 180_000);
afterAll(() => testApp?.close());

let addressCount = 0;
const newAddress = () => `203.0.113.${++addressCount}`;

/** One REST post from `address` (behind a proxy that appended it) with `apiKey`; returns status and recorded delay. */
async function attempt(address: string, apiKey: string | null, slug = 'nobody') {
  const before = delays.length;
  const res = await testApp.fetch(routes.carrier, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': `10.9.9.9, ${address}`, ...(apiKey ? { 'x-api-key': apiKey } : {}) },
    body: JSON.stringify(carrierBody({ slug })),
  });
  const body = await res.json();
  return {
    status: res.status,
    code: body?.error?.code as string | undefined,
    retryAfter: res.headers.get('retry-after'),
    delay: delays.slice(before).reduce((a, b) => a + b, 0),
  };
}

/** 61 failures from one address: 30 plain 401s, 30 slowed 401s, then 429 for the block. */
async function failSixtyOneTimes(address: string, apiKey: string | null) {
  const seen = [];
  for (let i = 0; i < 61; i++) seen.push(await attempt(address, apiKey));
  return seen;
}

describe('failed-key throttling', () => {
  test('30 failures a minute pass untouched; the next 30 are slowed (100 ms more each, at most 2 s); then 429 rate_limited for 60 s', async () => {
    const seen = await failSixtyOneTimes(newAddress(), 'tms_unknown-key');
    expect(seen.slice(0, 30).every((s) => s.status === 401 && s.delay === 0)).toBe(true);
    expect(seen.slice(30, 60).map((s) => s.status)).toEqual(Array(30).fill(401));
    expect(seen.slice(30, 60).map((s) => s.delay)).toEqual(Array.from({ length: 30 }, (_, i) => Math.min(2000, (i + 1) * 100)));
    expect(seen[60]).toEqual({ status: 429, code: 'rate_limited', retryAfter: '60', delay: 0 });
  });

  test('an unknown key, a revoked key and a missing key are throttled exactly alike', async () => {
    const tenant = await testApp.createTenant();
    await revokeApiKeys(testApp.database.db, tenant.slug);
    const unknown = await failSixtyOneTimes(newAddress(), 'tms_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA');
    const revoked = await failSixtyOneTimes(newAddress(), tenant.apiKey);
    const missing = await failSixtyOneTimes(newAddress(), null);
    expect(revoked).toEqual(unknown);
    expect(missing).toEqual(unknown);
  });

  test('during the block a valid key from the same address (shared NAT) is served; the block ends after its window', async () => {
    const address = newAddress();
    const tenant = await testApp.createTenant();
    await failSixtyOneTimes(address, 'tms_unknown-key');
    expect((await attempt(address, 'tms_unknown-key')).status).toBe(429);
    const valid = await attempt(address, tenant.apiKey, tenant.slug);
    expect(valid).toMatchObject({ status: 200, delay: 0 });
    // GraphQL refuses the failing key from that address the same way.
    const gql = await testApp.fetch('/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': 'tms_unknown-key', 'x-forwarded-for': address },
      body: JSON.stringify({ query: '{ viewer { slug } }' }),
    });
    expect(gql.status).toBe(429);
    expect((await gql.json()).errors[0].extensions.code).toBe('rate_limited');
    expect(gql.headers.get('retry-after')).toBe('60');

    // Another address is not affected.
    expect(await attempt(newAddress(), 'tms_unknown-key')).toMatchObject({ status: 401, delay: 0 });

    testApp.clock.advance(59_000);
    expect((await attempt(address, 'tms_unknown-key')).retryAfter).toBe('1');
    testApp.clock.advance(1_000);
    expect(await attempt(address, 'tms_unknown-key')).toMatchObject({ status: 401, delay: 0 });
  });

  test('failures spread over more than a minute start a new count', async () => {
    const address = newAddress();
    for (let i = 0; i < 30; i++) await attempt(address, 'tms_unknown-key');
    testApp.clock.advance(60_000);
    for (let i = 0; i < 30; i++) expect((await attempt(address, 'tms_unknown-key')).delay).toBe(0);
  });

  test('/metrics counts delayed and refused failures', async () => {
    const text = await (await testApp.fetch('/metrics')).text();
    expect(text).toMatch(/auth_failures_throttled_total\{action="delayed"\} [1-9]\d*/);
    expect(text).toMatch(/auth_failures_throttled_total\{action="refused"\} [1-9]\d*/);
  });
});

describe('client address', () => {
  test('without CLIENT_ADDRESS_HEADER the socket address counts and X-Forwarded-For is ignored', async () => {
    const app = await createTestApp({ database: testApp.database, env: { AUTH_FAILURES_PER_MINUTE: '30' }, sleep: async (ms) => void delays.push(ms) });
    try {
      const before = delays.length;
      const statuses = [];
      for (let i = 0; i < 31; i++) {
        const res = await app.app.fetch(
          new Request(`http://test${routes.carrier}`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-api-key': 'tms_unknown-key', 'x-forwarded-for': `198.51.100.${i}` },
            body: '{}',
          }),
          { req: { socket: { remoteAddress: '192.0.2.77' } } },
        );
        statuses.push(res.status);
      }
      expect(statuses).toEqual(Array(31).fill(401));
      // The 31st failure from the one socket address was slowed, whatever the header claimed.
      expect(delays.slice(before)).toEqual([100]);
      const other = await apiFor(app, 'tms_unknown-key').post(routes.carrier, {});
      expect(other.status).toBe(401);
    } finally {
      await app.close();
    }
  });
});
