/**
 * The served OpenAPI document against real answers (issue 16): every REST route is driven to each
 * answer it documents that a client can cause — success (single and bulk, with and without a rate
 * limit), every 4xx, and 500 (a record the database refuses) — and each answer must be a documented
 * status whose headers (required ones present, present ones valid) and JSON body validate against
 * that response's schemas (ajv, JSON Schema 2020-12, as OpenAPI 3.1). A status a route can answer but
 * the document leaves out, or a schema the answers break, fails here: the document cannot drift from
 * the behaviour. The answers Node's server gives before the app reads a request (400 for a control
 * byte in a header, 431, 408) are driven over a real socket for every operation. Only 503 is left to
 * the failure tests (it needs the database gone or an overload).
 */
import SwaggerParser from '@apidevtools/swagger-parser';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsPlugin from 'ajv-formats';
import { beforeAll, onTestFinished } from 'vitest';
import { setRateLimit } from '../../../src/domain/tenant/service.js';
import { openApiDocument, restRoutes } from '../../../src/routes.js';
import type { Route } from '../../../src/http/route.js';
import { describe, expect, test } from '../../fixtures.js';
import { bodyMaker, routes } from '../../factories/records.js';
import { apiFor, type TestApp, type TestTenant } from '../../helpers/app.js';
import { rawConnection, serve, type RawAnswer } from '../../helpers/raw-http.js';

type Json = Record<string, any>;

const ajv = new Ajv2020({ strict: false, allErrors: true });
(addFormatsPlugin as unknown as (a: Ajv2020) => void)(ajv);

let doc: Json;

beforeAll(async () => {
  // References resolved; the first test checks that this is the document the service serves.
  doc = await SwaggerParser.dereference(structuredClone(openApiDocument) as never);
});

/** Answers checked, by route and status (every documented status but 503 must be reached). */
const reached = new Map<string, Set<string>>();

/** Checks one real answer against the operation's documented response. */
async function conforms(route: Route, res: Response, label: string) {
  const op = doc.paths[route.path][route.method.toLowerCase()] as Json;
  const where = `${route.method} ${route.path} (${label}) → ${res.status}`;
  const documented = op.responses[String(res.status)] as Json | undefined;
  const text = await res.text();
  expect(documented, `${where} is not documented: ${text.slice(0, 300)}`).toBeDefined();
  reached.set(`${route.method} ${route.path}`, (reached.get(`${route.method} ${route.path}`) ?? new Set()).add(String(res.status)));
  for (const [name, header] of Object.entries<Json>(documented!.headers ?? {})) {
    const value = res.headers.get(name);
    if (header.required) expect(value, `${where}: required header ${name}`).not.toBeNull();
    if (value === null) continue;
    const typed = header.schema?.type === 'integer' || header.schema?.type === 'number' ? Number(value) : value;
    const validate = ajv.compile(header.schema);
    expect(validate(typed), `${where}: header ${name}: ${value} ${JSON.stringify(validate.errors)}`).toBe(true);
  }
  if (!documented!.content) {
    expect(text, `${where}: documented without a body`).toBe('');
    return null;
  }
  expect(res.headers.get('content-type'), where).toMatch(/^application\/json/);
  const schema = documented!.content?.['application/json']?.schema;
  expect(schema, `${where}: no JSON schema`).toBeDefined();
  const validate = ajv.compile(schema);
  const body = JSON.parse(text);
  expect(validate(body), `${where}: ${JSON.stringify(validate.errors)} ${text.slice(0, 300)}`).toBe(true);
  return body;
}

/** A raw answer as a fetch Response (its header lines parsed). */
function toResponse(answer: RawAnswer): Response {
  const headers = new Headers();
  for (const line of answer.head.split('\r\n').slice(1)) {
    const colon = line.indexOf(':');
    headers.append(line.slice(0, colon), line.slice(colon + 1).trim());
  }
  return new Response(answer.body || null, { status: answer.status, headers });
}

/**
 * The answers Node's server gives before the app reads a request, each checked against the route's
 * document: a control byte in a header (400), a header section over 16 KiB (431), headers that never
 * end (408, from a server whose headers timeout is one second).
 */
async function transportAnswers(testApp: TestApp, route: Route) {
  const { port } = await serve(testApp, { headersTimeout: 1000, requestTimeout: 1000, connectionsCheckingInterval: 100 });
  const start = `${route.method} ${route.path} HTTP/1.1\r\nHost: tms\r\n`;
  const cases = {
    'a control byte in a header': `${start}X-Request-Id: \x11\r\n\r\n`,
    'a header section over 16 KiB': `${start}X-Padding: ${'x'.repeat(17 * 1024)}\r\n\r\n`,
    'headers that never end': start,
  };
  await Promise.all(
    Object.entries(cases).map(async ([label, request]) => {
      const connection = rawConnection(port);
      onTestFinished(() => connection.destroy());
      connection.send(request);
      await conforms(route, toResponse(await connection.next()), label);
    }),
  );
}

const ingestionRoutes = restRoutes.filter((r) => r.ingestion);

/** A tenant limited to one record per second with a bucket of five (set before its key is first looked up and cached). */
async function limitedTenant(testApp: TestApp): Promise<TestTenant> {
  const tenant = await testApp.createTenant();
  await setRateLimit(testApp.database.db, tenant.slug, 1, 5);
  return tenant;
}

