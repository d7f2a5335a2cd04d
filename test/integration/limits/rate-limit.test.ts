/**
 * Per-tenant rate limits through the HTTP surface: the ingestion token bucket counted in records
 * (REST and GraphQL mutations share it), the GraphQL query bucket, per-tenant settings, the IETF
 * RateLimit headers, 429 in the contract's shape, /metrics and the OpenAPI document. In memory here
 * (the app's clock drives refills); Redis is covered in redis.test.ts.
 */
import { afterAll, beforeAll } from 'vitest';
import { describe, expect, test } from 'vitest';
import { setRateLimit } from '../../../src/domain/tenant/service.js';
import { carrierBody, routes } from '../../factories/records.js';
import { toInput } from '../../factories/graphql.js';
import { apiFor, createTestApp, type TestApp, type TestTenant } from '../../helpers/app.js';

let testApp: TestApp;
beforeAll(async () => {
  testApp = await createTestApp({
    env: { RATE_LIMIT_RECORDS_PER_SECOND: '2', RATE_LIMIT_BURST: '3', RATE_LIMIT_QUERIES_PER_SECOND: '1', RATE_LIMIT_QUERY_BURST: '2' },
  });
  // Buckets refill with the app's clock: frozen, only `advance` refills them (a slow machine cannot).
  testApp.clock.freeze();
}, 180_000);
afterAll(() => testApp?.close());

const upsertCarrier = /* GraphQL */ `
  mutation ($input: CarrierInput!) { upsertCarrier(input: $input) { status permalink } }
`;

async function tenantApi() {
  const tenant = await testApp.createTenant();
  return { tenant, api: apiFor(testApp, tenant.apiKey) };
}

const carrierCount = async (tenant: TestTenant) => testApp.database.db.prisma.carrier.count({ where: { tenantId: tenant.id } });

describe('ingestion token bucket (records)', () => {
  test('a burst of 3 passes with the RateLimit headers counting down; the 4th is 429 rate_limited with Retry-After; tokens come back at 2/s', async () => {
    const { tenant, api } = await tenantApi();
    for (const remaining of [2, 1, 0]) {
      const res = await api.post(routes.carrier, carrierBody(tenant));
      expect(res.status).toBe(200);
      expect(res.headers.get('ratelimit-policy')).toBe('"ingest";q=3;w=2');
      expect(res.headers.get('ratelimit')).toBe(`"ingest";r=${remaining};t=${remaining === 2 ? 1 : remaining === 1 ? 1 : 2}`);
    }
    const refused = await api.post(routes.carrier, carrierBody(tenant));
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({ error: { code: 'rate_limited', message: expect.stringMatching(/2 records\/s, bursts of 3.*retry after 1 s/) } });
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(refused.headers.get('ratelimit')).toBe('"ingest";r=0;t=2');
    expect(refused.headers.get('ratelimit-policy')).toBe('"ingest";q=3;w=2');
    expect(await carrierCount(tenant)).toBe(3);

    testApp.clock.advance(1000); // two tokens back
    expect((await api.post(routes.carrier, carrierBody(tenant))).status).toBe(200);
    expect((await api.post(routes.carrier, carrierBody(tenant))).status).toBe(200);
    expect((await api.post(routes.carrier, carrierBody(tenant))).status).toBe(429);
    expect(await carrierCount(tenant)).toBe(5);
  });

  test('a request rejected before the handler (415, 400) costs one record and carries the headers too', async () => {
    const { tenant, api } = await tenantApi();
    const wrongType = await api.post(routes.carrier, JSON.stringify(carrierBody(tenant)), { 'content-type': 'text/plain' });
    expect(wrongType.status).toBe(415);
    expect(wrongType.headers.get('ratelimit')).toBe('"ingest";r=2;t=1');
    const invalid = await api.post(routes.carrier, { native_system_carrier_permalink: 'x' });
    expect(invalid.status).toBe(400);
    expect(invalid.headers.get('ratelimit')).toBe('"ingest";r=1;t=1');
  });

  test('each tenant has its own bucket', async () => {
    const a = await tenantApi();
    const b = await tenantApi();
    for (let i = 0; i < 3; i++) expect((await a.api.post(routes.carrier, carrierBody(a.tenant))).status).toBe(200);
    expect((await a.api.post(routes.carrier, carrierBody(a.tenant))).status).toBe(429);
    const other = await b.api.post(routes.carrier, carrierBody(b.tenant));
    expect(other.status).toBe(200);
    expect(other.headers.get('ratelimit')).toBe('"ingest";r=2;t=1');
  });

  test('GraphQL mutations take from the same bucket (one record per mutation field) and are refused with rate_limited, HTTP 429', async () => {
    const { tenant, api } = await tenantApi();
    expect((await api.post(routes.carrier, carrierBody(tenant))).status).toBe(200);
    const mutation = await api.graphql(upsertCarrier, { input: toInput(carrierBody(tenant)) });
    expect(mutation.body.data.upsertCarrier.status).toBe('PROCESSED');
    expect(mutation.headers.get('ratelimit')).toBe('"ingest";r=1;t=1');
    // Two mutation fields in one operation cost two records: only one is left.
    const two = await api.graphql(
      /* GraphQL */ `
      mutation ($a: CarrierInput!, $b: CarrierInput!) { a: upsertCarrier(input: $a) { status } b: upsertCarrier(input: $b) { status } }
    `,
      { a: toInput(carrierBody(tenant)), b: toInput(carrierBody(tenant)) },
    );
    expect(two.status).toBe(429);
    expect(two.body.errors[0].extensions).toMatchObject({ code: 'rate_limited', retryAfter: 1 });
    expect(two.body.data ?? null).toBeNull();
    expect(two.headers.get('retry-after')).toBe('1');
    expect((await api.post(routes.carrier, carrierBody(tenant))).status).toBe(200);
    expect((await api.post(routes.carrier, carrierBody(tenant))).status).toBe(429);
    expect(await carrierCount(tenant)).toBe(3);
  });
});

