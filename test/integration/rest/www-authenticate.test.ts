/**
 * Every 401 carries `WWW-Authenticate` (RFC 9110 §11.6.1): the challenge names the scheme the service
 * takes, an API key in the `X-API-Key` header. REST routes and GraphQL alike, for a missing, an
 * unknown and a revoked key.
 */
import { revokeApiKeys } from '../../../src/domain/tenant/service.js';
import { restRoutes } from '../../../src/routes.js';
import { describe, expect, test } from '../../fixtures.js';

/** The challenge, as the documentation states it (docs/reference/errors.md). */
const challenge = 'ApiKey realm="tms-ingest", header="X-API-Key"';

describe('WWW-Authenticate on every 401', () => {
  test('REST: every keyed route answers its 401s with the challenge', async ({ testApp, tenant }) => {
    await revokeApiKeys(testApp.database.db, tenant.slug);
    const keyed = restRoutes.filter((route) => route.auth === 'tenant');
    expect(keyed.length).toBeGreaterThan(10);
    for (const route of keyed) {
      for (const key of [null, 'tms_unknown', tenant.apiKey]) {
        const res = await testApp.fetch(route.path, {
          method: route.method,
          headers: { 'content-type': 'application/json', ...(key === null ? {} : { 'x-api-key': key }) },
          body: '{}',
        });
        expect(res.status, `${route.method} ${route.path} with key ${key}`).toBe(401);
        expect(res.headers.get('www-authenticate'), `${route.method} ${route.path}`).toBe(challenge);
        expect((await res.json()).error.code).toBe('unauthenticated');
      }
    }
  });

  test('GraphQL: a query without a key, with an unknown one and with a revoked one answers 401 with the challenge', async ({ testApp, tenant }) => {
    await revokeApiKeys(testApp.database.db, tenant.slug);
    for (const key of [null, 'tms_unknown', tenant.apiKey]) {
      const res = await testApp.fetch('/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(key === null ? {} : { 'x-api-key': key }) },
        body: JSON.stringify({ query: '{ viewer { slug } }' }),
      });
      expect(res.status, `key ${key}`).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe(challenge);
      expect((await res.json()).errors[0].extensions.code).toBe('unauthenticated');
    }
  });

  test('other errors carry no challenge (a 400 of a known key)', async ({ testApp, tenant }) => {
    const res = await testApp.fetch(restRoutes.find((r) => r.auth === 'tenant')!.path, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': tenant.apiKey },
      body: '{"not json',
    });
    expect(res.status).toBe(400);
    expect(res.headers.get('www-authenticate')).toBeNull();
  });
});
