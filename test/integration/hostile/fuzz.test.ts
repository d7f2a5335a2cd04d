/**
 * Property-based fuzzing (issue 9, point 4) of every REST operation (route registry + OpenAPI
 * document: body, query, headers, content type and length, bulk envelopes included) and every GraphQL
 * root field (schema introspection: each query's arguments, each mutation's input). Every case must
 * get a 200 or a 4xx JSON error (GraphQL: no fault error), never a 500, a hang or a crash; nothing is
 * stored for a rejected record; and the victim tenant's rows come out unchanged.
 *
 * `npm test` runs a few cases per operation; `npm run fuzz` runs 5,000 (FUZZ_RUNS). The seed is
 * printed; replay a failure with `FUZZ_SEED=<seed> npm run fuzz` (add `FUZZ_PATH=<path>` from
 * fast-check's report to go straight to the shrunk case).
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { injectionPayloads } from '../../hostile/arbitraries.js';
import {
  adminKey,
  expectGraphQLContract,
  expectRestContract,
  fuzzEnv,
  fuzzPath,
  fuzzRuns,
  graphqlRuns,
  fuzzSeed,
  seededTenant,
  send,
  snapshot,
  StoredCheck,
} from '../../hostile/harness.js';
import { graphqlCase, introspect, restCase, restOperations, schemaContext, type GraphQLSurface, type Pool } from '../../hostile/surface.js';
import { apiFor, createTestApp, type TestApp, type TestTenant } from '../../helpers/app.js';

console.log(`fuzz: seed ${fuzzSeed}, ${fuzzRuns} cases per REST operation, ${graphqlRuns} per GraphQL field (replay: FUZZ_SEED=${fuzzSeed} npm run fuzz)`);

const params = (label: string): fc.Parameters<unknown> => ({
  numRuns: fuzzRuns,
  seed: fuzzSeed,
  path: fuzzPath,
  endOnFailure: true,
  reporter: (details) => {
    if (details.failed) {
      throw new Error(
        `${label}: ${String(details.errorInstance).slice(0, 2_000)}\n${fc.defaultReportMessage(details)}\nReplay: FUZZ_SEED=${details.seed} FUZZ_PATH=${details.counterexamplePath} FUZZ_RUNS=${fuzzRuns} npm run fuzz`,
      );
    }
  },
});
const timeout = 120_000 + fuzzRuns * 150;

let testApp: TestApp;
let fuzzer: TestTenant;
let victim: TestTenant;
let pool: Pool;
let victimBefore: unknown[];
let surface: GraphQLSurface;
/** Permalinks stored for the fuzzing tenant: seeded, or accepted by an answer. */
const known = new Set<string>();

beforeAll(async () => {
  testApp = await createTestApp({ env: fuzzEnv });
  ({ tenant: fuzzer, pool } = await seededTenant(testApp));
  ({ tenant: victim } = await seededTenant(testApp));
  for (const values of pool.values()) for (const v of values) known.add(v);
  victimBefore = await snapshot(testApp, victim.id);
  surface = await introspect(testApp, fuzzer.apiKey);
}, 120_000);

afterAll(async () => testApp?.close());

const keys = () => ({ tenant: fuzzer.apiKey, admin: adminKey, slug: fuzzer.slug });
const context = () => schemaContext(fuzzer.slug, pool, victim.slug);

describe('REST fuzzing: every operation of the route registry', () => {
  test.for(restOperations().map((op) => [op.name, op] as const))('%s', { timeout }, async ([name, op]) => {
    const stored = new StoredCheck(known);
    await fc.assert(
      fc.asyncProperty(restCase(op, context(), keys()), async (c) => {
        let request: Request;
        try {
          request = new Request(`http://test${c.path}`, { method: c.method, headers: c.headers, body: c.body });
        } catch {
          fc.pre(false); // not a request any HTTP client can send
          return;
        }
        const answer = await send(testApp, c.path, { method: request.method, headers: request.headers, body: c.body });
        expectRestContract(answer);
        stored.note(c.value, answer.status === 200 ? answer.body : null, () => JSON.stringify(c).slice(0, 1_000));
      }),
      params(name),
    );
    await stored.verify(testApp, fuzzer.id);
  });

  test('SQL and script payloads are stored verbatim and answered as JSON, never executed', { timeout }, async () => {
    const api = apiFor(testApp, fuzzer.apiKey);
    const payloads = fc.constantFrom(...injectionPayloads);
    await fc.assert(
      fc.asyncProperty(payloads, payloads, async (a, b) => {
        const id = `SQL${Math.random().toString(36).slice(2, 10)}`;
        const body = {
          native_system_load_permalink: `${id}-${fuzzer.slug}`,
          native_system_load_id: a,
          native_system_load_status: b,
          bol_number: a,
          customer_name: b,
          extra_note: a,
        };
        const res = await api.post('/api/v1/loads/upsert', body);
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        const [row] = await testApp.database.db.sql.query<{
          tms_id: string;
          status: string;
          bol_number: string;
          customer_name: string;
          extra: Record<string, unknown>;
        }>('SELECT tms_id, status, bol_number, customer_name, extra FROM loads WHERE tenant_id = $1 AND permalink = $2', [
          fuzzer.id,
          body.native_system_load_permalink,
        ]);
        expect(row).toMatchObject({ tms_id: a, status: b, bol_number: a, customer_name: b, extra: { extra_note: a } });
        const read = await api.graphql('query ($p: String!) { load(permalink: $p) { tmsId status bolNumber customerName extra } }', {
          p: body.native_system_load_permalink,
        });
        expect(read.headers.get('content-type')).toMatch(/json/);
        expect(read.body.data.load).toEqual({ tmsId: a, status: b, bolNumber: a, customerName: b, extra: { extra_note: a } });
        known.add(body.native_system_load_permalink);
      }),
      { ...params('payloads'), numRuns: Math.min(fuzzRuns, 200) },
    );
  });
});

