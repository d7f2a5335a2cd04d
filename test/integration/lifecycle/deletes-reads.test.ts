/**
 * Every GraphQL read omits deleted records (api-contract.md E): lists, connections and `totalCount`,
 * search and the other filters, nested fields (legs, stops, a leg's carrier, the next stop, the "View
 * in TMS" link), the load board's SQL path and its Prisma twin, the response cache; except the
 * by-permalink reads with `includeDeleted: true`, which return the tombstone with `deletedAt`.
 */
import { loadFilterWhere } from '../../../src/domain/load/queries.js';
import { recordSpecOf } from '../../../src/domain/registry.js';
import { restPath } from '../../../src/domain/declaration/record.js';
import { gqlData } from '../../factories/graphql.js';
import { loadLegBody, routes, seed, seedLoadTree, stopBody } from '../../factories/records.js';
import { describe, expect, test } from '../../fixtures.js';
import type { Api } from '../../helpers/app.js';

const del = {
  carrier: restPath(recordSpecOf.carrier, 'delete'),
  load: restPath(recordSpecOf.load, 'delete'),
  load_leg: restPath(recordSpecOf.load_leg, 'delete'),
  stop: restPath(recordSpecOf.stop, 'delete'),
};

const noCache = { 'cache-control': 'no-cache' };

async function deleted(api: Api, path: string, body: Record<string, unknown>) {
  const res = await api.post(path, body);
  expect(res.body, JSON.stringify(res.body)).toMatchObject({ status: 'processed', message: expect.stringMatching(/(?<!already) deleted\.$/) });
}

const boardQuery = /* GraphQL */ `
  query ($filter: LoadFilter) {
    loads(first: 50, filter: $filter) {
      totalCount
      edges { node { permalink tmsUrl nextStop { permalink } legs { permalink carrier { permalink } stops { permalink } } } }
    }
  }`;

const permalinksOf = (data: { loads: { edges: { node: { permalink: string } }[] } }) => data.loads.edges.map((e) => e.node.permalink).sort();

