/**
 * What a GraphQL read costs in statements. The resolvers (Pothos over Prisma) must batch: a page costs the
 * same statements for 5 loads as for 25. Those tests ask an app with the compiled reads off
 * (`compiledReads: false`, the option the differential test uses) over the same database, since the
 * compiled path (src/graphql/compiled-read.ts) answers these queries first; `X-GraphQL-Execution` says
 * which path answered. The compiled path answers the same page in one statement.
 */
import { describe, expect, test } from '../../fixtures.js';
import { carrierBody, loadBody, loadLegBody, loadUpdateBody, routes, seed, stopBody } from '../../factories/records.js';
import { gqlData, gqlError, loadTreeFields } from '../../factories/graphql.js';
import { apiFor, resolversApp, type Api, type TestApp, type TestTenant } from '../../helpers/app.js';
import { isPassStatement } from '../../../src/domain/events/sequencer.js';

/** `count` loads, each with two legs (with a carrier), two stops per leg and two updates. */
async function seedLoads(api: Api, tenant: { slug: string }, count: number) {
  const carrier = await seed(api, routes.carrier, carrierBody(tenant));
  for (let i = 0; i < count; i++) {
    const load = await seed(api, routes.load, loadBody(tenant));
    for (const sequence of [1, 2]) {
      const leg = await seed(
        api,
        routes.load_leg,
        loadLegBody(tenant, load, { load_leg_sequence: sequence, native_system_carrier_permalink: carrier.native_system_carrier_permalink }),
      );
      for (const stopSequence of [1, 2]) await seed(api, routes.stop, stopBody(tenant, leg, { stop_sequence: stopSequence }));
    }
    for (const day of [20, 21]) await seed(api, routes.load_update, loadUpdateBody(tenant, load, { occurred_at: `2026-11-${day}T10:00:00Z` }));
  }
}

const pageQuery = /* GraphQL */ `{
  loads(first: 50) {
    totalCount
    edges { cursor node { ${loadTreeFields} latest: updates(first: 1) { message occurredAt } } }
  }
}`;

/** SQL statements the database received while one GraphQL request ran, and which path answered it. */
async function statementsOf(testApp: TestApp, api: Api, query: string) {
  const statements: string[] = [];
  const stop = testApp.database.db.onStatement((sql) => statements.push(sql));
  try {
    const res = await api.graphql(query);
    expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
    const data = res.body.data;
    return { data, statements, execution: res.headers.get('x-graphql-execution') };
  } finally {
    stop();
  }
}

/** Two tenants, one with 5 load trees and one with 25, seeded once for the file (over HTTP: a while on a busy machine). */
let seeded: Promise<{ small: TestTenant; large: TestTenant }> | undefined;
const seededTenants = (testApp: TestApp) =>
  (seeded ??= (async () => {
    const small = await testApp.createTenant({ tmsUrlTemplate: 'https://tms.example/{key}' });
    const large = await testApp.createTenant({ tmsUrlTemplate: 'https://tms.example/{key}' });
    await seedLoads(apiFor(testApp, small.apiKey), small, 5);
    await seedLoads(apiFor(testApp, large.apiKey), large, 25);
    // The last writes' numbering passes follow their answers (decision 0045): done before any statement is counted.
    await testApp.app.services.sequencer.idle();
    return { small, large };
  })());

/** The same page asked of the resolvers (an app with the compiled reads off, on the same database) for both tenants. */
async function resolversAnswer(testApp: TestApp, query: string) {
  const { small, large } = await seededTenants(testApp);
  const resolvers = await resolversApp(testApp);
  const few = await statementsOf(testApp, apiFor(resolvers, small.apiKey), query);
  const many = await statementsOf(testApp, apiFor(resolvers, large.apiKey), query);
  expect([few.execution, many.execution]).toEqual(['resolvers', 'resolvers']);
  return { few, many, resolvers, large };
}

