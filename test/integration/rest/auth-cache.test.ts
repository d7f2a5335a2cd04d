/**
 * The API-key cache (src/http/auth.ts, lru-cache with a TTL): a key is read from the database once per
 * TTL, so a rotated or revoked key may keep working from the cache until the TTL ends, and not after.
 * The test clock is frozen and moved by hand: no sleeping, no timing.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { revokeApiKeys, rotateApiKey } from '../../../src/domain/tenant/service.js';
import { carrierBody, routes } from '../../factories/records.js';
import { apiFor, createTestApp, type TestApp } from '../../helpers/app.js';

const ttlMs = 30_000;
let testApp: TestApp;

beforeAll(async () => {
  testApp = await createTestApp({ authCacheTtlMs: ttlMs });
  testApp.clock.freeze();
});
afterAll(() => testApp?.close());

const statusOf = async (apiKey: string, tenant: Awaited<ReturnType<TestApp['createTenant']>>) =>
  (await apiFor(testApp, apiKey).post(routes.carrier, carrierBody(tenant))).status;

describe('API-key cache', () => {
  test('a rotated key works until the TTL ends and is refused after it; the new key works at once', async () => {
    const tenant = await testApp.createTenant();
    expect(await statusOf(tenant.apiKey, tenant)).toBe(200);
    const { apiKey: newKey } = await rotateApiKey(testApp.database.db, tenant.slug);
    expect(await statusOf(tenant.apiKey, tenant)).toBe(200); // still cached
    expect(await statusOf(newKey, tenant)).toBe(200);
    testApp.clock.advance(ttlMs + 1);
    expect(await statusOf(tenant.apiKey, tenant)).toBe(401);
    expect(await statusOf(newKey, tenant)).toBe(200);
  });

  test('a revoked key is refused once the TTL ends', async () => {
    const tenant = await testApp.createTenant();
    expect(await statusOf(tenant.apiKey, tenant)).toBe(200);
    await revokeApiKeys(testApp.database.db, tenant.slug);
    testApp.clock.advance(ttlMs + 1);
    expect(await statusOf(tenant.apiKey, tenant)).toBe(401);
  });
});
