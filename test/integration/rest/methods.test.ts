/**
 * Methods a REST path does not take, OPTIONS included (and HEAD where the path takes no GET), answer
 * what the OpenAPI document promises: 405 method_not_allowed with `Allow`, in the JSON error shape.
 * HEAD on every GET resource answers the GET's status and headers without a body (RFC 9110 §9.3.2).
 * CORS preflights are for /graphql (browsers' GraphQL clients); REST is server-to-server.
 */
import { describe, expect, test } from '../../fixtures.js';
import { openApiDocument, restRoutes } from '../../../src/routes.js';
import { pageRoutes } from '../../../src/http/pages.js';
import { consoleRoutes } from '../../../src/http/console.js';
import { servicePaths } from '../../../src/http/paths.js';

/**
 * Every GET resource the service serves, written out here (not read from the route tables): the
 * headers to ask with, and the headers whose value may differ between two requests.
 */
const getResources: { path: string; headers?: Record<string, string>; keyed?: boolean; varies?: string[] }[] = [
  { path: '/', headers: { accept: 'text/html' } },
  { path: '/', headers: { accept: 'application/json' } },
  { path: '/api/v1/docs' },
  { path: '/api/v1/docs/redoc.standalone.js' },
  { path: '/api/v1/openapi.json' },
  { path: '/console' },
  { path: '/console/console.js' },
  { path: '/console/console.css' },
  { path: '/console/chart.umd.min.js' },
  { path: '/graphql', headers: { accept: 'text/html' } },
  { path: '/graphql?query=%7Bviewer%7Bslug%7D%7D', keyed: true, varies: ['ratelimit'] },
  { path: '/healthz' },
  { path: '/readyz' },
  // Its counters move between two scrapes: so does its length.
  { path: '/metrics', varies: ['content-length'] },
];

const preflight = { Origin: 'http://dashboard.test', 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-type, x-api-key' };

describe('methods a REST path does not take', () => {
  test('the document promises 405 with Allow for every other method, OPTIONS included, and HEAD as GET', () => {
    expect(openApiDocument.info.description).toContain(
      '(`OPTIONS` included, and `HEAD` where the path takes no `GET`) answers 405 `method_not_allowed` with `Allow`',
    );
    expect(openApiDocument.info.description).toContain('`HEAD` on a `GET` path answers what `GET` would, without the body');
  });

  test('OPTIONS, HEAD (without GET) and the rest answer 405 with Allow on every REST path, a CORS preflight too', async ({ testApp }) => {
    const byPath = new Map<string, (typeof restRoutes)[number][]>();
    for (const route of restRoutes) byPath.set(route.path, [...(byPath.get(route.path) ?? []), route]);
    expect(byPath.size).toBeGreaterThanOrEqual(6);
    for (const [path, routes] of byPath) {
      const takes = routes.flatMap((r) => (r.method === 'GET' ? ['GET', 'HEAD'] : [r.method]));
      const allow = takes.join(', ');
      const others = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD'].filter((m) => !takes.includes(m));
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

  test("HEAD on every GET resource answers the GET's status and headers, without a body", async ({ testApp, tenant }) => {
    for (const resource of getResources) {
      const ask = (method: string) =>
        testApp.fetch(resource.path, {
          method,
          headers: { 'x-request-id': 'head-test', ...(resource.keyed ? { 'x-api-key': tenant.apiKey } : {}), ...resource.headers },
        });
      const head = await ask('HEAD');
      const get = await ask('GET');
      const where = `${resource.path} ${JSON.stringify(resource.headers ?? {})}`;
      expect(get.status, where).toBe(200);
      expect(head.status, where).toBe(get.status);
      expect(await head.text(), where).toBe('');
      const headers = (res: Response) =>
        [...res.headers].map(([name, value]) => [name, resource.varies?.some((v) => name.startsWith(v)) ? '(varies)' : value]).sort();
      expect(headers(head), where).toEqual(headers(get));
    }
  });

  test('the list above holds every GET path the service registers', () => {
    const listed = new Set(getResources.map((r) => r.path.split('?')[0]));
    const registered = [
      ...restRoutes.filter((r) => r.method === 'GET').map((r) => r.path),
      ...pageRoutes.map((r) => r.path),
      ...consoleRoutes.map((r) => r.path),
      ...Object.keys(servicePaths),
    ];
    expect(registered.filter((path) => !listed.has(path))).toEqual([]);
  });

  test('405 answers name HEAD beside GET in Allow (/metrics and GraphQL too)', async ({ testApp }) => {
    expect((await testApp.fetch('/metrics', { method: 'POST' })).headers.get('allow')).toBe('GET, HEAD');
    expect((await testApp.fetch('/graphql', { method: 'PUT' })).headers.get('allow')).toBe('GET, HEAD, POST');
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
