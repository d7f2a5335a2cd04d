/**
 * GET /api/v1/openapi.json: a valid OpenAPI 3.1 document (checked by a real validator) that describes
 * every route, and whose field rules are those of the zod schemas the service validates with (the
 * expectations are read from the schemas, not written out again).
 */
import SwaggerParser from '@apidevtools/swagger-parser';
import { z } from 'zod';
import { describe, expect, test } from '../../fixtures.js';
import { errorCodes, errorStatus } from '../../../src/errors.js';
import { openApiDocument, restRoutes } from '../../../src/routes.js';
import { ErrorResponse } from '../../../src/http/schemas.js';

type Json = Record<string, any>;

const doc = openApiDocument as unknown as Json;

/** Follows a local `$ref` (`#/components/...`). */
function resolve(schema: Json): Json {
  if (typeof schema.$ref !== 'string') return schema;
  return resolve(
    schema.$ref
      .slice(2)
      .split('/')
      .reduce((node: Json, key: string) => node[key], doc),
  );
}

const operationOf = (route: { method: string; path: string }) => doc.paths[route.path][route.method.toLowerCase()] as Json;

/** Routes whose request body is one record (the contract's field tables; bulk envelopes refer to the same schemas). */
const recordRoutes = restRoutes.filter((r) => r.ingestion && r.doc.requestBody === r.ingestion.body);

/** Whether a JSON Schema admits `null`. */
const admitsNull = (schema: Json): boolean =>
  schema.type === 'null' || (Array.isArray(schema.type) && schema.type.includes('null')) || (schema.anyOf ?? []).some(admitsNull);

/** The `maxLength` of a property's string variant, if any. */
const maxLengthOf = (schema: Json): number | undefined => schema.maxLength ?? (schema.anyOf ?? []).map(maxLengthOf).find((m: unknown) => m !== undefined);

