/**
 * Issue 20: ingest health keeps each rejection's field issues and the rejected body (cut past 16 KiB
 * of JSON text, marked `bodyTruncated`), for REST and GraphQL, single and bulk; bodies never reach
 * another tenant.
 */
import { maxRejectedBodyChars } from '../../../src/domain/ingest-health/recorder.js';
import { describe, expect, test } from '../../fixtures.js';
import { loadBody, routes } from '../../factories/records.js';
import { toInput } from '../../factories/graphql.js';
import type { Api } from '../../helpers/app.js';

interface Rejection {
  code: string;
  field: string | null;
  permalink: string | null;
  details: { field: string; issue: string }[] | null;
  body: unknown;
  bodyTruncated: boolean;
}

async function rejections(api: Api): Promise<Rejection[]> {
  const res = await api.graphql(`{ ingestHealth { recentRejections { code field permalink details { field issue } body bodyTruncated } } }`);
  expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
  return res.body.data.ingestHealth.recentRejections as Rejection[];
}

describe('recentRejections: details and body', () => {
  test('a rejected REST record keeps every field issue and its body as sent', async ({ api, tenant }) => {
    const body = loadBody(tenant, { native_system_load_status: 5, bol_number: 7, tms_note: { deep: [1, 'two'] } });
    const res = await api.post(routes.load, body);
    expect(res.status).toBe(400);
    const [rejection] = await rejections(api);
    expect(rejection).toEqual({
      code: 'validation_failed',
      field: res.body.error.details[0].field,
      permalink: body.native_system_load_permalink,
      details: res.body.error.details,
      body,
      bodyTruncated: false,
    });
    expect(rejection!.details!.map((d) => d.field).sort()).toEqual(['bol_number', 'native_system_load_status']);
  });

  test('a rejected GraphQL input keeps the REST body it stands for', async ({ api, tenant }) => {
    const body = loadBody(tenant);
    const input = toInput({ ...body, native_system_load_permalink: 'no-suffix' });
    const res = await api.graphql(`mutation ($input: LoadInput!) { upsertLoad(input: $input) { status } }`, { input });
    expect(res.body.errors[0].extensions.code).toBe('validation_failed');
    const [rejection] = await rejections(api);
    expect(rejection!.body).toMatchObject({ native_system_load_permalink: 'no-suffix', bol_number: body.bol_number });
    expect(rejection!.details).toEqual([{ field: 'native_system_load_permalink', issue: expect.stringContaining(tenant.slug) }]);
  });

  test('a bulk request keeps each rejected record with its own body; an envelope rejected whole keeps the envelope', async ({ api, tenant }) => {
    const good = loadBody(tenant);
    const bad = loadBody(tenant, { bol_number: 1 });
    await api.post('/api/v1/loads/bulk_upsert', { records: [good, bad] });
    expect((await rejections(api)).map((r) => r.body)).toEqual([bad]);
    await api.post('/api/v1/loads/bulk_upsert', { records: 'none' });
    const [envelope] = await rejections(api);
    expect(envelope).toMatchObject({ code: 'validation_failed', body: { records: 'none' }, details: [{ field: 'records', issue: expect.any(String) }] });
  });

  test(`a body over ${maxRejectedBodyChars} characters of JSON is kept cut, as a string, with bodyTruncated`, async ({ api, tenant }) => {
    const body = loadBody(tenant, { bol_number: 'x'.repeat(40_000) });
    expect((await api.post(routes.load, body)).status).toBe(400);
    const [rejection] = await rejections(api);
    expect(rejection!.bodyTruncated).toBe(true);
    expect(typeof rejection!.body).toBe('string');
    expect(rejection!.body).toBe(JSON.stringify(body).slice(0, maxRejectedBodyChars));
  });

  test('a body jsonb cannot hold (NUL, a lone surrogate) is kept with U+FFFD in their place', async ({ api, tenant }) => {
    const body = loadBody(tenant, { bol_number: 'a\u0000b', ['k\uD800']: 'c\uDC00' });
    expect((await api.post(routes.load, body)).status).toBe(400);
    const [rejection] = await rejections(api);
    expect(rejection!.body).toMatchObject({ bol_number: 'a\uFFFDb', ['k\uFFFD']: 'c\uFFFD' });
  });

  test('an unreadable body (invalid JSON) is a rejection without a body', async ({ api }) => {
    await api.post(routes.load, '{"native_system_load_permalink": ');
    const [rejection] = await rejections(api);
    expect(rejection).toMatchObject({ code: 'invalid_json', body: null, bodyTruncated: false, details: null });
  });

  test("another tenant's rejected bodies never show", async ({ api, otherApi, tenant }) => {
    const body = loadBody(tenant, { bol_number: 1, customer_name: 'secret customer' });
    await api.post(routes.load, body);
    expect((await rejections(api))[0]!.body).toEqual(body);
    expect(JSON.stringify(await rejections(otherApi))).not.toContain('secret customer');
    expect(await rejections(otherApi)).toEqual([]);
  });
});
