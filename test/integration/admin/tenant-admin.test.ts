/**
 * Tenant administration over GraphQL (api-contract.md E): the admin key onboards and manages tenants
 * on a running server with the same service functions as the tenant CLI. In-process apps (with the
 * production 30 s key cache) and a real `npm start` process on the run's database.
 */
import { Writable } from 'node:stream';
import { afterAll, beforeAll } from 'vitest';
import { describe, expect, testWith } from '../../fixtures.js';
import { carrierBody, loadBody, routes, seed } from '../../factories/records.js';
import { gqlData, gqlError } from '../../factories/graphql.js';
import { apiFor, uniqueSlug } from '../../helpers/app.js';
import { targets, type Target } from '../cli/targets.js';
import { startServer } from '../process/server-process.js';

const adminKey = 'admin-key-0123456789-0123456789-0123456789';

const tenantFields = 'slug name tmsUrlTemplate activeKeyCount createdAt rateLimit { recordsPerSecond burst } staleAfterSeconds { pull webhook unspecified }';
const mutations = {
  create: `mutation Create($slug: String!, $name: String!, $tmsUrlTemplate: String) { createTenant(slug: $slug, name: $name, tmsUrlTemplate: $tmsUrlTemplate) { apiKey tenant { ${tenantFields} } } }`,
  rotate: 'mutation Rotate($slug: String!) { rotateTenantKey(slug: $slug) { apiKey tenant { slug activeKeyCount } } }',
  revoke: 'mutation Revoke($slug: String!) { revokeTenantKeys(slug: $slug) }',
  rateLimit: `mutation Rate($slug: String!, $r: Int, $b: Int) { setTenantRateLimit(slug: $slug, recordsPerSecond: $r, burst: $b) { ${tenantFields} } }`,
  stale: `mutation Stale($slug: String!, $source: IngestSource!, $s: Int) { setTenantStaleInterval(slug: $slug, source: $source, seconds: $s) { ${tenantFields} } }`,
  map: 'mutation Map($status: String!, $phase: Phase!) { setStatusMapping(status: $status, phase: $phase) { status phase } }',
  unmap: 'mutation Unmap($status: String!) { removeStatusMapping(status: $status) }',
} as const;

function collectLines() {
  const lines: Record<string, unknown>[] = [];
  const logStream = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  return { lines, logStream };
}

const { lines, logStream } = collectLines();
// The production key cache (30 s): changes made through this instance must not wait for it.
const test = testWith({ env: { ADMIN_API_KEY: adminKey, LOG_LEVEL: 'info' }, logStream, authCacheTtlMs: 30_000 });