describe('GET /api/v1/openapi.json', () => {
  test('is served without an API key, as JSON, and is the document built at start-up', async ({ testApp }) => {
    const res = await testApp.fetch('/api/v1/openapi.json');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/json');
    expect(await res.json()).toEqual(JSON.parse(JSON.stringify(openApiDocument)));

    const route = restRoutes.find((r) => r.path === '/api/v1/openapi.json')!;
    const first = await route.handle({} as never);
    const second = await route.handle({} as never);
    expect(second.body).toBe(first.body); // not rebuilt per request
  });

  test('is a valid OpenAPI 3.1 document', async () => {
    expect(doc.openapi).toBe('3.1.0');
    await expect(SwaggerParser.validate(structuredClone(doc) as never)).resolves.toBeDefined();
  });

  test('describes every route with its method, and no other', () => {
    const documented = Object.entries(doc.paths as Record<string, Json>).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path}`));
    expect(documented.sort()).toEqual(restRoutes.map((r) => `${r.method} ${r.path}`).sort());
    expect(documented).toContain('POST /api/v1/loads/upsert');
    expect(documented).toContain('GET /api/v1/openapi.json');
  });

  test('requires X-API-Key on every tenant route and nowhere else', () => {
    expect(doc.components.securitySchemes.ApiKey).toEqual(expect.objectContaining({ type: 'apiKey', in: 'header', name: 'X-API-Key' }));
    for (const route of restRoutes) {
      expect(operationOf(route).security, route.path).toEqual(route.auth === 'tenant' ? [{ ApiKey: [] }] : []);
    }
  });

  test('documents the query parameters and headers each route takes', () => {
    for (const route of restRoutes) {
      const params = (operationOf(route).parameters as Json[]).map(resolve);
      const names = params.map((p) => `${p.in}:${p.name}`);
      const queryKeys = route.query ? Object.keys(route.query.shape) : [];
      expect(names.filter((n) => n.startsWith('query:')).sort(), route.path).toEqual(queryKeys.map((k) => `query:${k}`).sort());
      expect(names).toContain('header:X-Request-Id');
      expect(names.includes('header:Service-Ingest-Source'), route.path).toBe(Boolean(route.doc.ingestSource));
    }
    const source = resolve({ $ref: '#/components/parameters/ServiceIngestSource' });
    expect(source.schema.enum).toEqual(['pull', 'webhook']);
    const syncRunTime = (operationOf({ method: 'POST', path: '/api/v1/loads/upsert' }).parameters as Json[]).find((p) => p.name === 'sync_run_time')!;
    expect(syncRunTime).toMatchObject({ in: 'query', schema: { type: 'string', format: 'date-time' } });
    expect(syncRunTime.required ?? false).toBe(false);
  });

  test('gives every request-body field its x-service-importance from the zod schema', () => {
    expect(recordRoutes.length).toBeGreaterThanOrEqual(5);
    for (const route of recordRoutes) {
      const shape = (route.doc.requestBody as z.ZodObject).shape;
      const body = resolve(operationOf(route).requestBody.content['application/json'].schema);
      expect(Object.keys(body.properties).sort(), route.path).toEqual(Object.keys(shape).sort());
      for (const [field, schema] of Object.entries(shape)) {
        const importance = z.globalRegistry.get(schema as z.ZodType)?.['x-service-importance'];
        expect(['required', 'recommended', 'optional'], `${route.path} ${field}`).toContain(importance);
        expect(body.properties[field]['x-service-importance'], `${route.path} ${field}`).toBe(importance);
      }
    }
  });

  test('required, nullable and maxLength of every body field match what the zod schema accepts', () => {
    for (const route of recordRoutes) {
      const shape = (route.doc.requestBody as z.ZodObject).shape as Record<string, z.ZodType>;
      const body = resolve(operationOf(route).requestBody.content['application/json'].schema);
      for (const [field, schema] of Object.entries(shape)) {
        const property = body.properties[field];
        const where = `${route.path} ${field}`;
        expect(body.required.includes(field), where).toBe(!schema.safeParse(undefined).success);
        expect(admitsNull(property), where).toBe(schema.safeParse(null).success);
        const max = maxLengthOf(property);
        if (max !== undefined && schema.safeParse('x').success) {
          expect(schema.safeParse('x'.repeat(max)).success, where).toBe(true);
          expect(schema.safeParse('x'.repeat(max + 1)).success, where).toBe(false);
        }
      }
    }
    // The contract's examples, spelled out once as a sanity check on the derivation.
    const load = resolve(operationOf({ method: 'POST', path: '/api/v1/loads/upsert' }).requestBody.content['application/json'].schema);
    expect(load.properties.native_system_load_permalink).toMatchObject({ type: 'string', maxLength: 100, 'x-service-importance': 'required' });
    expect(admitsNull(load.properties.native_system_load_permalink)).toBe(false);
  });

  test("answers every route's errors with the catalog's statuses and the JSON error body, one example per code", () => {
    const errorBody = resolve({ $ref: '#/components/schemas/ErrorResponse' });
    expect(errorBody.properties.error.properties.code.enum.sort()).toEqual([...errorCodes].sort());

    const documented = new Set<string>();
    for (const route of restRoutes) {
      const responses = operationOf(route).responses as Record<string, Json>;
      expect(responses['200'], route.path).toBeDefined();
      // The HTTP server's own answers: no body (openapi-conformance.test.ts drives them).
      for (const status of ['408', '431']) expect(responses[status]?.content, `${route.path} ${status}`).toBeUndefined();
      for (const [status, response] of Object.entries(responses)) {
        if (status === '200' || status === '408' || status === '431') continue;
        const media = response.content['application/json'];
        expect(media.schema).toEqual({ $ref: '#/components/schemas/ErrorResponse' });
        const codes = Object.keys(media.examples);
        expect(codes.length, `${route.path} ${status}`).toBeGreaterThan(0);
        for (const code of codes as (keyof typeof errorStatus)[]) {
          expect(errorStatus[code], `${route.path} ${code}`).toBe(Number(status));
          expect(response.description).toContain(`\`${code}\``);
          expect(ErrorResponse.parse(media.examples[code].value).error.code).toBe(code);
          documented.add(code);
        }
        expect(resolve(response.headers['X-Request-Id']).schema.pattern).toBeDefined();
      }
      if (route.auth === 'tenant') expect(responses['401'], route.path).toBeDefined();
      if (route.method === 'POST') expect(Object.keys(responses), route.path).toEqual(expect.arrayContaining(['400', '413', '415']));
      for (const code of route.doc.errors ?? [])
        expect(responses[String(errorStatus[code as keyof typeof errorStatus])], `${route.path} ${code}`).toBeDefined();
    }
    // Route-level answers (unknown path, other method) are described once, in info.description.
    for (const code of ['not_found', 'method_not_allowed']) {
      expect(doc.info.description).toContain(`\`${code}\``);
      documented.add(code);
    }
    // forbidden is GraphQL's (the read-only admin key).
    const restCodes = errorCodes.filter((code) => code !== 'forbidden');
    expect([...documented].sort()).toEqual(restCodes.sort());
    const load = operationOf({ method: 'POST', path: '/api/v1/loads/upsert' }).responses;
    expect(resolve(load['503'].headers['Retry-After'])).toBeDefined();
  });

  test('a carrier (no parent) documents no 422; the kinds with parents do', () => {
    expect(operationOf({ method: 'POST', path: '/api/v1/carriers/upsert' }).responses['422']).toBeUndefined();
    for (const path of ['/api/v1/loadlegs/upsert', '/api/v1/stops/upsert', '/api/v1/loadupdates/create']) {
      expect(operationOf({ method: 'POST', path }).responses['422'], path).toBeDefined();
    }
  });

  test('has what client generators and linters ask for: servers, license, contact, described tags', () => {
    expect(doc.servers).toEqual([expect.objectContaining({ url: '/' })]);
    expect(doc.info.license).toEqual({ name: 'MIT', identifier: 'MIT' });
    expect(doc.info.contact.name).toBeTruthy();
    const used = new Set(restRoutes.flatMap((r) => r.doc.tags));
    expect(new Set((doc.tags as Json[]).map((t) => t.name))).toEqual(used);
    for (const tag of doc.tags as Json[]) expect(tag.description, tag.name).toBeTruthy();
  });

  test('the 413 example is the message the route answers: single routes name their bulk route, bulk routes say to split', () => {
    const example413 = (path: string) => operationOf({ method: 'POST', path }).responses['413'].content['application/json'].examples.payload_too_large.value;
    expect(example413('/api/v1/loads/upsert').error.message).toBe(
      'The body is larger than 1048576 bytes; send one record per request, or up to 1000 records (5242880 bytes) in one request to POST /api/v1/loads/bulk_upsert.',
    );
    expect(example413('/api/v1/loads/bulk_upsert').error.message).toBe(
      'The body is larger than 5242880 bytes; split the records over several requests (at most 1000 records each).',
    );
  });

  test('every request body and 200 response has an example the service accepts or answers', () => {
    for (const route of restRoutes) {
      const operation = operationOf(route);
      const ok = operation.responses['200'].content['application/json'];
      expect(ok.example, route.path).toBeDefined();
      if (route.doc.response) expect(route.doc.response.safeParse(ok.example).success, route.path).toBe(true);
      if (!route.doc.requestBody) continue;
      const example = operation.requestBody.content['application/json'].example;
      expect(route.doc.requestBody.safeParse(example).success, route.path).toBe(true);
      if (recordRoutes.includes(route)) expect(ok.example.permalink).toBe(example[Object.keys(example)[0]!]);
      else expect(ok.example.results[0].permalink).toBe(example.records[0][Object.keys(example.records[0])[0]!]);
    }
  });

  test('the request-body examples are accepted by the service, in the order a TMS posts them', async ({ testApp }) => {
    const { apiKey } = await testApp.createTenant({ slug: 'demo' });
    for (const route of recordRoutes) {
      const example = operationOf(route).requestBody.content['application/json'].example;
      const res = await testApp.fetch(route.path, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
        body: JSON.stringify(example),
      });
      const body = await res.json();
      expect(res.status, JSON.stringify(body)).toBe(200);
      expect(body).toEqual(operationOf(route).responses['200'].content['application/json'].example);
    }
  });

  test('every component is used', () => {
    const text = JSON.stringify({ ...doc, components: undefined });
    const componentsText = JSON.stringify(doc.components);
    for (const [section, entries] of Object.entries(doc.components as Record<string, Json>)) {
      if (section === 'securitySchemes') continue;
      for (const name of Object.keys(entries)) {
        const ref = `"#/components/${section}/${name}"`;
        expect(text.includes(ref) || componentsText.includes(ref), ref).toBe(true);
      }
    }
  });

  test('says what the service really does with X-Request-Id, timezone and sync_run_time', () => {
    const requestId = resolve({ $ref: '#/components/parameters/RequestId' });
    expect(requestId.schema.maxLength).toBeUndefined(); // any value is accepted
    expect(requestId.description).toContain('replaced by a new UUID');
    const stop = resolve(operationOf({ method: 'POST', path: '/api/v1/stops/upsert' }).requestBody.content['application/json'].schema);
    expect(stop.properties.timezone.description).toContain('IANA');
    expect(stop.properties.timezone.description).toContain('400');
    const syncRunTime = (operationOf({ method: 'POST', path: '/api/v1/loads/upsert' }).parameters as Json[]).find((p) => p.name === 'sync_run_time')!;
    expect(syncRunTime.description).toContain('more than 5 minutes ahead of the service clock');
  });

  test("shows date-times as ISO 8601 (format date-time, UTC), not zod's regex; the service still refuses what the regex refused", async ({ api }) => {
    const syncRunTime = (operationOf({ method: 'POST', path: '/api/v1/loads/upsert' }).parameters as Json[]).find((p) => p.name === 'sync_run_time')!;
    expect(syncRunTime.schema).toMatchObject({ type: 'string', format: 'date-time' });
    expect(syncRunTime.description).toMatch(/^Time the caller's sync run started: ISO 8601, UTC/);
    const stop = resolve(operationOf({ method: 'POST', path: '/api/v1/stops/upsert' }).requestBody.content['application/json'].schema);
    const appointment = stop.properties.appointment_start as Json;
    expect((appointment.anyOf as Json[] | undefined)?.find((s) => s.type === 'string') ?? appointment).toMatchObject({ format: 'date-time' });
    expect(JSON.stringify(doc)).not.toMatch(/"pattern":"[^"]*\\d\{4\}-/);
    for (const bad of ['2026-02-30T10:00:00Z', '2026-11-23 10:00:00Z', '2026-11-23T10:00:00']) {
      const res = await api.post(`/api/v1/loads/upsert?sync_run_time=${encodeURIComponent(bad)}`, {
        native_system_load_permalink: 'L1-x',
        native_system_load_id: 'L1',
      });
      expect(res.status, bad).toBe(400);
      expect(JSON.stringify(res.body.error.details), bad).toContain('sync_run_time');
    }
  });
});