describe('per-tenant settings (tenant set-rate-limit)', () => {
  test('a tenant rate with its own burst, "off" (0: no limit, no headers) and back to the default', async () => {
    const { tenant, api } = await tenantApi();
    await setRateLimit(testApp.database.db, tenant.slug, 5, 4);
    for (let i = 0; i < 4; i++) {
      const res = await api.post(routes.carrier, carrierBody(tenant));
      expect(res.status).toBe(200);
      expect(res.headers.get('ratelimit-policy')).toBe('"ingest";q=4;w=1');
    }
    expect((await api.post(routes.carrier, carrierBody(tenant))).status).toBe(429);

    await setRateLimit(testApp.database.db, tenant.slug, 0);
    for (let i = 0; i < 6; i++) {
      const res = await api.post(routes.carrier, carrierBody(tenant));
      expect(res.status).toBe(200);
      expect(res.headers.get('ratelimit-policy')).toBeNull();
      expect(res.headers.get('ratelimit')).toBeNull();
    }

    await setRateLimit(testApp.database.db, tenant.slug, null);
    const back = await api.post(routes.carrier, carrierBody(tenant));
    expect(back.headers.get('ratelimit-policy')).toBe('"ingest";q=3;w=2');
  });

  test('a tenant rate without --burst gets at least its rate as burst', async () => {
    const { tenant, api } = await tenantApi();
    await setRateLimit(testApp.database.db, tenant.slug, 7);
    const res = await api.post(routes.carrier, carrierBody(tenant));
    expect(res.headers.get('ratelimit-policy')).toBe('"ingest";q=7;w=1');
  });

  test('out-of-range values and unknown tenants are refused', async () => {
    const { tenant } = await tenantApi();
    await expect(setRateLimit(testApp.database.db, tenant.slug, -1)).rejects.toMatchObject({ code: 'validation_failed' });
    await expect(setRateLimit(testApp.database.db, tenant.slug, 10, 0)).rejects.toMatchObject({ code: 'validation_failed' });
    await expect(setRateLimit(testApp.database.db, 'no-such-tenant', 10)).rejects.toMatchObject({ code: 'not_found' });
  });
});

describe('GraphQL query bucket', () => {
  test('queries have their own per-tenant limit: a burst of 2, then 429 rate_limited; ingestion is unaffected', async () => {
    const { tenant, api } = await tenantApi();
    for (const remaining of [1, 0]) {
      const res = await api.graphql('{ viewer { slug } }');
      expect(res.status).toBe(200);
      expect(res.body.data.viewer.slug).toBe(tenant.slug);
      expect(res.headers.get('ratelimit-policy')).toBe('"queries";q=2;w=2');
      expect(res.headers.get('ratelimit')).toMatch(new RegExp(`^"queries";r=${remaining};t=\\d+$`));
    }
    const refused = await api.graphql('{ viewer { slug } }');
    expect(refused.status).toBe(429);
    expect(refused.body.errors[0]).toMatchObject({ extensions: { code: 'rate_limited', retryAfter: 1 } });
    expect(refused.headers.get('retry-after')).toBe('1');
    expect((await api.post(routes.carrier, carrierBody(tenant))).status).toBe(200);
    const other = await tenantApi();
    expect((await other.api.graphql('{ viewer { slug } }')).status).toBe(200);
  });
});

describe('visibility', () => {
  test('/metrics counts refusals per limit and tenant and shows the default limits', async () => {
    const { tenant, api } = await tenantApi();
    for (let i = 0; i < 4; i++) await api.post(routes.carrier, carrierBody(tenant));
    const text = await (await testApp.fetch('/metrics')).text();
    expect(text).toContain(`rate_limited_requests_total{limit="ingest",tenant="${tenant.slug}"} 1`);
    expect(text).toContain('rate_limit_default{limit="ingest",setting="rate"} 2');
    expect(text).toContain('rate_limit_default{limit="ingest",setting="burst"} 3');
    expect(text).toContain('rate_limit_default{limit="queries",setting="rate"} 1');
  });

  test('the OpenAPI document gives every ingestion route 429 with Retry-After and the RateLimit headers on its answers', async () => {
    const doc = await (await testApp.fetch('/api/v1/openapi.json')).json();
    const ingestion = Object.entries(doc.paths as Record<string, Record<string, any>>).filter(([path]) => /\/(upsert|create)$/.test(path));
    expect(ingestion.length).toBeGreaterThanOrEqual(5);
    for (const [path, item] of ingestion) {
      const responses = item.post.responses;
      expect(responses['429'], path).toBeDefined();
      expect(Object.keys(responses['429'].headers)).toEqual(expect.arrayContaining(['Retry-After', 'RateLimit', 'RateLimit-Policy']));
      expect(Object.keys(responses['200'].headers)).toEqual(expect.arrayContaining(['RateLimit', 'RateLimit-Policy']));
    }
    expect(doc.paths['/api/v1/openapi.json'].get.responses['429']).toBeUndefined();
  });
});
