/**
 * The pipeline every ingestion route shares (Unkey's "common route behaviour" idea): authentication,
 * routing (404/405), content type, size, JSON, Service-Ingest-Source, error body shape and request ids.
 */
import { revokeApiKeys, rotateApiKey } from '../../../src/domain/tenant/service.js';
import { describe, expect, test } from '../../fixtures.js';
import { recordSpecs } from '../../../src/domain/registry.js';
import { bulkRestPath, restPath } from '../../../src/domain/declaration/record.js';
import { bodyMaker, fullBodies, routes } from '../../factories/records.js';
import type { Api, ApiResponse, TestTenant } from '../../helpers/app.js';
import { expectInvalid, expectProcessed } from './field-rules.js';

/** Every ingestion route of the registry with a valid body. */
const ingestionRoutes = recordSpecs.map((spec) => ({
  path: restPath(spec),
  bulkPath: bulkRestPath(spec),
  body: async (api: Api, tenant: TestTenant) => (await bodyMaker(api, tenant, 'full'))(spec.kind),
}));

/** Every non-200 answer: JSON `{ error: { code, message, details? } }` with the catalog's status. */
function expectError(res: ApiResponse, status: number, code: string) {
  expect(res.status, JSON.stringify(res.body)).toBe(status);
  expect(res.headers.get('content-type')).toMatch(/^application\/json/);
  expect(res.body).toEqual({ error: { code, message: expect.any(String), ...(res.body.error?.details ? { details: expect.any(Array) } : {}) } });
  expect(res.body.error.message.length).toBeGreaterThan(0);
  for (const d of res.body.error.details ?? []) expect(Object.keys(d).sort()).toEqual(['field', 'issue']);
}

const raw = (testApp: { fetch(path: string, init?: RequestInit): Promise<Response> }) => async (path: string, init: RequestInit) => {
  const res = await testApp.fetch(path, init);
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : null } as ApiResponse;
};

