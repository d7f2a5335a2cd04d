/**
 * Methods a REST path does not take, OPTIONS and HEAD included, answer what the OpenAPI document
 * promises: 405 method_not_allowed with `Allow`, in the JSON error shape. CORS preflights are for
 * /graphql (browsers' GraphQL clients); REST is server-to-server.
 */
import { describe, expect, test } from '../../fixtures.js';
import { openApiDocument, restRoutes } from '../../../src/routes.js';

const preflight = { Origin: 'http://dashboard.test', 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-type, x-api-key' };

describe('methods a REST path does not take', () => {
  test('the document promises 405 with Allow for every other method, OPTIONS and HEAD included', () => {
    expect(openApiDocument.info.description).toContain('(`OPTIONS` and `HEAD` included) answers 405 `method_not_allowed` with `Allow`');
  });

  test('OPTIONS, HEAD and the rest answer 405 with Allow on every REST path, a CORS preflight too', async ({ testApp }) => {
    const byPath = new Map<string, (typeof restRoutes)[number][]>();
    for (const route of restRoutes) byPath.set(route.path, [...(byPath.get(route.path) ?? []), route]);
    expect(byPath.size).toBeGreaterThanOrEqual(6);
    for (const [path, routes] of byPath) {
      const allow = routes.map((r) => r.method).join(', ');
      const others = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD'].filter((m) => !routes.some((r) => r.method === m));
      for (const method of others) {
        const res = await testApp.fetch(path, { method });
        expect(res.status, `${method} ${path}`).toBe(405);
        expect(res.headers.get('allow'), `${method} ${path}`).toBe(allow);
        expect(res.headers.get('x-request-id')).toBeTruthy();
        if (method !== 'HEAD') expect((await res.json()).error.code).toBe('method_not_allowed');
      }
      const res = await testApp.fetch(path, { method: 'OPTIONS', headers: preflight });
      expect(res.status, `preflight ${path}`).toBe(405);
      expect(res.headers.get('allow')).toBe(allow);
      expect((await res.json()).error.code).toBe('method_not_allowed');
    }
  });

  test('OPTIONS on an unknown path is the JSON 404 like any other method', async ({ testApp }) => {
    const res = await testApp.fetch('/api/v1/trucks/upsert', { method: 'OPTIONS' });
    expect(res.status).toBe(404);
    expect((await res.json()).error.code).toBe('not_found');
  });

  test('/graphql still answers CORS preflights (204 with the CORS headers)', async ({ testApp }) => {
    const res = await testApp.fetch('/graphql', { method: 'OPTIONS', headers: preflight });
    expect(res.status).toBe(204);
    expect(res.headers.get('access-control-allow-origin')).toBe(preflight.Origin);
    expect(res.headers.get('access-control-allow-methods')).toBe('POST');
  });
});