describe('query efficiency of the resolvers', () => {
  test('a page of loads with legs, carriers, stops and updates costs the same statements for 5 loads as for 25', { timeout: 180_000 }, async ({ testApp }) => {
    const { few, many } = await resolversAnswer(testApp, pageQuery);
    expect(few.data.loads.edges).toHaveLength(5);
    expect(many.data.loads.edges).toHaveLength(25);
    expect(many.data.loads.edges[24].node.legs[1].stops).toHaveLength(2);
    expect(many.data.loads.edges[24].node.legs[1].carrier).not.toBeNull();
    expect(many.statements.length).toBe(few.statements.length);
    // authentication; loads and their count; legs, their load, carriers, stops, updates, phase changes: one
    // statement each for the whole page; the aliased second `updates` selection: one batched pair
    expect(many.statements.length).toBeLessThanOrEqual(12);
  });

  test(
    'the dashboard board (activity fields, ACTIVITY_DESC, activity, carrier and city filters) costs the same statements for 5 loads as for 25',
    { timeout: 180_000 },
    async ({ testApp }) => {
      const board = /* GraphQL */ `{
      loads(first: 50, orderBy: ACTIVITY_DESC, filter: { activitySince: "2000-01-01T00:00:00Z", city: "chicago" }) {
        totalCount
        edges { node { ${loadTreeFields} lastActivityAt lastUpdate { occurredAt message } lastLocation { latitude longitude } nextStop { permalink city } } }
      }
    }`;
      const { few, many, resolvers, large } = await resolversAnswer(testApp, board);
      expect(few.data.loads.edges).toHaveLength(5);
      expect(many.data.loads.edges).toHaveLength(25);
      expect(many.data.loads.edges[24].node.nextStop).not.toBeNull();
      expect(many.data.loads.edges[24].node.lastUpdate).not.toBeNull();
      expect(many.statements.length).toBe(few.statements.length);
      expect(many.statements.length).toBeLessThanOrEqual(16);
      // The carrier filter adds no statement either.
      const carrier = many.data.loads.edges[0].node.legs[0].carrier.permalink;
      const byCarrier = await statementsOf(testApp, apiFor(resolvers, large.apiKey), board.replace('city: "chicago"', `carrier: "${carrier}"`));
      expect(byCarrier.execution).toBe('resolvers');
      expect(byCarrier.data.loads.totalCount).toBe(25);
      expect(byCarrier.statements.length).toBe(many.statements.length);
    },
  );

  test('updates(first: n) has the database read at most n updates per load, not all of them', async ({ api, tenant, testApp }) => {
    const load = await seed(api, routes.load, loadBody(tenant));
    for (let hour = 10; hour < 22; hour++) {
      await seed(api, routes.load_update, loadUpdateBody(tenant, load, { occurred_at: `2026-11-20T${hour}:00:00Z` }));
    }
    const resolvers = apiFor(await resolversApp(testApp), tenant.apiKey);
    const { data, statements, execution } = await statementsOf(
      testApp,
      resolvers,
      `{ loads(first: 5) { edges { node { updates(first: 2) { occurredAt } } } } }`,
    );
    expect(execution).toBe('resolvers');
    expect(data.loads.edges[0].node.updates).toEqual([{ occurredAt: '2026-11-20T21:00:00.000Z' }, { occurredAt: '2026-11-20T20:00:00.000Z' }]);
    const readingUpdates = statements.filter((sql) => /\bload_updates\b/.test(sql));
    expect(readingUpdates.length).toBeGreaterThan(0);
    for (const sql of readingUpdates) expect(sql).toMatch(/\bLIMIT\b/);
  });
});

describe('query efficiency of the compiled path', () => {
  test('the same page of load trees is one statement beside authentication, for 5 loads as for 25', { timeout: 180_000 }, async ({ testApp }) => {
    const { small, large } = await seededTenants(testApp);
    const few = await statementsOf(testApp, apiFor(testApp, small.apiKey), pageQuery);
    const many = await statementsOf(testApp, apiFor(testApp, large.apiKey), pageQuery);
    expect([few.execution, many.execution]).toEqual(['compiled', 'compiled']);
    expect(few.data.loads.edges).toHaveLength(5);
    expect(many.data.loads.edges).toHaveLength(25);
    expect(many.data.loads.edges[24].node.legs[1].stops).toHaveLength(2);
    for (const { statements } of [few, many]) {
      // The API key's lookup (authentication), then the page: loads, their count, legs, carriers, stops and updates in
      // one. A tenant's pass that an earlier read started may end meanwhile: not the page's.
      const page = statements.filter((sql) => !isPassStatement(sql));
      const reads = page.filter((sql) => !/\bFROM "public"\."api_keys"/.test(sql));
      expect(page).toHaveLength(reads.length + 1);
      expect(reads).toHaveLength(1);
      for (const table of ['loads', 'load_legs', 'carriers', 'stops', 'load_updates']) expect(reads[0]).toMatch(new RegExp(`\\b${table}\\b`));
    }
  });
});

describe('query limits', () => {
  test('a query nested deeper than the limit is rejected with validation_failed before it runs', async ({ api, tenant, testApp }) => {
    const load = await seed(api, routes.load, loadBody(tenant));
    const deep = `query ($p: String!) { load(permalink: $p) { legs { load { legs { load { legs { load { legs { load { legs { load { permalink } } } } } } } } } } } }`;
    const statements: string[] = [];
    const stop = testApp.database.db.onStatement((sql) => statements.push(sql));
    const { error } = await gqlError(api, deep, { p: load.native_system_load_permalink }).finally(stop);
    expect(error.extensions).toMatchObject({ code: 'validation_failed', details: [{ field: 'query', issue: expect.stringContaining('depth') }] });
    expect(statements.filter((s) => s.includes('"loads"'))).toEqual([]);
  });

  test('a query costing more than the limit is rejected with validation_failed', async ({ api }) => {
    const aliases = Array.from({ length: 5 }, (_, i) => `a${i}: loads(first: 100) { edges { node { ${loadTreeFields} } } }`).join('\n');
    const { error } = await gqlError(api, `{ ${aliases} }`);
    expect(error.extensions).toMatchObject({ code: 'validation_failed', details: [{ field: 'query', issue: expect.stringContaining('complexity') }] });
    expect(error.message).toMatch(/too costly/);
  });

  test('the same query with a small page is within the limit', async ({ api }) => {
    const data = await gqlData(api, `{ loads(first: 20) { edges { node { ${loadTreeFields} } } } }`);
    expect(data.loads.edges).toEqual([]);
  });
});
