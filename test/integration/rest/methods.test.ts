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
import { listen } from '../../helpers/server.js';
import { loggingApp } from '../../helpers/app.js';

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
  { path: '/console/favicon.svg' },
  { path: '/graphql', headers: { accept: 'text/html' } },
  { path: '/graphql?query=%7Bviewer%7Bslug%7D%7D', keyed: true, varies: ['ratelimit'] },
  { path: '/healthz' },
  { path: '/readyz' },
  // Its counters move between two scrapes: so does its length.
  { path: '/metrics', varies: ['content-length'] },
];

/**
 * Every path the service serves with the methods it takes, as `Allow` names them, written out here
 * from the contract (not read from the route tables).
 */
const kinds = ['carriers', 'loads', 'loadlegs', 'stops'];
const knownPaths: Record<string, string> = {
  ...Object.fromEntries(kinds.flatMap((kind) => ['upsert', 'bulk_upsert', 'delete', 'bulk_delete'].map((action) => [`/api/v1/${kind}/${action}`, 'POST']))),
  '/api/v1/loadupdates/create': 'POST',
  '/api/v1/loadupdates/bulk_create': 'POST',
  '/api/v1/openapi.json': 'GET, HEAD',
  '/': 'GET, HEAD',
  '/api/v1/docs': 'GET, HEAD',
  '/api/v1/docs/redoc.standalone.js': 'GET, HEAD',
  '/console': 'GET, HEAD',
  '/console/console.js': 'GET, HEAD',
  '/console/console.css': 'GET, HEAD',
  '/console/chart.umd.min.js': 'GET, HEAD',
  '/console/favicon.svg': 'GET, HEAD',
  '/graphql': 'GET, HEAD, POST, OPTIONS',
  '/healthz': 'GET, HEAD',
  '/readyz': 'GET, HEAD',
  '/metrics': 'GET, HEAD',
};
const everyMethod = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

const preflight = { Origin: 'http://dashboard.test', 'Access-Control-Request-Method': 'POST', 'Access-Control-Request-Headers': 'content-type, x-api-key' };

describe('methods a known path does not take', () => {
  test('the document promises 405 with Allow for every other method, OPTIONS included, and HEAD as GET', () => {
    expect(openApiDocument.info.description).toContain(
      '(`OPTIONS` included, and `HEAD` where the path takes no `GET`) answers 405 `method_not_allowed` with `Allow`',
    );
    expect(openApiDocument.info.description).toContain('`HEAD` on a `GET` path answers what `GET` would, without the body');
  });

  test('every known path answers each method it does not take with 405 in the error shape and one Allow naming each method once (real socket)', async ({
    testApp,
  }) => {
    const server = await listen(testApp);
    try {
      for (const [path, allow] of Object.entries(knownPaths)) {
        const takes = allow.split(', ');
        for (const method of everyMethod.filter((m) => !takes.includes(m))) {
          const res = await fetch(`${server.base}${path}`, { method });
          const where = `${method} ${path}`;
          expect(res.status, where).toBe(405);
          expect(res.headers.get('allow'), where).toBe(allow);
          expect(res.headers.get('x-request-id'), where).toBeTruthy();
          expect(res.headers.get('content-type'), where).toMatch(/^application\/json/);
          const text = await res.text();
          if (method === 'HEAD') expect(text, where).toBe('');
          else
            expect(JSON.parse(text), where).toEqual({ error: { code: 'method_not_allowed', message: `${method} is not allowed on ${path}; use ${allow}.` } });
        }
        // A CORS preflight on a REST path is a method it does not take like any other.
        if (!takes.includes('OPTIONS')) {
          const res = await fetch(`${server.base}${path}`, { method: 'OPTIONS', headers: preflight });
          expect(res.status, `preflight ${path}`).toBe(405);
          expect(res.headers.get('allow'), `preflight ${path}`).toBe(allow);
        }
      }
    } finally {
      await server.close();
    }
  });

  test('a refused method is logged with its status', async ({ testApp }) => {
    const { app, lines } = await loggingApp(testApp);
    await app.fetch('/console', { method: 'DELETE', headers: { 'x-request-id': 'refused-delete' } });
    await app.fetch('/healthz', { method: 'POST', headers: { 'x-request-id': 'refused-post' } });
    expect(lines.filter((l) => l.msg === 'request' && String(l.requestId).startsWith('refused-')).map((l) => [l.method, l.path, l.status])).toEqual([
      ['DELETE', '/console', 405],
      ['POST', '/healthz', 405],
    ]);
  });

  test('the list above holds every path the service registers', () => {
    const registered = [...restRoutes, ...pageRoutes, ...consoleRoutes].map((r) => r.path).concat(Object.keys(servicePaths));
    expect(registered.filter((path) => !(path in knownPaths))).toEqual([]);
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