describe('lists, counts, filters and nested fields', () => {
  test('a deleted load leaves loads, totalCount and every filter (SQL page and Prisma alike)', async ({ api, tenant, testApp }) => {
    const kept = await seedLoadTree(api, tenant, { load: { bol_number: `BOL-SHARED-${tenant.slug}` } });
    const gone = await seedLoadTree(api, tenant, { load: { bol_number: `BOL-SHARED-${tenant.slug}-2` } });
    await deleted(api, del.load, { native_system_load_permalink: gone.load.native_system_load_permalink });
    const all = await gqlData(api, boardQuery, {}, noCache);
    expect(permalinksOf(all)).toEqual([kept.load.native_system_load_permalink]);
    expect(all.loads.totalCount).toBe(1);
    for (const filter of [
      { search: `BOL-SHARED-${tenant.slug}` },
      { search: gone.leg.native_system_reference_number as string },
      { search: gone.stop.reference_number as string },
      { city: 'Chicago' },
      { carrier: gone.carrier.native_system_carrier_permalink as string },
      { status: 'Booked' },
      { phase: ['UNMAPPED'] },
    ]) {
      const data = await gqlData(api, boardQuery, { filter }, noCache);
      expect(permalinksOf(data), JSON.stringify(filter)).not.toContain(gone.load.native_system_load_permalink);
      expect(data.loads.totalCount, JSON.stringify(filter)).toBe(data.loads.edges.length);
      // The Prisma path reads the same filter definition (decision 0013): it omits the tombstone too.
      const prismaRows = await testApp.database.db.prisma.load.findMany({ where: loadFilterWhere(tenant.id, filter as never), select: { permalink: true } });
      expect(prismaRows.map((r) => r.permalink)).not.toContain(gone.load.native_system_load_permalink);
    }
  });

  test('a deleted leg and stop leave the nested lists, nextStop, tmsUrl and the filters that matched only them', async ({ api, tenant, testApp }) => {
    const tree = await seedLoadTree(api, tenant);
    await testApp.database.db.prisma.tenant.update({ where: { id: tenant.id }, data: { tmsUrlTemplate: 'https://tms.example/{key}' } });
    const keyed = await seed(api, routes.load_leg, loadLegBody(tenant, tree.load, { load_leg_sequence: 2, native_system_load_unique_key: 'K0' }));
    await seed(api, routes.stop, stopBody(tenant, keyed, { city: 'Dallas' }));
    const second = await seed(api, routes.stop, stopBody(tenant, tree.leg, { stop_sequence: 2 }));
    const query = `query { load(permalink: "${String(tree.load.native_system_load_permalink)}") { tmsUrl nextStop { permalink } legs { permalink stops { permalink } } } }`;
    const before = await gqlData(api, query, {}, noCache);
    expect(before.load.tmsUrl).toBe('https://tms.example/K0');
    expect(before.load.nextStop.permalink).toBe(tree.stop.native_system_stop_permalink);
    expect(before.load.legs).toHaveLength(2);
    await deleted(api, del.load_leg, { native_system_load_leg_permalink: keyed.native_system_load_leg_permalink });
    await deleted(api, del.stop, { native_system_stop_permalink: tree.stop.native_system_stop_permalink });
    const after = await gqlData(api, query, {}, noCache);
    expect(after.load).toEqual({
      tmsUrl: null,
      nextStop: { permalink: second.native_system_stop_permalink },
      legs: [{ permalink: tree.leg.native_system_load_leg_permalink, stops: [{ permalink: second.native_system_stop_permalink }] }],
    });
    // The board (SQL page) answers the same.
    const board = await gqlData(api, boardQuery, {}, noCache);
    expect(board.loads.edges[0].node).toMatchObject({ tmsUrl: null, nextStop: after.load.nextStop, legs: [{ stops: after.load.legs[0].stops }] });
    for (const filter of [{ city: 'Dallas' }, { search: tree.stop.reference_number as string }]) {
      expect((await gqlData(api, boardQuery, { filter }, noCache)).loads.totalCount, JSON.stringify(filter)).toBe(0);
    }
  });

  test('a deleted carrier: gone from carriers, totalCount and search; LoadLeg.carrier is null while it is deleted', async ({ api, tenant }) => {
    const tree = await seedLoadTree(api, tenant);
    const carrierQuery = `query ($search: String) { carriers(first: 10, search: $search) { totalCount edges { node { permalink } } } }`;
    expect((await gqlData(api, carrierQuery, {}, noCache)).carriers.totalCount).toBe(1);
    await deleted(api, del.carrier, { native_system_carrier_permalink: tree.carrier.native_system_carrier_permalink });
    for (const search of [null, tree.carrier.mc_number]) {
      const data = await gqlData(api, carrierQuery, { search }, noCache);
      expect(data.carriers).toEqual({ totalCount: 0, edges: [] });
    }
    const legQuery = `query { loadLeg(permalink: "${String(tree.leg.native_system_load_leg_permalink)}") { carrier { permalink } } }`;
    expect((await gqlData(api, legQuery, {}, noCache)).loadLeg.carrier).toBeNull();
    const board = await gqlData(api, boardQuery, {}, noCache);
    expect(board.loads.edges[0].node.legs[0].carrier).toBeNull();
    // Revived: the leg's carrier is back.
    await seed(api, routes.carrier, tree.carrier);
    expect((await gqlData(api, legQuery, {}, noCache)).loadLeg.carrier.permalink).toBe(tree.carrier.native_system_carrier_permalink);
  });
});