describe('tenant administration over GraphQL', () => {
  test('createTenant returns the key once, the key posts at once, and the tenant is listed with its settings', async ({ testApp }) => {
    const admin = apiFor(testApp, adminKey);
    const slug = uniqueSlug('adm');
    const created = await gqlData(admin, mutations.create, { slug, name: ' Acme Freight ', tmsUrlTemplate: 'https://tms.example/{key}' });
    expect(created.createTenant.apiKey).toMatch(/^tms_[A-Za-z0-9_-]{43}$/);
    expect(created.createTenant.tenant).toMatchObject({
      slug,
      name: 'Acme Freight',
      tmsUrlTemplate: 'https://tms.example/{key}',
      activeKeyCount: 1,
      rateLimit: { recordsPerSecond: null, burst: null },
      staleAfterSeconds: { pull: expect.any(Number), webhook: expect.any(Number), unspecified: expect.any(Number) },
    });
    const api = apiFor(testApp, created.createTenant.apiKey);
    expect((await api.post(routes.carrier, carrierBody({ slug }))).status).toBe(200);
    const viewer = await gqlData(api, `{ viewer { ${tenantFields} } }`);
    expect(viewer.viewer).toEqual(created.createTenant.tenant);

    const listed = await gqlData(admin, `{ tenants { ${tenantFields} } }`);
    expect(listed.tenants).toContainEqual(created.createTenant.tenant);
    // Shown once: no query returns a key, and the log never holds it.
    expect(JSON.stringify(listed)).not.toContain(created.createTenant.apiKey);
    expect(JSON.stringify(lines)).not.toContain(created.createTenant.apiKey);
    expect(lines).toContainEqual(expect.objectContaining({ msg: 'admin change', action: 'createTenant', tenant: slug, admin: true }));
  });

  test('rotateTenantKey and revokeTenantKeys apply at once on this instance despite the key cache', async ({ testApp }) => {
    const admin = apiFor(testApp, adminKey);
    const tenant = await testApp.createTenant();
    const oldApi = apiFor(testApp, tenant.apiKey);
    expect((await oldApi.post(routes.carrier, carrierBody(tenant))).status).toBe(200); // now cached

    const rotated = await gqlData(admin, mutations.rotate, { slug: tenant.slug });
    expect(rotated.rotateTenantKey.tenant).toEqual({ slug: tenant.slug, activeKeyCount: 1 });
    expect((await oldApi.post(routes.carrier, carrierBody(tenant))).status).toBe(401);
    const newApi = apiFor(testApp, rotated.rotateTenantKey.apiKey);
    expect((await newApi.post(routes.carrier, carrierBody(tenant))).status).toBe(200); // now cached

    expect((await gqlData(admin, mutations.revoke, { slug: tenant.slug })).revokeTenantKeys).toBe(1);
    const refused = await newApi.post(routes.carrier, carrierBody(tenant));
    expect(refused.status).toBe(401);
    expect(refused.body.error.code).toBe('unauthenticated');
    expect((await gqlData(admin, mutations.revoke, { slug: tenant.slug })).revokeTenantKeys).toBe(0);
    for (const action of ['rotateTenantKey', 'revokeTenantKeys']) {
      expect(lines).toContainEqual(expect.objectContaining({ msg: 'admin change', action, tenant: tenant.slug }));
    }
  });

  test('setTenantRateLimit applies at once; null restores the default, 0 turns it off; a burst needs a rate', async ({ testApp }) => {
    const admin = apiFor(testApp, adminKey);
    const tenant = await testApp.createTenant();
    const api = apiFor(testApp, tenant.apiKey);
    expect((await api.post(routes.carrier, carrierBody(tenant))).status).toBe(200); // cached with the default limit

    const set = await gqlData(admin, mutations.rateLimit, { slug: tenant.slug, r: 5, b: 12 });
    expect(set.setTenantRateLimit.rateLimit).toEqual({ recordsPerSecond: 5, burst: 12 });
    const limited = await api.post(routes.carrier, carrierBody(tenant));
    expect(limited.headers.get('ratelimit-policy')).toBe('"ingest";q=12;w=3');

    const off = await gqlData(admin, mutations.rateLimit, { slug: tenant.slug, r: 0 });
    expect(off.setTenantRateLimit.rateLimit).toEqual({ recordsPerSecond: 0, burst: null });
    expect((await api.post(routes.carrier, carrierBody(tenant))).headers.get('ratelimit-policy')).toBeNull();

    const reset = await gqlData(admin, mutations.rateLimit, { slug: tenant.slug });
    expect(reset.setTenantRateLimit.rateLimit).toEqual({ recordsPerSecond: null, burst: null });

    const burstAlone = await gqlError(admin, mutations.rateLimit, { slug: tenant.slug, r: 0, b: 5 });
    expect(burstAlone.error.extensions).toMatchObject({ code: 'validation_failed', details: [{ field: 'burst' }] });
    const tooFast = await gqlError(admin, mutations.rateLimit, { slug: tenant.slug, r: -1 });
    expect(tooFast.error.extensions?.code).toBe('validation_failed');
    expect(lines).toContainEqual(
      expect.objectContaining({ msg: 'admin change', action: 'setTenantRateLimit', tenant: tenant.slug, recordsPerSecond: 5, burst: 12 }),
    );
  });

  test('setTenantStaleInterval sets one source, null restores its default, and ingest health uses it', async ({ testApp }) => {
    const admin = apiFor(testApp, adminKey);
    const tenant = await testApp.createTenant();
    const before = await gqlData(admin, `query ($slug: String!) { tenant(slug: $slug) { ${tenantFields} } }`, { slug: tenant.slug });
    const set = await gqlData(admin, mutations.stale, { slug: tenant.slug, source: 'WEBHOOK', s: 600 });
    expect(set.setTenantStaleInterval.staleAfterSeconds).toEqual({ ...before.tenant.staleAfterSeconds, webhook: 600 });
    const health = await gqlData(apiFor(testApp, tenant.apiKey), '{ ingestHealth { sources { source staleAfterSeconds } } }');
    expect(health.ingestHealth.sources).toContainEqual({ source: 'WEBHOOK', staleAfterSeconds: 600 });

    const reset = await gqlData(admin, mutations.stale, { slug: tenant.slug, source: 'WEBHOOK', s: null });
    expect(reset.setTenantStaleInterval.staleAfterSeconds).toEqual(before.tenant.staleAfterSeconds);
    const bad = await gqlError(admin, mutations.stale, { slug: tenant.slug, source: 'PULL', s: 5 });
    expect(bad.error.extensions).toMatchObject({ code: 'validation_failed', details: [{ field: 'seconds' }] });
    expect(lines).toContainEqual(expect.objectContaining({ msg: 'admin change', action: 'setTenantStaleInterval', source: 'webhook', seconds: 600 }));
  });

  test('setStatusMapping and removeStatusMapping work for the admin key with X-Tenant and re-phase the loads', async ({ testApp }) => {
    const admin = apiFor(testApp, adminKey);
    const tenant = await testApp.createTenant();
    const api = apiFor(testApp, tenant.apiKey);
    const load = await seed(api, routes.load, loadBody(tenant, { native_system_load_status: 'Booked' }));
    const phaseOf = async () =>
      (await gqlData(api, 'query ($p: String!) { load(permalink: $p) { phase } }', { p: load.native_system_load_permalink })).load.phase;
    expect(await phaseOf()).toBe('UNMAPPED');

    const asTenant = { 'x-tenant': tenant.slug };
    const mapped = await gqlData(admin, mutations.map, { status: 'Booked', phase: 'COVERED' }, asTenant);
    expect(mapped.setStatusMapping).toEqual({ status: 'Booked', phase: 'COVERED' });
    expect(await phaseOf()).toBe('COVERED');
    expect((await gqlData(admin, mutations.unmap, { status: 'booked' }, asTenant)).removeStatusMapping).toBe(true);
    expect(await phaseOf()).toBe('UNMAPPED');

    const noTenant = await gqlError(admin, mutations.map, { status: 'Booked', phase: 'COVERED' });
    expect(noTenant.error.extensions).toMatchObject({ code: 'validation_failed', details: [{ field: 'X-Tenant' }] });
    expect(lines).toContainEqual(
      expect.objectContaining({ msg: 'admin change', action: 'setStatusMapping', tenant: tenant.slug, status: 'Booked', phase: 'COVERED' }),
    );
    expect(lines).toContainEqual(expect.objectContaining({ msg: 'admin change', action: 'removeStatusMapping', tenant: tenant.slug, removed: true }));
  });

  test("the CLI's rules apply: a taken slug, a bad slug or template, an unknown tenant", async ({ testApp }) => {
    const admin = apiFor(testApp, adminKey);
    const tenant = await testApp.createTenant();
    const taken = await gqlError(admin, mutations.create, { slug: tenant.slug, name: 'Again' });
    expect(taken.error.extensions).toMatchObject({ code: 'validation_failed', details: [{ field: 'slug', issue: 'is taken' }] });
    expect(taken.error.message).toBe(`Tenant "${tenant.slug}" already exists.`);
    const badSlug = await gqlError(admin, mutations.create, { slug: 'Not A Slug', name: 'X' });
    expect(badSlug.error.extensions?.code).toBe('validation_failed');
    const badTemplate = await gqlError(admin, mutations.create, { slug: uniqueSlug(), name: 'X', tmsUrlTemplate: 'https://tms.example/' });
    expect(badTemplate.error.extensions).toMatchObject({ code: 'validation_failed', details: [{ field: 'tmsUrlTemplate' }] });
    const nobody = uniqueSlug('nobody');
    for (const [query, variables] of [
      [mutations.rotate, { slug: nobody }],
      [mutations.revoke, { slug: nobody }],
      [mutations.rateLimit, { slug: nobody, r: 5 }],
      [mutations.stale, { slug: nobody, source: 'PULL', s: 600 }],
    ] as const) {
      const { error } = await gqlError(admin, query, variables);
      expect(error.extensions?.code, query).toBe('not_found');
    }
  });

  test('a tenant key gets forbidden on every tenant administration mutation and changes nothing', async ({ testApp, api, tenant, otherTenant }) => {
    for (const [query, variables] of [
      [mutations.create, { slug: uniqueSlug(), name: 'Sneaky' }],
      [mutations.rotate, { slug: otherTenant.slug }],
      [mutations.revoke, { slug: otherTenant.slug }],
      [mutations.rateLimit, { slug: tenant.slug, r: 0 }],
      [mutations.stale, { slug: tenant.slug, source: 'PULL', s: 600 }],
    ] as const) {
      const { error } = await gqlError(api, query, variables);
      expect(error.extensions?.code, query).toBe('forbidden');
    }
    expect((await apiFor(testApp, otherTenant.apiKey).post(routes.carrier, carrierBody(otherTenant))).status).toBe(200);
  });
});

