/**
 * Issue 37, items 3 and 9: every query the compiler accepts compiles to a statement that runs (the
 * trivial ones too: `{ __typename }` bound the tenant id as `$1` and never used it, so PostgreSQL refused
 * the statement, 42P18, and every ping logged a warning), and a compiled answer is the resolvers' answer
 * byte for byte (PostgreSQL writes `{"a" : 1}`, `[1, 2]`, `1e-05`; JSON.stringify `{"a":1}`, `[1,2]`, `1e-5`).
 */
import { boardQueries } from '../../../bench/board-queries.js';
import { describe, expect, test } from '../../fixtures.js';
import { loadUpdateBody, routes, seed, seedLoadTree } from '../../factories/records.js';
import { loggingApp, resolversApp, type TestApp } from '../../helpers/app.js';

/** One query's answer as bytes, with the path that answered it (computed: no response cache). */
async function answer(app: TestApp, apiKey: string, query: string, variables: Record<string, unknown> = {}) {
  const res = await app.fetch('/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': apiKey, 'cache-control': 'no-cache' },
    body: JSON.stringify({ query, variables }),
  });
  return { status: res.status, path: res.headers.get('x-graphql-execution'), text: await res.text() };
}

/** Trivial queries: the compiler takes the first and the connection ones; `viewer` is the resolvers'. */
const trivial = [
  { query: '{ __typename }', path: 'compiled' },
  { query: '{ viewer { slug } }', path: 'resolvers' },
  { query: '{ loads { __typename } }', path: 'compiled' },
  { query: '{ loads(first: 1) { totalCount } }', path: 'compiled' },
  { query: '{ carriers { pageInfo { hasNextPage } } }', path: 'compiled' },
  { query: '{ a: __typename b: loads(first: 0) { edges { cursor } } }', path: 'compiled' },
];

describe('trivial queries compile to statements that run', () => {
  test('no warning is logged and the answer is the resolvers', async ({ testApp, api, tenant }) => {
    await seedLoadTree(api, tenant);
    const { app, lines } = await loggingApp(testApp);
    const resolvers = await resolversApp(testApp);
    for (const { query, path } of trivial) {
      const compiled = await answer(app, tenant.apiKey, query);
      expect(compiled.status, query).toBe(200);
      expect(compiled.path, query).toBe(path);
      expect(compiled.text, query).toBe((await answer(resolvers, tenant.apiKey, query)).text);
    }
    expect(JSON.parse((await answer(app, tenant.apiKey, '{ __typename }')).text)).toEqual({ data: { __typename: 'Query' } });
    expect(lines.filter((line) => line.level >= 40)).toEqual([]);
  });
});

describe('a compiled answer is the resolvers answer, byte for byte', () => {
  test('the board queries, the lookup of a load with JSON extra fields and floats PostgreSQL writes in exponent notation', async ({ testApp, api, tenant }) => {
    const extra = {
      note: 'a : b, c',
      nested: { z: [1.5, 2, { y: null }], a: 'x' },
      '10': 'integer-like key',
      '2': 'another',
      big: 1e21,
      tiny: 1e-7,
      text: 'tab\tquote" backslash\\ é ✓',
    };
    const { load } = await seedLoadTree(api, tenant, { load: extra });
    await seed(api, routes.load_update, loadUpdateBody(tenant, load, { update_type: 'gps_ping', latitude: 0.00001, longitude: -123.456789012345 }));
    await seed(
      api,
      routes.load_update,
      loadUpdateBody(tenant, load, { update_type: 'gps_ping', latitude: 41.88, longitude: -87.63, occurred_at: '2026-11-21T10:00:00Z' }),
    );
    const resolvers = await resolversApp(testApp);
    const permalink = load.native_system_load_permalink as string;
    const documents = [
      ...boardQueries.map(({ document }) => document),
      `{ load(permalink: ${JSON.stringify(permalink)}) { permalink extra changedAt updates { latitude longitude occurredAt extra } lastLocation { latitude longitude }
         legs { extra stops { extra city } carrier { name extra } } } }`,
      '{ carriers(first: 5) { totalCount edges { cursor node { permalink name extra } } pageInfo { hasNextPage endCursor } } }',
    ];
    const texts: string[] = [];
    for (const document of documents) {
      const compiled = await answer(testApp, tenant.apiKey, document);
      const reference = await answer(resolvers, tenant.apiKey, document);
      expect(compiled.path, document).toBe('compiled');
      expect(reference.path).toBe('resolvers');
      expect(compiled.text, document).toBe(reference.text);
      texts.push(compiled.text);
    }
    // The lookup holds what PostgreSQL writes otherwise: float8 `1e-05`, numeric 1000000000000000000000, jsonb's key order.
    const lookup = texts[boardQueries.length]!;
    expect(lookup).toContain('"latitude":0.00001,');
    expect(lookup).toContain('"extra":{"2":"another","10":"integer-like key",');
    expect(lookup).toContain('"big":1e+21,');
  });
});
