/**
 * `loads(filter: { status })` follows the status mapping's comparison (api-contract.md: a TMS status is
 * compared trimmed and case-insensitively; migration `load_status_key`): the loads a status filter
 * finds are exactly the loads a mapping of that status re-phases, on the compiled path and on the
 * resolvers' (Prisma) path alike, whatever spaces and case (ASCII or not) the stored statuses carry.
 */
import { describe, expect, test } from '../../fixtures.js';
import { loadBody } from '../../factories/records.js';
import { gqlData } from '../../factories/graphql.js';
import { apiFor, resolversApp } from '../../helpers/app.js';

const stored = ['Picked Up', '  picked up  ', 'PICKED UP', 'Picked  Up', 'picked up\t', 'ÉTAPE', 'étape', ' Étape ', 'Booked'];

describe('the status filter compares as the status mapping does', () => {
  for (const asked of ['picked up', ' PICKED UP ', 'étape', 'ÉTAPE ']) {
    test(`status "${asked}"`, async ({ testApp }) => {
      const tenant = await testApp.createTenant();
      const api = apiFor(testApp, tenant.apiKey);
      const records = stored.map((status) => loadBody(tenant, { native_system_load_status: status }));
      const res = await api.post('/api/v1/loads/bulk_upsert', { records });
      expect(res.status).toBe(200);
      await gqlData(api, 'mutation ($s: String!) { setStatusMapping(status: $s, phase: AT_PICKUP) { status } }', { s: asked });
      const query = '{ loads(first: 50) { edges { node { permalink status phase } } } }';
      const mapped = (await gqlData(api, query)).loads.edges
        .filter((edge: any) => edge.node.phase === 'AT_PICKUP')
        .map((edge: any) => edge.node.permalink)
        .sort();
      expect(mapped.length).toBeGreaterThan(0);
      const filtered = '{ loads(first: 50, filter: { status: $s }) { totalCount edges { node { permalink } } } }'.replace(
        '{ loads',
        'query ($s: String) { loads',
      );
      const resolvers = apiFor(await resolversApp(testApp), tenant.apiKey);
      for (const path of [api, resolvers]) {
        const res = await path.post('/graphql', { query: filtered, variables: { s: asked } }, { 'cache-control': 'no-cache' });
        expect(res.body.errors).toBeUndefined();
        expect(res.headers.get('x-graphql-execution')).toBe(path === api ? 'compiled' : 'resolvers');
        expect(res.body.data.loads.edges.map((edge: any) => edge.node.permalink).sort()).toEqual(mapped);
        expect(res.body.data.loads.totalCount).toBe(mapped.length);
      }
    });
  }
});