for (const route of ingestionRoutes) {
  describe(`common behaviour of POST ${route.path}`, () => {
    test('answers 401 unauthenticated without X-API-Key, with an unknown key, and with a revoked key; nothing is stored', async ({ api, tenant, testApp }) => {
      const body = await route.body(api, tenant);
      const post = raw(testApp);
      const json = JSON.stringify(body);
      expectError(await post(route.path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: json }), 401, 'unauthenticated');
      expectError(
        await post(route.path, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': 'tms_unknown' }, body: json }),
        401,
        'unauthenticated',
      );
      expectError(
        await post(route.path, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': '' }, body: json }),
        401,
        'unauthenticated',
      );

      const { apiKey: newKey } = await rotateApiKey(testApp.database.db, tenant.slug);
      expectError(await api.post(route.path, body), 401, 'unauthenticated');
      await revokeApiKeys(testApp.database.db, tenant.slug);
      expectError(
        await post(route.path, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': newKey }, body: json }),
        401,
        'unauthenticated',
      );
    });

    test('answers 405 method_not_allowed with Allow: POST for other methods', async ({ api }) => {
      for (const method of ['GET', 'PUT', 'DELETE', 'PATCH']) {
        const res = await api.call(method, route.path, method === 'GET' || method === 'DELETE' ? undefined : {});
        expectError(res, 405, 'method_not_allowed');
        expect(res.headers.get('allow')).toBe('POST');
      }
    });

    test('answers 415 unsupported_media_type for a body not declared as JSON', async ({ api, tenant, testApp }) => {
      const json = JSON.stringify(await route.body(api, tenant));
      for (const type of ['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/jsonp']) {
        expectError(await api.post(route.path, json, { 'content-type': type }), 415, 'unsupported_media_type');
      }
      const post = raw(testApp);
      expectError(await post(route.path, { method: 'POST', headers: { 'x-api-key': tenant.apiKey }, body: new Blob([json]) }), 415, 'unsupported_media_type');
      expectProcessed(await api.post(route.path, json, { 'content-type': 'Application/JSON; charset=utf-8' }));
    });

    test('answers 413 payload_too_large for a body over 1 MiB, declared or streamed; 1 MiB exactly is read', async ({ api, tenant, testApp }) => {
      const body = await route.body(api, tenant);
      const padded = (size: number) => {
        const text = JSON.stringify({ ...body, tms_padding: '' });
        return text.replace('"tms_padding":""', `"tms_padding":"${'x'.repeat(size - text.length)}"`);
      };
      expectProcessed(await api.post(route.path, padded(1_048_576)));
      const tooLarge = await api.post(route.path, padded(1_048_577));
      expectError(tooLarge, 413, 'payload_too_large');
      // The message names this kind's bulk route, which takes the records in one request.
      expect(tooLarge.body.error.message).toBe(
        `The body is larger than 1048576 bytes; send one record per request, or up to 1000 records (5242880 bytes) in one request to POST ${route.bulkPath}.`,
      );
      const post = raw(testApp);
      const bytes = new TextEncoder().encode(padded(1_048_577));
      const stream = new ReadableStream({
        start(controller) {
          for (let i = 0; i < bytes.length; i += 65_536) controller.enqueue(bytes.slice(i, i + 65_536));
          controller.close();
        },
      });
      const streamed = await post(route.path, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': tenant.apiKey },
        body: stream,
        duplex: 'half',
      } as RequestInit);
      expectError(streamed, 413, 'payload_too_large');
      const declared = await post(route.path, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': tenant.apiKey, 'content-length': '5000000' },
        body: '{}',
      });
      expectError(declared, 413, 'payload_too_large');
    });

    test('answers 400 invalid_json for malformed JSON, a non-object, invalid UTF-8 and deep nesting; accepts a UTF-8 BOM', async ({ api, tenant, testApp }) => {
      for (const text of ['{', '{"a":1,}', '', 'null', '[]', '"x"', '42', 'true', `[${JSON.stringify(await route.body(api, tenant))}]`]) {
        expectError(await api.post(route.path, text), 400, 'invalid_json');
      }
      const body = await route.body(api, tenant);
      const deep = JSON.stringify(body).replace(/}$/, `,"tms_deep":${'['.repeat(64)}${']'.repeat(64)}}`);
      expectError(await api.post(route.path, deep), 400, 'invalid_json');
      const post = raw(testApp);
      const headers = { 'content-type': 'application/json', 'x-api-key': tenant.apiKey };
      const json = new TextEncoder().encode(JSON.stringify(body));
      const badUtf8 = new Uint8Array([...json.slice(0, -1), ...new TextEncoder().encode(',"tms_x":"'), 0xff, 0xfe, 0x22, 0x7d]);
      expectError(await post(route.path, { method: 'POST', headers, body: badUtf8 }), 400, 'invalid_json');
      expectProcessed(await post(route.path, { method: 'POST', headers, body: new Uint8Array([0xef, 0xbb, 0xbf, ...json]) }));
      const nested = JSON.stringify(await route.body(api, tenant)).replace(/}$/, `,"tms_deep":${'['.repeat(63)}${']'.repeat(63)}}`);
      expectProcessed(await api.post(route.path, nested));
    });

    test('Service-Ingest-Source: pull and webhook in any case, or absent, are accepted; anything else is a 400 naming the header', async ({ api, tenant }) => {
      for (const source of ['pull', 'webhook', 'PULL', ' Webhook ']) {
        expectProcessed(await api.post(route.path, await route.body(api, tenant), { 'service-ingest-source': source }));
      }
      expectProcessed(await api.post(route.path, await route.body(api, tenant)));
      for (const source of ['push', 'poll', 'pull,webhook', '']) {
        expectInvalid(await api.post(route.path, await route.body(api, tenant), { 'service-ingest-source': source }), 'Service-Ingest-Source');
      }
    });

    test('echoes a sane X-Request-Id on success and on errors, and makes one up otherwise', async ({ api, tenant }) => {
      const ok = await api.post(route.path, await route.body(api, tenant), { 'x-request-id': 'tms-run-42:7' });
      expect(ok.headers.get('x-request-id')).toBe('tms-run-42:7');
      const bad = await api.post(route.path, '{', { 'x-request-id': 'tms-run-42:8' });
      expect(bad.headers.get('x-request-id')).toBe('tms-run-42:8');
      const made = await api.post(route.path, '{', { 'x-request-id': 'no spaces <allowed>' });
      expect(made.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
    });
  });
}

describe('routing', () => {
  test('unknown paths answer the JSON 404 not_found, with or without a key', async ({ api, testApp }) => {
    // (GET / is the landing page: test/integration/rest/pages.test.ts; POST / a 405: methods.test.ts)
    for (const path of ['/api/v1/trucks/upsert', '/api/v1/loads/upsert/', '/api/v2/loads/upsert', '/API/V1/LOADS/UPSERT', '/nope']) {
      expectError(await api.post(path, {}), 404, 'not_found');
      expectError(await raw(testApp)(path, { method: 'GET' }), 404, 'not_found');
    }
  });

  test('the 404 message points to GET /, the start page, which answers', async ({ testApp }) => {
    const res = await raw(testApp)('/api/v1/trucks/upsert', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(res.body).toEqual({
      error: {
        code: 'not_found',
        message: 'No route /api/v1/trucks/upsert. See GET / for what this service serves (console, GraphiQL, API reference, OpenAPI document, health).',
      },
    });
    expect((await testApp.fetch('/', { method: 'GET' })).status).toBe(200);
  });

  test('a query string does not change the route', async ({ api, tenant }) => {
    expectProcessed(await api.post(`${routes.carrier}?dry_run=false`, fullBodies.carrier(tenant)));
    expect((await api.get('/api/v1/openapi.json?v=2')).body.openapi).toBe('3.1.0');
  });

  test('checks in contract order: unknown route, then method, then key, then content type, then JSON', async ({ testApp }) => {
    const post = raw(testApp);
    expectError(await post('/api/v1/nope', { method: 'GET' }), 404, 'not_found');
    expectError(await post(routes.load, { method: 'GET' }), 405, 'method_not_allowed');
    expectError(await post(routes.load, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: '{' }), 401, 'unauthenticated');
  });
});
