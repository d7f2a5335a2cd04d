/**
 * `loads(filter: { city })` through the load-level set of stop cities (`load_cities`,
 * docs/decisions/0036-load-city-set.md), which the write statements keep: after every write that can
 * move a stop into or out of a load's cities (a stop created, its city changed, moved to a leg of
 * another load, deleted, revived; a leg moved to another load, deleted, revived; a load deleted and
 * revived; a stale write skipped), the compiled path and the resolvers (which read the stops themselves)
 * find the same loads, and the set equals a recount from the live stops.
 */
import type { Database } from '../../../src/db/database.js';
import { loadBody, loadLegBody, stopBody } from '../../factories/records.js';
import { describe, expect, test } from '../../fixtures.js';
import { purgeTombstones } from '../../../src/domain/ingestion/tombstones.js';
import { apiFor, resolversApp, type TestApp, type TestTenant } from '../../helpers/app.js';

type Body = Record<string, unknown>;

/** The tenant's set, read with SQL: `city → load permalink → count`, rows counting 0 left out. */
async function storedSet(db: Database, tenantId: string): Promise<string[]> {
  const rows = await db.sql.query<{ city: string; load: string; stops: number }>(
    `SELECT c.city_key AS city, l.permalink AS load, c.stops FROM load_cities c JOIN loads l ON l.tenant_id = c.tenant_id AND l.id = c.load_id
     WHERE c.tenant_id = $1 AND c.stops <> 0`,
    [tenantId],
  );
  return rows.map((row) => `${row.city} ${row.load} ${row.stops}`).sort();
}

/** The same, recounted from the stops: every live stop with a city, by the load its leg names. */
async function recountedSet(db: Database, tenantId: string): Promise<string[]> {
  const rows = await db.sql.query<{ city: string; load: string; stops: number }>(
    `SELECT s.city_key AS city, l.permalink AS load, count(*)::int AS stops
     FROM stops s JOIN load_legs g ON g.tenant_id = s.tenant_id AND g.id = s.leg_id JOIN loads l ON l.tenant_id = g.tenant_id AND l.id = g.load_id
     WHERE s.tenant_id = $1 AND s.deleted_at IS NULL AND s.city_key IS NOT NULL GROUP BY 1, 2`,
    [tenantId],
  );
  return rows.map((row) => `${row.city} ${row.load} ${row.stops}`).sort();
}

const query = 'query ($city: String) { loads(first: 50, filter: { city: $city }) { totalCount edges { node { permalink } } } }';

/** A tenant's writes and the checks after each: the loads each path finds for a city, and the set against its recount. */
async function citySession(testApp: TestApp, tenant: TestTenant) {
  const api = apiFor(testApp, tenant.apiKey);
  const resolvers = apiFor(await resolversApp(testApp), tenant.apiKey);
  const { db } = testApp.database;
  const post = async (path: string, body: Body) => {
    const res = await api.post(path, body);
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body;
  };
  return {
    api,
    post,
    upsert: (kind: 'loads' | 'loadlegs' | 'stops', ...records: Body[]) => post(`/api/v1/${kind}/bulk_upsert`, { records }),
    remove: (kind: 'loads' | 'loadlegs' | 'stops', permalinkField: string, body: Body) =>
      post(`/api/v1/${kind}/delete`, { [permalinkField]: body[permalinkField] }),
    /** The loads (permalinks, sorted) the city filter finds; both paths must agree, and the set must equal its recount. */
    async loadsIn(city: string): Promise<string[]> {
      expect(await storedSet(db, tenant.id)).toEqual(await recountedSet(db, tenant.id));
      const answers: string[][] = [];
      for (const [path, execution] of [
        [api, 'compiled'],
        [resolvers, 'resolvers'],
      ] as const) {
        const res = await path.post('/graphql', { query, variables: { city } }, { 'cache-control': 'no-cache' });
        expect(res.body.errors).toBeUndefined();
        expect(res.headers.get('x-graphql-execution')).toBe(execution);
        const found = res.body.data.loads.edges.map((edge: { node: { permalink: string } }) => edge.node.permalink).sort();
        expect(res.body.data.loads.totalCount).toBe(found.length);
        answers.push(found);
      }
      expect(answers[0]).toEqual(answers[1]);
      return answers[0]!;
    },
  };
}