describe('GraphQL fuzzing: every root field from introspection', () => {
  // The field list is read at run time (introspection needs the app): one test walks them all,
  // reporting the field a failure belongs to.
  test.for(['query', 'mutation'] as const)('every %s field', { timeout: 120_000 + graphqlRuns * 30 * 150 }, async (kind) => {
    const fields = kind === 'query' ? surface.queries : surface.mutations;
    expect(fields.length).toBeGreaterThan(0);
    for (const field of fields) {
      const stored = new StoredCheck(known);
      await fc.assert(
        fc.asyncProperty(graphqlCase(surface, kind, field, context(), keys()), async (c) => {
          const answer = await send(testApp, '/graphql', {
            method: 'POST',
            headers: { 'content-type': 'application/json', accept: 'application/json', ...c.headers },
            body: JSON.stringify({ query: c.query, variables: c.variables }),
          });
          expectGraphQLContract(answer);
          stored.note(c.variables, answer.body?.data ?? null, () => JSON.stringify(c).slice(0, 1_000));
        }),
        { ...params(`${kind} ${field.name}`), numRuns: graphqlRuns },
      );
      await stored.verify(testApp, fuzzer.id);
    }
  });

  test('raw GraphQL transport: garbage bodies, wrong content types, GET, deep and huge documents', { timeout }, async () => {
    const raw = fc.oneof(
      fc.constantFrom(
        '{"query": "{ loads { totalCount } "}',
        '{"query": 42}',
        '{"query": "{ load(permalink: \\"\\\\u0000\\") { permalink } }"}',
        `{"query": "{ ${'loads { edges { node { legs { stops { permalink } } } } } '.repeat(1)}}"}`,
        `{"query": "${'{ viewer '.repeat(2_000)}${'} '.repeat(2_000)}"}`,
        `{"query": "{ ${'a: viewer { slug } '.repeat(5_000)} }"}`,
        '{"query": "query { __schema { types { name } } }", "variables": "not an object"}',
        '{"query": "mutation { editLoad(permalink: \\"x\\", patch: {}) { permalink } }", "operationName": {"x": 1}}',
        '[{"query": "{ viewer { slug } }"}, {"query": "{ viewer { slug } }"}]',
        'not json',
        '',
      ),
      fc.string().map((query) => JSON.stringify({ query })),
    );
    const contentType = fc.constantFrom(
      'application/json',
      'application/graphql',
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
    );
    await fc.assert(
      fc.asyncProperty(raw, contentType, fc.boolean(), async (body, type, get) => {
        const answer = get
          ? await send(testApp, `/graphql?query=${encodeURIComponent(body)}`, {
              method: 'GET',
              headers: { 'x-api-key': fuzzer.apiKey, accept: 'application/json' },
            })
          : await send(testApp, '/graphql', {
              method: 'POST',
              headers: { 'x-api-key': fuzzer.apiKey, 'content-type': type, accept: 'application/json' },
              body,
            });
        expect(answer.status, answer.text.slice(0, 300)).toBeLessThan(500);
        if (answer.body?.errors) expectGraphQLContract(answer);
      }),
      params('raw GraphQL'),
    );
  });
});

describe('after fuzzing', () => {
  test("the victim tenant's rows are exactly as before (nothing read across, changed or executed)", async () => {
    expect(await snapshot(testApp, victim.id)).toEqual(victimBefore);
  });
});
