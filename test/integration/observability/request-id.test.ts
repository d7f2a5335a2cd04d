import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { loadBody, routes } from '../../factories/records.js';
import { apiFor, createTestApp, type Api, type TestApp, type TestTenant } from '../../helpers/app.js';

// One app for the file whose JSON log lines (debug and up) are collected.
const lines: Record<string, unknown>[] = [];
let testApp: TestApp;
let tenant: TestTenant;
let api: Api;
beforeAll(async () => {
  testApp = await createTestApp({ env: { LOG_LEVEL: 'debug' }, logStream: { write: (line: string) => void lines.push(JSON.parse(line)) } });
  tenant = await testApp.createTenant();
  api = apiFor(testApp, tenant.apiKey);
});
afterAll(() => testApp.close());

/** Runs one request and returns the log lines it wrote. */
async function linesOf<T>(request: () => Promise<T>) {
  lines.length = 0;
  const result = await request();
  return { result, written: [...lines] };
}

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('request ids', () => {
  test('a REST request echoes a sane X-Request-Id and puts it on every log line it writes', async () => {
    const { result, written } = await linesOf(() => api.post(routes.load, loadBody(tenant), { 'x-request-id': 'tms-run:42.a_b-c' }));
    expect(result.headers.get('x-request-id')).toBe('tms-run:42.a_b-c');
    expect(written.find((l) => l.msg === 'request')).toMatchObject({ method: 'POST', path: routes.load, status: 200, route: `POST ${routes.load}` });
    for (const line of written) expect(line.requestId).toBe('tms-run:42.a_b-c');
    // bound once, not twice
    expect(JSON.stringify(written[0]).match(/"requestId"/g)).toHaveLength(1);
  });

  test('replaces an unsafe or overlong X-Request-Id with a new UUID', async () => {
    for (const bad of ['has spaces', 'a'.repeat(129), 'quote"s', '']) {
      const res = await testApp.fetch('/healthz', { headers: { 'x-request-id': bad } });
      expect(res.headers.get('x-request-id')).toMatch(uuid);
    }
    const [a, b] = await Promise.all([testApp.fetch('/healthz'), testApp.fetch('/healthz')]);
    expect(a.headers.get('x-request-id')).not.toBe(b.headers.get('x-request-id'));
  });

  test('error responses carry the id too (REST 401, unknown path, GraphQL 401, /metrics)', async () => {
    const headers = { 'x-request-id': 'err-1' };
    const responses = await Promise.all([
      testApp.fetch(routes.load, { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: '{}' }),
      testApp.fetch('/nope', { headers }),
      testApp.fetch('/graphql', { method: 'POST', headers: { ...headers, 'content-type': 'application/json' }, body: '{"query":"{ viewer { slug } }"}' }),
      testApp.fetch('/metrics', { headers }),
    ]);
    expect(responses.map((r) => r.status)).toEqual([401, 404, 401, 200]);
    for (const res of responses) expect(res.headers.get('x-request-id')).toBe('err-1');
  });

  test("a GraphQL request logs one access line, and Yoga's own lines carry the id", async () => {
    const { result, written } = await linesOf(() => api.graphql('query Who { viewer { slug } }', undefined, { 'x-request-id': 'gql-1' }));
    expect(result.status).toBe(200);
    expect(result.headers.get('x-request-id')).toBe('gql-1');
    expect(written.filter((l) => l.msg === 'request')).toEqual([
      expect.objectContaining({ method: 'POST', path: '/graphql', status: 200, operation: 'Who', requestId: 'gql-1' }),
    ]);
    expect(written.some((l) => l.msg !== 'request')).toBe(true); // Yoga's debug lines
    for (const line of written) expect(line.requestId).toBe('gql-1');
  });

  test('an unexpected GraphQL error is logged with the request id and answered masked', async () => {
    const { db } = testApp.database;
    await db.sql.query('ALTER TABLE ingest_sources RENAME TO ingest_sources_away', []);
    try {
      const { result, written } = await linesOf(() => api.graphql('{ ingestHealth { sources { state } } }', undefined, { 'x-request-id': 'gql-err' }));
      expect(result.body.errors[0].message).toBe('Unexpected error.');
      expect(result.headers.get('x-request-id')).toBe('gql-err');
      const errorLine = written.find((l) => l.level === 50);
      expect(errorLine).toMatchObject({ requestId: 'gql-err', err: expect.objectContaining({ message: expect.stringContaining('ingest_sources') }) });
      for (const line of written) expect(line.requestId).toBe('gql-err');
    } finally {
      await db.sql.query('ALTER TABLE ingest_sources_away RENAME TO ingest_sources', []);
    }
  });

  test('log lines never contain the API key', async () => {
    const { written } = await linesOf(async () => {
      await api.post(routes.load, loadBody(tenant));
      await api.graphql('{ viewer { slug } }');
      await api.post(routes.load, {});
    });
    expect(written.length).toBeGreaterThan(0);
    expect(JSON.stringify(written)).not.toContain(tenant.apiKey);
  });
});