const stopKey = 'native_system_stop_permalink';
const legKey = 'native_system_load_leg_permalink';
const loadKey = 'native_system_load_permalink';

describe('the city filter follows every write of stops, legs and loads', () => {
  test('stops: created, city changed, moved to another load, deleted, revived, skipped when stale', async ({ testApp, tenant }) => {
    const s = await citySession(testApp, tenant);
    const [a, b] = [loadBody(tenant), loadBody(tenant)];
    await s.upsert('loads', a, b);
    const [ga, gb] = [loadLegBody(tenant, a), loadLegBody(tenant, b)];
    await s.upsert('loadlegs', ga, gb);
    const stop = stopBody(tenant, ga, { city: 'Chicago' });
    await s.upsert('stops', stop);
    expect(await s.loadsIn('chicago')).toEqual([a[loadKey]]);
    expect(await s.loadsIn(' CHICAGO ')).toEqual([a[loadKey]]);

    await s.upsert('stops', { ...stop, city: 'Dallas' });
    expect(await s.loadsIn('chicago')).toEqual([]);
    expect(await s.loadsIn('dallas')).toEqual([a[loadKey]]);

    await s.upsert('stops', { ...stop, city: 'Dallas', [legKey]: gb[legKey] });
    expect(await s.loadsIn('dallas')).toEqual([b[loadKey]]);

    // A body without `city` keeps the stored city (keep-unless-sent); a null clears it.
    const withoutCity = { ...stop };
    delete withoutCity.city;
    await s.upsert('stops', { ...withoutCity, [legKey]: ga[legKey] });
    expect(await s.loadsIn('dallas')).toEqual([a[loadKey]]);
    await s.upsert('stops', { ...stop, city: null });
    expect(await s.loadsIn('dallas')).toEqual([]);
    await s.upsert('stops', { ...stop, city: 'Dallas' });

    await s.remove('stops', stopKey, stop);
    expect(await s.loadsIn('dallas')).toEqual([]);
    await s.remove('stops', stopKey, stop);
    expect(await s.loadsIn('dallas')).toEqual([]);

    await s.upsert('stops', { ...stop, city: 'Denver', [legKey]: gb[legKey] });
    expect(await s.loadsIn('denver')).toEqual([b[loadKey]]);

    // A stale write is skipped: the stop stays where it is.
    const stale = await s.post('/api/v1/stops/upsert?sync_run_time=2000-01-01T00:00:00Z', { ...stop, city: 'Reno', [legKey]: ga[legKey] });
    expect(stale).toMatchObject({ status: 'skipped' });
    expect(await s.loadsIn('denver')).toEqual([b[loadKey]]);
    expect(await s.loadsIn('reno')).toEqual([]);
  });

  test('stops of one statement: two in one load and city, a swap of cities, one of two deleted', async ({ testApp, tenant }) => {
    const s = await citySession(testApp, tenant);
    const load = loadBody(tenant);
    await s.upsert('loads', load);
    const [g1, g2] = [loadLegBody(tenant, load), loadLegBody(tenant, load, { load_leg_sequence: 2 })];
    await s.upsert('loadlegs', g1, g2);
    const [x, y] = [stopBody(tenant, g1, { city: 'Chicago' }), stopBody(tenant, g2, { city: 'Chicago', stop_sequence: 2 })];
    await s.upsert('stops', x, y);
    expect(await s.loadsIn('chicago')).toEqual([load[loadKey]]);
    await s.upsert('stops', { ...x, city: 'Dallas' }, { ...y, city: 'chicago' });
    expect(await s.loadsIn('chicago')).toEqual([load[loadKey]]);
    expect(await s.loadsIn('dallas')).toEqual([load[loadKey]]);
    await s.upsert('stops', { ...x, city: 'Chicago' }, { ...y, city: 'Dallas' });
    await s.remove('stops', stopKey, x);
    expect(await s.loadsIn('chicago')).toEqual([]);
    expect(await s.loadsIn('dallas')).toEqual([load[loadKey]]);
    await s.post('/api/v1/stops/bulk_delete', { records: [{ [stopKey]: y[stopKey] }] });
    expect(await s.loadsIn('dallas')).toEqual([]);
  });

  test('legs: moved to another load (and back, swapped in one statement), deleted with their stops, revived without them', async ({ testApp, tenant }) => {
    const s = await citySession(testApp, tenant);
    const [a, b] = [loadBody(tenant), loadBody(tenant)];
    await s.upsert('loads', a, b);
    const [ga, gb] = [loadLegBody(tenant, a), loadLegBody(tenant, b)];
    await s.upsert('loadlegs', ga, gb);
    await s.upsert('stops', stopBody(tenant, ga, { city: 'Chicago' }), stopBody(tenant, ga, { city: 'Chicago', stop_sequence: 2 }));
    await s.upsert('stops', stopBody(tenant, gb, { city: 'Omaha' }));
    expect(await s.loadsIn('chicago')).toEqual([a[loadKey]]);

    const moved = { ...ga, [loadKey]: b[loadKey], native_system_load_id: b.native_system_load_id };
    await s.upsert('loadlegs', moved);
    expect(await s.loadsIn('chicago')).toEqual([b[loadKey]]);
    // The legs swap loads in one statement.
    await s.upsert('loadlegs', ga, { ...gb, [loadKey]: a[loadKey], native_system_load_id: a.native_system_load_id });
    expect(await s.loadsIn('chicago')).toEqual([a[loadKey]]);
    expect(await s.loadsIn('omaha')).toEqual([a[loadKey]]);
    await s.upsert('loadlegs', gb);
    expect(await s.loadsIn('omaha')).toEqual([b[loadKey]]);

    await s.remove('loadlegs', legKey, ga);
    expect(await s.loadsIn('chicago')).toEqual([]);
    // A revived leg's children stay deleted; a revived leg that moves takes no stop with it either.
    await s.upsert('loadlegs', moved);
    expect(await s.loadsIn('chicago')).toEqual([]);
    await s.upsert('stops', stopBody(tenant, ga, { city: 'Chicago' }));
    expect(await s.loadsIn('chicago')).toEqual([b[loadKey]]);
  });

  test('loads: deleted with their legs and stops, revived without them', async ({ testApp, tenant }) => {
    const s = await citySession(testApp, tenant);
    const [a, b] = [loadBody(tenant), loadBody(tenant)];
    await s.upsert('loads', a, b);
    const [ga, gb] = [loadLegBody(tenant, a), loadLegBody(tenant, b)];
    await s.upsert('loadlegs', ga, gb);
    await s.upsert('stops', stopBody(tenant, ga, { city: 'Boise' }), stopBody(tenant, gb, { city: 'Boise' }));
    expect(await s.loadsIn('boise')).toEqual([a[loadKey], b[loadKey]].sort());
    await s.post('/api/v1/loads/bulk_delete', { records: [{ [loadKey]: a[loadKey] }] });
    expect(await s.loadsIn('boise')).toEqual([b[loadKey]]);
    await s.upsert('loads', a);
    expect(await s.loadsIn('boise')).toEqual([b[loadKey]]);
    await s.upsert('loadlegs', ga);
    expect(await s.loadsIn('boise')).toEqual([b[loadKey]]);
  });

  test('the tombstone purge leaves the set equal to its recount', async ({ testApp, tenant }) => {
    const s = await citySession(testApp, tenant);
    const [a, b] = [loadBody(tenant), loadBody(tenant)];
    await s.upsert('loads', a, b);
    const [ga, gb, gb2] = [loadLegBody(tenant, a), loadLegBody(tenant, b), loadLegBody(tenant, b, { load_leg_sequence: 2 })];
    await s.upsert('loadlegs', ga, gb, gb2);
    const stops = [stopBody(tenant, ga, { city: 'Tulsa' }), stopBody(tenant, gb, { city: 'Tulsa' }), stopBody(tenant, gb2, { city: 'Fresno' })];
    await s.upsert('stops', ...stops);
    await s.remove('loads', loadKey, a);
    await s.remove('loadlegs', legKey, gb2);
    await s.remove('stops', stopKey, stops[1]!);
    testApp.clock.advance(60_000);
    expect(await purgeTombstones(testApp.database.db, testApp.clock.now())).toBeGreaterThan(0);
    expect(await s.loadsIn('tulsa')).toEqual([]);
    expect(await s.loadsIn('fresno')).toEqual([]);
    await s.upsert('stops', stopBody(tenant, gb, { city: 'Fresno' }));
    expect(await s.loadsIn('fresno')).toEqual([b[loadKey]]);
  });
});
