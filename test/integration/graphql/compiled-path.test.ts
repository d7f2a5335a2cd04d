/**
 * The board's, the dashboards' and the README's queries are answered by the compiled reads
 * (src/graphql/compiled-read.ts: one statement, PostgreSQL's JSON passed through), never by the
 * resolvers: `X-GraphQL-Execution` says which path answered a query.
 */
import { readFileSync } from 'node:fs';
import { boardQueries } from '../../../bench/board-queries.js';
import { describe, expect, test } from '../../fixtures.js';
import { seedLoadTree } from '../../factories/records.js';
import { apiFor } from '../../helpers/app.js';

/** The documents users send: the bench's board queries, the live-board guide's and tutorial's dashboards, the README's carriers. */
const documents = [
  ...boardQueries.map(({ label, document }) => ({ label, document, variables: {} })),
  {
    label: 'live-board guide dashboard',
    document: `query Board($since: DateTime) { loads(first: 50, orderBy: ACTIVITY_DESC, filter: { activitySince: $since, city: "chicago" }) {
      totalCount edges { node { permalink status phase lastActivityAt lastUpdate { type occurredAt message }
      lastLocation { latitude longitude occurredAt } nextStop { permalink city appointmentStart arrivedAt } } } } }`,
    variables: { since: '2000-01-01T00:00:00Z' },
  },
  {
    label: 'first-sync tutorial board',
    document: `query Board { loads(first: 20, orderBy: ACTIVITY_DESC) { totalCount edges { node { permalink status phase lastActivityAt
      lastUpdate { type occurredAt } lastLocation { latitude longitude } nextStop { permalink city } } } } }`,
    variables: {},
  },
  { label: 'README carriers', document: '{ carriers(first: 10) { edges { node { permalink name mcNumber } } } }', variables: {} },
];

/** The console's load lookup (src/console/console.js `lookUp`), read from the console's source: it asks for one load. */
const consoleLookup = /`(query \(\$p: String!\) \{ load\(permalink: \$p, includeDeleted: true\)[^`]*)`/.exec(
  readFileSync(new URL('../../../src/console/console.js', import.meta.url), 'utf8'),
)![1]!;

describe('the board, dashboard and README queries stay on the compiled path', () => {
  for (const { label, document, variables } of documents) {
    test(`${label}: X-GraphQL-Execution: compiled`, async ({ testApp, api, tenant }) => {
      // Both loads match every board (the search's reference fragment, the dashboards' city).
      for (const reference of ['CR-B4242-1', 'CR-B4242-2']) {
        await seedLoadTree(api, tenant, { load: { native_system_customer_reference_number: reference } });
      }
      // no-cache: the answer is computed, not served by the response cache.
      const res = await apiFor(testApp, tenant.apiKey).post('/graphql', { query: document, variables }, { 'cache-control': 'no-cache' });
      expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
      expect(Object.values(res.body.data as Record<string, { edges: unknown[] }>)[0]!.edges.length).toBeGreaterThan(0);
      expect(res.headers.get('x-graphql-execution')).toBe('compiled');
    }, 120_000);
  }

  test("the console's load lookup: X-GraphQL-Execution: compiled", async ({ api, tenant }) => {
    const { load } = await seedLoadTree(api, tenant);
    const res = await api.post('/graphql', { query: consoleLookup, variables: { p: load.native_system_load_permalink } }, { 'cache-control': 'no-cache' });
    expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
    expect(res.body.data.load.history.length).toBeGreaterThan(0);
    expect(res.headers.get('x-graphql-execution')).toBe('compiled');
  });

  test('GET and HEAD /graphql are compiled like POST', async ({ testApp, api, tenant }) => {
    await seedLoadTree(api, tenant);
    const url = `/graphql?query=${encodeURIComponent('{ loads(first: 5) { totalCount edges { node { permalink } } } }')}`;
    const headers = { 'x-api-key': tenant.apiKey, accept: 'application/json', 'cache-control': 'no-cache' };
    const get = await testApp.fetch(url, { headers });
    expect(get.status).toBe(200);
    expect(get.headers.get('x-graphql-execution')).toBe('compiled');
    expect(((await get.json()) as { data: { loads: { totalCount: number } } }).data.loads.totalCount).toBe(1);
    const head = await testApp.fetch(url, { method: 'HEAD', headers });
    expect(head.status).toBe(200);
    expect(head.headers.get('x-graphql-execution')).toBe('compiled');
    expect(await head.text()).toBe('');
  });

  test('an operation with a field the compiler does not list is answered by the resolvers, and says so', async ({ api, tenant }) => {
    await seedLoadTree(api, tenant);
    const res = await api.post('/graphql', { query: '{ viewer { slug } loads(first: 5) { edges { node { permalink } } } }' });
    expect(res.body.errors).toBeUndefined();
    expect(res.headers.get('x-graphql-execution')).toBe('resolvers');
  });
});