describe('the served OpenAPI document matches real answers, headers included', () => {
  test('GET /api/v1/openapi.json', async ({ testApp }) => {
    const res = await testApp.fetch('/api/v1/openapi.json');
    expect(await res.clone().json()).toEqual(JSON.parse(JSON.stringify(openApiDocument)));
    const route = restRoutes.find((r) => r.path === '/api/v1/openapi.json')!;
    await conforms(route, res, 'success');
    await transportAnswers(testApp, route);
    // 500 cannot be caused: the document is built at start-up and served as is.
    const documented = Object.keys((doc.paths[route.path].get as Json).responses).filter((status) => status !== '503' && status !== '500');
    expect([...(reached.get(`GET ${route.path}`) ?? [])].sort(), `statuses of GET ${route.path} reached`).toEqual(documented.sort());
  });

  test.for(ingestionRoutes.map((route) => [`${route.method} ${route.path}`, route] as const))(
    '%s',
    { timeout: 120_000 },
    async ([, route], { testApp, tenant }) => {
      const spec = route.ingestion!.spec;
      const bulk = route.path === route.ingestion!.rest.bulkPath;
      const api = apiFor(testApp, tenant.apiKey);
      const make = await bodyMaker(api, tenant);
      const wrap = (records: unknown[]) => (bulk ? { records } : records[0]);
      const post = (key: string | null, body: string, headers: Record<string, string> = {}, query = '') =>
        testApp.fetch(`${route.path}${query}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', ...(key ? { 'x-api-key': key } : {}), ...headers },
          body,
        });
      const json = (value: unknown) => JSON.stringify(value);

      // 200: with the default limit (RateLimit headers), then without one (no RateLimit headers).
      const ok = await post(tenant.apiKey, json(wrap([make(spec.kind), make(spec.kind), { ...make(spec.kind), [spec.permalinkField]: 5 }])));
      expect(ok.headers.get('ratelimit-policy')).not.toBeNull();
      await conforms(route, ok, 'success, limited tenant');
      const unlimited = await testApp.createTenant();
      await setRateLimit(testApp.database.db, unlimited.slug, 0);
      const free = await bodyMaker(apiFor(testApp, unlimited.apiKey), unlimited);
      const okFree = await post(unlimited.apiKey, json(wrap([free(spec.kind)])));
      expect(okFree.status).toBe(200);
      expect(okFree.headers.get('ratelimit-policy')).toBeNull();
      await conforms(route, okFree, 'success, tenant without a limit');

      // 400: a field, the JSON, sync_run_time; 401; 403; 413; 415.
      await conforms(route, await post(tenant.apiKey, json(bulk ? { records: 'x' } : {})), 'validation_failed');
      await conforms(route, await post(tenant.apiKey, '{"not json'), 'invalid_json');
      if (route.ingestion!.syncRunTime === 'honoured')
        await conforms(route, await post(tenant.apiKey, json(wrap([make(spec.kind)])), {}, '?sync_run_time=yesterday'), 'sync_run_time');
      await conforms(route, await post(tenant.apiKey, json(wrap([make(spec.kind)])), { 'service-ingest-source': 'fax' }), 'Service-Ingest-Source');
      await conforms(route, await post(null, json(wrap([make(spec.kind)]))), 'unauthenticated');
      if (!bulk) await conforms(route, await post(tenant.apiKey, json(make(spec.kind, { company_permalink: 'someone-else' }))), 'tenant_mismatch');
      await conforms(route, await post(tenant.apiKey, json({ big: 'x'.repeat((bulk ? 5 : 1) * 1024 * 1024 + 1) })), 'payload_too_large');
      await conforms(route, await post(tenant.apiKey, json(wrap([make(spec.kind)])), { 'content-type': 'text/plain' }), 'unsupported_media_type');
      // 422: a parent that does not exist (single routes; a bulk record's 422 is its result).
      const parent = spec.parents.find((p) => p.required);
      if (parent && !bulk)
        await conforms(route, await post(tenant.apiKey, json(make(spec.kind, { [parent.field]: `NOPE-${tenant.slug}` }))), 'parent_not_found');

      // 429: a tenant whose bucket holds five records (three seed its parents), sent ten requests at once.
      const limited = await limitedTenant(testApp);
      const limitedMake = await bodyMaker(apiFor(testApp, limited.apiKey), limited);
      const burst = await Promise.all(Array.from({ length: 10 }, () => post(limited.apiKey, json(wrap([limitedMake(spec.kind)])))));
      expect(burst.map((res) => res.status)).toContain(429);
      for (const res of burst) await conforms(route, res, res.status === 429 ? 'rate_limited' : 'limited tenant');

      // 500: a request of one record the database refuses (a CHECK constraint of this test's database).
      // A delete writes only a stored record: it is stored first, and its tombstone is what is refused.
      const deletes = route.ingestion!.action === 'delete';
      const refusedBody = make(spec.kind);
      refusedBody[spec.permalinkField] = `${deletes ? 'UNDELETABLE' : 'REFUSED'}${String(refusedBody[spec.permalinkField])}`;
      if (deletes) expect((await api.post(routes[spec.kind], refusedBody)).status).toBe(200);
      const refused = deletes ? `deleted_at IS NULL OR permalink NOT LIKE 'UNDELETABLE%'` : `permalink NOT LIKE 'REFUSED%'`;
      await testApp.database.db.sql.query(
        `DO $$ BEGIN ALTER TABLE ${spec.table} ADD CONSTRAINT ${spec.table}_conformance${deletes ? '_delete' : ''} CHECK (${refused}); EXCEPTION WHEN duplicate_object THEN NULL; END $$`,
        [],
      );
      await conforms(route, await post(tenant.apiKey, json(wrap([refusedBody]))), 'internal');
      await transportAnswers(testApp, route);

      const documented = Object.keys((doc.paths[route.path].post as Json).responses).filter((status) => status !== '503');
      expect([...(reached.get(`POST ${route.path}`) ?? [])].sort(), `statuses of POST ${route.path} reached`).toEqual(documented.sort());
    },
  );
});