describe('by-permalink reads', () => {
  test('load, loadLeg, stop and carrier answer null for a tombstone, and return it with includeDeleted: true', async ({ api, tenant }) => {
    const tree = await seedLoadTree(api, tenant);
    await deleted(api, del.load, { native_system_load_permalink: tree.load.native_system_load_permalink });
    await deleted(api, del.carrier, { native_system_carrier_permalink: tree.carrier.native_system_carrier_permalink });
    const reads = [
      ['load', tree.load.native_system_load_permalink],
      ['loadLeg', tree.leg.native_system_load_leg_permalink],
      ['stop', tree.stop.native_system_stop_permalink],
      ['carrier', tree.carrier.native_system_carrier_permalink],
    ] as const;
    for (const [field, permalink] of reads) {
      const hidden = await gqlData(api, `query { ${field}(permalink: "${String(permalink)}") { permalink deletedAt } }`, {}, noCache);
      expect(hidden[field], field).toBeNull();
      const explicit = await gqlData(api, `query { ${field}(permalink: "${String(permalink)}", includeDeleted: false) { permalink } }`, {}, noCache);
      expect(explicit[field], field).toBeNull();
      const tombstone = await gqlData(api, `query { ${field}(permalink: "${String(permalink)}", includeDeleted: true) { permalink deletedAt } }`, {}, noCache);
      expect(tombstone[field], field).toEqual({ permalink, deletedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/) });
    }
    // A live record answers deletedAt: null.
    const live = await seedLoadTree(api, tenant);
    const data = await gqlData(
      api,
      `query { load(permalink: "${String(live.load.native_system_load_permalink)}") { deletedAt legs { deletedAt stops { deletedAt } carrier { deletedAt } } } }`,
    );
    expect(data.load).toEqual({ deletedAt: null, legs: [{ deletedAt: null, stops: [{ deletedAt: null }], carrier: { deletedAt: null } }] });
  });

  test('another tenant learns nothing of a tombstone, even with includeDeleted', async ({ api, tenant, otherApi }) => {
    const tree = await seedLoadTree(api, tenant);
    await deleted(api, del.load, { native_system_load_permalink: tree.load.native_system_load_permalink });
    const data = await gqlData(otherApi, `query { load(permalink: "${String(tree.load.native_system_load_permalink)}", includeDeleted: true) { permalink } }`);
    expect(data.load).toBeNull();
  });
});

describe('response cache', () => {
  test('a cached loads answer is dropped by the delete: the next read omits the load', async ({ api, tenant, testApp }) => {
    const tree = await seedLoadTree(api, tenant);
    const query = 'query { loads(first: 10) { totalCount edges { node { permalink } } } }';
    const read = () =>
      testApp.fetch('/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': tenant.apiKey },
        body: JSON.stringify({ query }),
      });
    // The seed's own change notifications may still drop the first answers (PostgreSQL delivers them
    // asynchronously): read until the answer is served from the cache.
    let cached = await read();
    for (let attempt = 0; attempt < 100 && cached.headers.get('x-response-cache') !== 'hit'; attempt++) cached = await read();
    expect(cached.headers.get('x-response-cache')).toBe('hit');
    expect((await cached.json()).data.loads.totalCount).toBe(1);
    await deleted(api, del.load, { native_system_load_permalink: tree.load.native_system_load_permalink });
    const after = await read();
    expect(after.headers.get('x-response-cache')).not.toBe('hit');
    expect((await after.json()).data.loads).toEqual({ totalCount: 0, edges: [] });
  });
});

describe('ingest health', () => {
  test('a deleted load with an unmapped status is not listed among unmapped statuses', async ({ api, tenant }) => {
    const tree = await seedLoadTree(api, tenant, { load: { native_system_load_status: 'Odd Status' } });
    const query = 'query { ingestHealth { unmappedStatusCounts { status loadCount } } }';
    const before = await gqlData(api, query, {}, noCache);
    expect(before.ingestHealth.unmappedStatusCounts).toContainEqual({ status: 'Odd Status', loadCount: 1 });
    await deleted(api, del.load, { native_system_load_permalink: tree.load.native_system_load_permalink });
    const after = await gqlData(api, query, {}, noCache);
    expect(after.ingestHealth.unmappedStatusCounts).toEqual([]);
  });
});
