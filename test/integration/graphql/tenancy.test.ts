import { Writable } from 'node:stream';
import { describe, expect, test } from '../../fixtures.js';
import { loadBody, routes, seed, seedLoadTree } from '../../factories/records.js';
import { gqlData, gqlError, toInput, upsertMutations } from '../../factories/graphql.js';
import { apiFor, createTestApp } from '../../helpers/app.js';

describe('tenancy', () => {
  test("a tenant reaches none of another tenant's records by permalink", async ({ api, tenant, otherApi }) => {
    const { carrier, load, leg, stop } = await seedLoadTree(api, tenant);
    const data = await gqlData(
      otherApi,
      `query ($l: String!, $g: String!, $s: String!, $c: String!) {
        load(permalink: $l) { permalink } loadLeg(permalink: $g) { permalink } stop(permalink: $s) { permalink } carrier(permalink: $c) { permalink }
        loads(first: 50, filter: { search: "${String(load.bol_number)}" }) { totalCount edges { node { permalink } } }
        carriers(first: 50) { totalCount }
      }`,
      {
        l: load.native_system_load_permalink,
        g: leg.native_system_load_leg_permalink,
        s: stop.native_system_stop_permalink,
        c: carrier.native_system_carrier_permalink,
      },
    );
    expect(data).toEqual({ load: null, loadLeg: null, stop: null, carrier: null, loads: { totalCount: 0, edges: [] }, carriers: { totalCount: 0 } });
  });

  test("a tenant cannot page with another tenant's cursor", async ({ api, tenant, otherApi, otherTenant }) => {
    await seed(api, routes.load, loadBody(tenant));
    await seed(api, routes.load, loadBody(tenant));
    await seed(otherApi, routes.load, loadBody(otherTenant));
    const mine = await gqlData(api, '{ loads(first: 1) { pageInfo { endCursor } } }');
    const { error } = await gqlError(otherApi, 'query ($a: String) { loads(first: 5, after: $a) { edges { node { permalink } } } }', {
      a: mine.loads.pageInfo.endCursor,
    });
    expect(error.extensions?.code).toBe('validation_failed');
  });

  test("mutations cannot touch another tenant's records", async ({ api, tenant, otherApi }) => {
    const load = await seed(api, routes.load, loadBody(tenant));
    const edit = await gqlError(otherApi, 'mutation ($p: String!) { editLoad(permalink: $p, patch: { bolNumber: "X" }) { permalink } }', {
      p: load.native_system_load_permalink,
    });
    expect(edit.error.extensions?.code).toBe('not_found');
    const upsert = await gqlError(otherApi, upsertMutations.load, { input: toInput(load) });
    expect(upsert.error.extensions?.code).toBe('validation_failed');
    expect(upsert.error.extensions?.details).toContainEqual({ field: 'nativeSystemLoadPermalink', issue: expect.stringContaining('must be <id>-') });
    const stored = await gqlData(api, 'query ($p: String!) { load(permalink: $p) { bolNumber } }', { p: load.native_system_load_permalink });
    expect(stored.load.bolNumber).toBe(load.bol_number);
  });

  test('requests without a valid key are answered 401', async ({ testApp }) => {
    const res = await apiFor(testApp, 'not-a-key').graphql('{ viewer { slug } }');
    expect(res.status).toBe(401);
    expect(res.body.errors[0].extensions.code).toBe('unauthenticated');
  });
});

const adminKey = 'admin-key-0123456789-0123456789-0123456789';

describe('admin key', () => {
  test('reads any tenant named by X-Tenant, lists tenants, may not write records, and every access is logged', async () => {
    const lines: Record<string, unknown>[] = [];
    const logStream = new Writable({
      write(chunk, _encoding, done) {
        for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
        done();
      },
    });
    const testApp = await createTestApp({ env: { ADMIN_API_KEY: adminKey, LOG_LEVEL: 'info' }, logStream });
    try {
      const tenant = await testApp.createTenant({ tmsUrlTemplate: 'https://tms.example/{key}' });
      const other = await testApp.createTenant();
      const api = apiFor(testApp, tenant.apiKey);
      const { load } = await seedLoadTree(api, tenant);
      const admin = apiFor(testApp, adminKey);
      const asTenant = { 'x-tenant': tenant.slug };

      const read = await gqlData(
        admin,
        'query SupportLookup($p: String!) { viewer { slug } load(permalink: $p) { permalink legs { carrier { name } } } }',
        { p: load.native_system_load_permalink },
        asTenant,
      );
      expect(read.viewer.slug).toBe(tenant.slug);
      expect(read.load.permalink).toBe(load.native_system_load_permalink);
      const elsewhere = await gqlData(
        admin,
        'query ($p: String!) { load(permalink: $p) { permalink } }',
        { p: load.native_system_load_permalink },
        { 'x-tenant': other.slug },
      );
      expect(elsewhere.load).toBeNull();

      const tenants = await gqlData(admin, `query Tenants { tenants { slug name tmsUrlTemplate } tenant(slug: "${tenant.slug}") { slug tmsUrlTemplate } }`);
      expect(tenants.tenants.map((t: { slug: string }) => t.slug)).toEqual(expect.arrayContaining([tenant.slug, other.slug]));
      expect(tenants.tenant).toEqual({ slug: tenant.slug, tmsUrlTemplate: 'https://tms.example/{key}' });

      const noTenant = await gqlError(admin, '{ loads(first: 1) { totalCount } }');
      expect(noTenant.error.extensions).toMatchObject({ code: 'validation_failed', details: [{ field: 'X-Tenant', issue: expect.any(String) }] });

      const mutations = [
        ['upsertLoad', upsertMutations.load, { input: toInput(loadBody(tenant)) }],
        ['editLoad', 'mutation ($p: String!) { editLoad(permalink: $p, patch: { bolNumber: "X" }) { permalink } }', { p: load.native_system_load_permalink }],
      ] as const;
      for (const [name, mutation, variables] of mutations) {
        const { error } = await gqlError(admin, mutation, variables, asTenant);
        expect(error.extensions?.code, name).toBe('forbidden');
      }
      const unchanged = await gqlData(api, 'query ($p: String!) { load(permalink: $p) { bolNumber } }', { p: load.native_system_load_permalink });
      expect(unchanged.load.bolNumber).toBe(load.bol_number);

      const audit = lines.filter((l) => l.msg === 'admin access');
      expect(audit).toContainEqual(expect.objectContaining({ tenant: tenant.slug, operationName: 'SupportLookup', operation: 'query' }));
      expect(audit).toContainEqual(expect.objectContaining({ tenant: null, operationName: 'Tenants' }));
      expect(audit.length).toBeGreaterThanOrEqual(4 + mutations.length);
      expect(lines.filter((l) => l.msg === 'admin access' && l.tenant === undefined)).toEqual([]);
    } finally {
      await testApp.close();
    }
  });

  test('a tenant key may not list tenants', async ({ api }) => {
    const { error } = await gqlError(api, '{ tenants { slug } }');
    expect(error.extensions?.code).toBe('forbidden');
  });
});