describe.each(targets)('tenant administration on a running server ($name)', { timeout: 180_000 }, ({ create }) => {
  let target: Target;
  beforeAll(async () => {
    target = await create();
  });
  afterAll(() => target.cleanup());

  test('onboards a tenant without a restart: create, map a status, post, revoke', async () => {
    const server = startServer({ ...target.env, ADMIN_API_KEY: adminKey });
    try {
      const base = await server.started();
      const graphql = async (apiKey: string, query: string, variables: Record<string, unknown>, headers: Record<string, string> = {}) => {
        const res = await fetch(`${base}/graphql`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': apiKey, ...headers },
          body: JSON.stringify({ query, variables }),
        });
        return (await res.json()) as { data?: any; errors?: unknown[] };
      };
      const slug = uniqueSlug('live');
      const created = await graphql(adminKey, mutations.create, { slug, name: 'Live Co' });
      expect(created.errors).toBeUndefined();
      const apiKey: string = created.data.createTenant.apiKey;
      expect((await graphql(adminKey, mutations.map, { status: 'Booked', phase: 'COVERED' }, { 'x-tenant': slug })).errors).toBeUndefined();

      const post = (body: unknown) =>
        fetch(`${base}${routes.load}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': apiKey }, body: JSON.stringify(body) });
      const body = loadBody({ slug }, { native_system_load_status: 'booked' });
      expect((await post(body)).status).toBe(200);
      const read = await graphql(apiKey, 'query ($p: String!) { load(permalink: $p) { phase } }', { p: body.native_system_load_permalink });
      expect(read.data.load.phase).toBe('COVERED');

      expect((await graphql(adminKey, mutations.revoke, { slug }, {})).data.revokeTenantKeys).toBe(1);
      expect((await post(body)).status).toBe(401);
      await server.waitFor(/^(?=.*"msg":"admin change")(?=.*"action":"revokeTenantKeys").*$/m);
    } finally {
      await server.stop();
    }
  });
});
