import { describe, expect, test } from '../../fixtures.js';
import { carrierBody, loadBody, routes, seed } from '../../factories/records.js';
import { gqlData, gqlError } from '../../factories/graphql.js';
import { countLimit } from '../../../src/graphql/pagination.js';

const page = `query ($first: Int, $after: String) {
  loads(first: $first, after: $after) { totalCount pageInfo { hasNextPage endCursor } edges { cursor node { permalink } } }
}`;

describe('loads pagination', () => {
  test('walks every load once, newest first, and the last page says hasNextPage false', async ({ api, tenant, testApp }) => {
    const created: string[] = [];
    for (let i = 0; i < 5; i++) {
      testApp.clock.advance(1000);
      created.push((await seed(api, routes.load, loadBody(tenant))).native_system_load_permalink as string);
    }
    const seen: string[] = [];
    let after: string | null = null;
    const pages: boolean[] = [];
    do {
      const data: any = await gqlData(api, page, { first: 2, after });
      expect(data.loads.totalCount).toBe(5);
      seen.push(...data.loads.edges.map((e: any) => e.node.permalink));
      pages.push(data.loads.pageInfo.hasNextPage);
      after = data.loads.pageInfo.hasNextPage ? data.loads.pageInfo.endCursor : null;
    } while (after);
    expect(seen).toEqual([...created].reverse());
    expect(pages).toEqual([true, true, false]);
  });

  test('an empty list is an empty page', async ({ api }) => {
    const data = await gqlData(api, page, { first: 10 });
    expect(data.loads).toEqual({ totalCount: 0, pageInfo: { hasNextPage: false, endCursor: null }, edges: [] });
  });

  test('the cursor of the last item gives an empty last page', async ({ api, tenant }) => {
    await seed(api, routes.load, loadBody(tenant));
    const first = await gqlData(api, page, { first: 1 });
    const next = await gqlData(api, page, { first: 1, after: first.loads.pageInfo.endCursor });
    expect(next.loads.edges).toEqual([]);
    expect(next.loads.pageInfo.hasNextPage).toBe(false);
  });

  test.for([
    ['not base64 at all', '%%%'],
    ['a foreign format', Buffer.from('hello').toString('base64')],
    ['a cursor whose id is not an id', Buffer.from('GPC:S:not-a-uuid').toString('base64')],
    ['a well-formed cursor naming no record', Buffer.from('GPC:S:00000000-0000-4000-8000-000000000000').toString('base64')],
  ] as const)('an invalid cursor (%s) is a validation_failed', async ([, cursor], { api, tenant }) => {
    await seed(api, routes.load, loadBody(tenant));
    const { error } = await gqlError(api, page, { first: 1, after: cursor });
    expect(error.extensions?.code).toBe('validation_failed');
    expect(error.path).toEqual(['loads']);
  });

  test('carriers page the same way', async ({ api, tenant }) => {
    for (const name of ['A', 'B', 'C']) await seed(api, routes.carrier, carrierBody(tenant, { carrier_name: name }));
    const query = `query ($after: String) { carriers(first: 2, after: $after) { pageInfo { hasNextPage endCursor } edges { node { name } } } }`;
    const one = await gqlData(api, query, {});
    const two = await gqlData(api, query, { after: one.carriers.pageInfo.endCursor });
    expect([...one.carriers.edges, ...two.carriers.edges].map((e: any) => e.node.name)).toEqual(['A', 'B', 'C']);
    expect([one.carriers.pageInfo.hasNextPage, two.carriers.pageInfo.hasNextPage]).toEqual([true, false]);
    const bad = await gqlError(api, query, { after: 'garbage' });
    expect(bad.error.extensions?.code).toBe('validation_failed');
  });
});

describe('totalCount', () => {
  const counts = `query ($search: String, $filter: LoadFilter) {
    loads(first: 1, filter: $filter) { totalCount totalCountExact }
    carriers(first: 1, search: $search) { totalCount totalCountExact }
  }`;

  test(`is exact up to ${countLimit} records; beyond, it says ${countLimit} and totalCountExact is false`, async ({ api, tenant }) => {
    const postAll = async (path: string, make: (i: number) => Record<string, unknown>, from: number, to: number) => {
      for (let i = from; i < to; i += 500) {
        const records = Array.from({ length: Math.min(500, to - i) }, (_, j) => make(i + j));
        const res = await api.post(path, { records });
        expect(res.status).toBe(200);
      }
    };
    const load = (i: number) => loadBody(tenant, { native_system_customer_reference_number: i % 2 ? `odd-${i}` : `even-${i}` });
    const carrier = (i: number) => carrierBody(tenant, { carrier_name: i % 2 ? `Odd ${i}` : `Even ${i}` });
    await postAll('/api/v1/loads/bulk_upsert', load, 0, countLimit);
    await postAll('/api/v1/carriers/bulk_upsert', carrier, 0, countLimit);
    expect(await gqlData(api, counts)).toEqual({
      loads: { totalCount: countLimit, totalCountExact: true },
      carriers: { totalCount: countLimit, totalCountExact: true },
    });

    await postAll('/api/v1/loads/bulk_upsert', load, countLimit, countLimit + 2);
    await postAll('/api/v1/carriers/bulk_upsert', carrier, countLimit, countLimit + 2);
    expect(await gqlData(api, counts)).toEqual({
      loads: { totalCount: countLimit, totalCountExact: false },
      carriers: { totalCount: countLimit, totalCountExact: false },
    });
    // A narrower filter is counted exactly again.
    expect(await gqlData(api, counts, { search: 'odd', filter: { search: 'odd' } })).toEqual({
      loads: { totalCount: (countLimit + 2) / 2, totalCountExact: true },
      carriers: { totalCount: (countLimit + 2) / 2, totalCountExact: true },
    });
  });
});
