/**
 * Isolation sweep (issue 9, point 5). Tenant B's key tries every REST operation (route registry,
 * bulk routes included) and every GraphQL query and mutation (introspection) against tenant A's
 * permalinks, ids, cursors, statuses and reference numbers. Each answer must be the answer for a
 * tenant that does not exist (A's slug swapped for an unknown one gives the same text), nothing of
 * A's may appear in it, and A's rows must come out unchanged. The admin key writes no records: every
 * mutation but tenant administration is forbidden to it, and every REST write. A GraphQL field without
 * a sweep entry fails the test.
 */
import { randomUUID } from 'node:crypto';
import { beforeAll, afterAll, describe, expect, test } from 'vitest';
import { loadBody, loadUpdateBody, routes, seed, seedLoadTree } from '../../factories/records.js';
import { toInput, upsertMutations } from '../../factories/graphql.js';
import { acceptedIn, adminKey, fuzzEnv, send, snapshot } from '../../hostile/harness.js';
import { introspect, resolveRef as resolveSchema, restOperations, selection, type GraphQLSurface } from '../../hostile/surface.js';
import { kindOf } from '../../../src/http/route.js';
import { recordSpecs } from '../../../src/domain/registry.js';
import { errorCodes } from '../../../src/errors.js';
import { actionsOf, bulkMutationName } from '../../../src/domain/declaration/record.js';
import { operationOf } from '../../../src/domain/ingestion/operations.js';
import { apiFor, createTestApp, uniqueSlug, type TestApp, type TestTenant } from '../../helpers/app.js';

type Body = Record<string, unknown>;
interface Probe {
  query: string;
  variables?: Record<string, unknown>;
}

let testApp: TestApp;
let a: TestTenant;
let b: TestTenant;
/** A slug no tenant has: A's identifiers with it are "records that do not exist". */
const ghost = uniqueSlug('ghost');
let aBodies: Record<string, Body>;
let aCursors: { loads: string; carriers: string };
let aBefore: unknown[];
let surface: GraphQLSurface;

beforeAll(async () => {
  testApp = await createTestApp({ env: fuzzEnv });
  a = await testApp.createTenant();
  b = await testApp.createTenant();
  const apiA = apiFor(testApp, a.apiKey);
  const apiB = apiFor(testApp, b.apiKey);
  const status = `Status-${a.slug}`;
  const tree = await seedLoadTree(apiA, a, { load: { native_system_load_status: status } });
  const update = await seed(apiA, routes.load_update, loadUpdateBody(a, tree.load));
  await seedLoadTree(apiB, b); // B has data of its own, so "nothing of A's" is not "nothing at all"
  await seed(apiB, routes.load, loadBody(b));
  await apiA.graphql(`mutation { setStatusMapping(status: "${status}", phase: COVERED) { status } }`);
  await apiA.post(routes.load, { native_system_load_id: 'X' }); // a rejection in A's ingest health
  await testApp.app.services.recorder.flush();
  aBodies = { carrier: tree.carrier, load: tree.load, load_leg: tree.leg, stop: tree.stop, load_update: update };
  const cursors = await apiA.graphql('{ loads(first: 1) { pageInfo { endCursor } } carriers(first: 1) { pageInfo { endCursor } } }');
  aCursors = { loads: cursors.body.data.loads.pageInfo.endCursor, carriers: cursors.body.data.carriers.pageInfo.endCursor };
  // A webhook endpoint of A's, stored directly (its URL is never called in this file).
  const now = new Date();
  const endpoint = await testApp.database.db.prisma.webhookEndpoint.create({
    data: {
      tenantId: a.id,
      url: `https://${a.slug}.example.com/hooks`,
      eventTypes: ['load.created'],
      secret: `whsec_${a.slug}`,
      createdAt: now,
      updatedAt: now,
    },
  });
  aEndpointId = endpoint.id;
  aBefore = await snapshot(testApp, a.id);
  surface = await introspect(testApp, b.apiKey);
}, 120_000);

afterAll(async () => testApp?.close());

/** The same value naming nothing that exists: A's slug → an unknown one, A's cursor ids → unknown ids. */
function ghostOf<T>(value: T): T {
  if (value === undefined) return value;
  const text = JSON.stringify(value).replaceAll(a.slug, ghost);
  const cursors = [aCursors.loads, aCursors.carriers];
  let out = text;
  for (const cursor of cursors) {
    const decoded = Buffer.from(cursor, 'base64').toString();
    const swapped = Buffer.from(decoded.replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/, randomUUID())).toString('base64');
    out = out.replaceAll(cursor, swapped);
  }
  return JSON.parse(out) as T;
}

/** Everything that identifies A's data: its slug (every permalink ends with it) and its unique reference values. */
const aMarkers = () => [
  a.slug,
  String(aBodies.load!.bol_number),
  String(aBodies.carrier!.carrier_name),
  String(aBodies.carrier!.mc_number),
  String(aBodies.load!.native_system_load_id),
];

/** The text of an answer with its volatile parts (times) removed. */
const stable = (text: string) => text.replace(/"\d{4}-\d\d-\d\dT[\d:.]+Z"/g, '"<time>"');

/**
 * GraphQL sweep: per root field, the operations B tries with A's identifiers. Every field of the
 * schema must be listed (a new field without an entry fails the coverage test).
 */
const graphqlSweep: Record<string, () => Probe[]> = {
  // Queries
  viewer: () => [{ query: '{ viewer { slug name } }' }],
  tenant: () => [{ query: 'query ($s: String!) { tenant(slug: $s) { slug name } }', variables: { s: a.slug } }],
  tenants: () => [{ query: '{ tenants { slug } }' }],
  // Tenant administration (admin key only): B's key naming A's slug is refused as for any slug.
  createTenant: () => [{ query: 'mutation ($s: String!) { createTenant(slug: $s, name: "Hijack") { apiKey } }', variables: { s: `${a.slug}-x` } }],
  rotateTenantKey: () => [{ query: 'mutation ($s: String!) { rotateTenantKey(slug: $s) { apiKey } }', variables: { s: a.slug } }],
  revokeTenantKeys: () => [{ query: 'mutation ($s: String!) { revokeTenantKeys(slug: $s) }', variables: { s: a.slug } }],
  setTenantRateLimit: () => [{ query: 'mutation ($s: String!) { setTenantRateLimit(slug: $s, recordsPerSecond: 1) { slug } }', variables: { s: a.slug } }],
  setTenantStaleInterval: () => [
    { query: 'mutation ($s: String!) { setTenantStaleInterval(slug: $s, source: PULL, seconds: 60) { slug } }', variables: { s: a.slug } },
  ],
  load: () => [{ query: 'query ($p: String!) { load(permalink: $p) { permalink bolNumber } }', variables: { p: aBodies.load!.native_system_load_permalink } }],
  loadLeg: () => [
    { query: 'query ($p: String!) { loadLeg(permalink: $p) { permalink } }', variables: { p: aBodies.load_leg!.native_system_load_leg_permalink } },
  ],
  stop: () => [{ query: 'query ($p: String!) { stop(permalink: $p) { permalink } }', variables: { p: aBodies.stop!.native_system_stop_permalink } }],
  carrier: () => [
    { query: 'query ($p: String!) { carrier(permalink: $p) { permalink name } }', variables: { p: aBodies.carrier!.native_system_carrier_permalink } },
  ],
  loads: () => [
    { query: 'query ($s: String) { loads(filter: { search: $s }) { totalCount edges { node { permalink } } } }', variables: { s: aBodies.load!.bol_number } },
    {
      query: 'query ($s: String) { loads(filter: { status: $s }) { totalCount edges { node { permalink } } } }',
      variables: { s: aBodies.load!.native_system_load_status },
    },
    {
      query:
        'query ($c: DateTime) { loads(first: 100, filter: { changedSince: $c, phase: [COVERED, UNMAPPED] }) { totalCount edges { node { permalink status } } } }',
      variables: { c: '2000-01-01T00:00:00Z' },
    },
    { query: 'query ($a: String) { loads(first: 5, after: $a) { edges { node { permalink } } } }', variables: { a: aCursors.loads } },
    { query: 'query ($a: String) { loads(last: 5, before: $a) { edges { node { permalink } } } }', variables: { a: aCursors.loads } },
  ],
  carriers: () => [
    { query: 'query ($s: String) { carriers(search: $s) { totalCount edges { node { permalink } } } }', variables: { s: aBodies.carrier!.carrier_name } },
    { query: 'query ($s: String) { carriers(search: $s) { totalCount } }', variables: { s: aBodies.carrier!.mc_number } },
    { query: 'query ($a: String) { carriers(first: 5, after: $a) { edges { node { permalink } } } }', variables: { a: aCursors.carriers } },
  ],
  loadEvents: () => [
    {
      query: 'query ($p: [String!]) { loadEvents(first: 50, filter: { loadPermalinks: $p }) { edges { cursor node { type loadPermalink data } } } }',
      variables: { p: [aBodies.load!.native_system_load_permalink] },
    },
    { query: '{ loadEvents(first: 50) { edges { node { type loadPermalink data } } } }' },
  ],
  statusMappings: () => [{ query: '{ statusMappings { status phase } }' }],
  ingestHealth: () => [
    {
      query:
        '{ ingestHealth { sources { source lastHour { processed rejected } } unmappedStatuses unmappedStatusCounts { status loadCount } recentRejections { code permalink message field } } }',
    },
  ],
  dataQuality: () => [
    {
      query:
        '{ dataQuality(since: "2000-01-01T00:00:00Z") { since kinds { kind records fields { field present missing ratio missingExamples(first: 50) } } findings { code count message examples(first: 50) } } }',
    },
    { query: '{ dataQuality(source: PULL) { kinds { kind records } findings { code count examples } } }' },
  ],
  // Mutations
  upsertCarrier: () => [{ query: upsertMutations.carrier, variables: { input: toInput(aBodies.carrier!) } }],
  upsertLoad: () => [{ query: upsertMutations.load, variables: { input: toInput(aBodies.load!) } }],
  upsertLoadLeg: () => [{ query: upsertMutations.load_leg, variables: { input: toInput(aBodies.load_leg!) } }],
  upsertStop: () => [{ query: upsertMutations.stop, variables: { input: toInput(aBodies.stop!) } }],
  createLoadUpdate: () => [
    { query: upsertMutations.load_update, variables: { input: toInput(aBodies.load_update!) } },
    // B's own update naming A's load: the load is "not found" for B.
    {
      query: upsertMutations.load_update,
      variables: { input: toInput({ ...loadUpdateBody(b, aBodies.load!), native_system_load_update_permalink: `U${ghost.slice(-4)}-${b.slug}` }) },
    },
  ],
  // Bulk mutations: A's record in a batch of one (its permalink names A's tenant: a per-record error).
  ...Object.fromEntries(
    recordSpecs.map((spec) => [
      bulkMutationName(spec),
      () => [
        {
          query: `mutation ($inputs: [${spec.graphql.input}!]!) { ${bulkMutationName(spec)}(inputs: $inputs) { index status message permalink unknownFields error { code message details { field issue } } } }`,
          variables: { inputs: [toInput(aBodies[spec.kind]!)] },
        },
      ],
    ]),
  ),
  // Deletes: A's permalink, single and in a batch of one (its permalink names A's tenant: refused as for a permalink that names nothing).
  ...Object.fromEntries(
    recordSpecs
      .filter((spec) => actionsOf(spec).includes('delete'))
      .flatMap((spec) => {
        const input = () => toInput({ [spec.permalinkField]: aBodies[spec.kind]![spec.permalinkField] });
        const { mutation, input: type, bulkMutation: bulk } = operationOf(spec.kind, 'delete').graphql;
        return [
          [
            mutation,
            () => [{ query: `mutation ($input: ${type}!) { ${mutation}(input: $input) { status message permalink } }`, variables: { input: input() } }],
          ],
          [
            bulk,
            () => [
              {
                query: `mutation ($inputs: [${type}!]!) { ${bulk}(inputs: $inputs) { index status message error { code message } } }`,
                variables: { inputs: [input()] },
              },
            ],
          ],
        ];
      }),
  ),
  editLoad: () => [
    {
      query: 'mutation ($p: String!) { editLoad(permalink: $p, patch: { bolNumber: "HIJACKED" }) { permalink bolNumber } }',
      variables: { p: aBodies.load!.native_system_load_permalink },
    },
  ],
  setStatusMapping: () => [
    {
      query: 'mutation ($s: String!) { setStatusMapping(status: $s, phase: CANCELLED) { status phase } }',
      variables: { s: aBodies.load!.native_system_load_status },
    },
  ],
  removeStatusMapping: () => [
    { query: 'mutation ($s: String!) { removeStatusMapping(status: $s) }', variables: { s: aBodies.load!.native_system_load_status } },
  ], // Webhooks: A has no endpoint B could name by permalink; B's probes name an endpoint id B does not own,
  // and B's own list and an invalid creation answer alike whichever tenant's identifiers are around.
  webhookEndpoints: () => [{ query: '{ webhookEndpoints { id url } }' }],
  webhookEndpoint: () => [{ query: 'query ($id: ID!) { webhookEndpoint(id: $id) { id url } }', variables: { id: foreignEndpointId } }],
  createWebhookEndpoint: () => [
    {
      query: 'mutation ($u: String!) { createWebhookEndpoint(input: { url: $u, eventTypes: ["no.such_type"] }) { secret } }',
      variables: { u: `https://${a.slug}.example.com/hooks` },
    },
  ],
  updateWebhookEndpoint: () => [
    { query: 'mutation ($id: ID!) { updateWebhookEndpoint(id: $id, input: { description: "hijacked" }) { id } }', variables: { id: foreignEndpointId } },
  ],
  deleteWebhookEndpoint: () => [{ query: 'mutation ($id: ID!) { deleteWebhookEndpoint(id: $id) }', variables: { id: foreignEndpointId } }],
  rotateWebhookSecret: () => [{ query: 'mutation ($id: ID!) { rotateWebhookSecret(id: $id) { secret } }', variables: { id: foreignEndpointId } }],
  replayWebhookDeliveries: () => [
    {
      query: 'mutation ($id: ID!) { replayWebhookDeliveries(endpointId: $id, since: "2000-01-01T00:00:00Z") }',
      variables: { id: foreignEndpointId },
    },
  ],
};

/** A's webhook endpoint (another tenant's, for B). */
let aEndpointId: string;

/**
 * A required argument of a root query naming A's record (`foreign`), nothing that exists (`unknown`)
 * or nothing that could exist (`malformed`). A new argument without a value here fails the sweep.
 */
function identifierFor(field: string, arg: string, which: 'foreign' | 'unknown' | 'malformed' | 'own'): string {
  const foreign = (): string => {
    if (arg === 'id') return aEndpointId;
    if (arg === 'slug') return a.slug;
    const kind = field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
    const permalink = aBodies[kind]?.[`native_system_${kind}_permalink`];
    if (arg === 'permalink' && typeof permalink === 'string') return permalink;
    throw new Error(`isolation sweep: no identifier for ${field}(${arg}): add one to identifierFor`);
  };
  const value = foreign();
  if (which === 'foreign') return value;
  if (which === 'malformed') return arg === 'id' ? 'not-an-id' : `\u00e9${'x'.repeat(300)}`;
  return arg === 'id' ? randomUUID() : ghostOf(value);
}

/** Every GraphQL error of an answer carries a contract code (never an unmasked or internal message). */
function expectContractErrors(answer: { text: string; body: any }, where: string) {
  for (const error of answer.body?.errors ?? []) {
    expect(errorCodes, `${where}: error without a contract code`).toContain(error.extensions?.code);
    expect(['internal', 'unavailable'], where).not.toContain(error.extensions?.code);
  }
}

/** What the admin key may change (api-contract.md E, tenant administration; test/integration/admin/). */
const tenantAdministration = new Set([
  'createTenant',
  'rotateTenantKey',
  'revokeTenantKeys',
  'setTenantRateLimit',
  'setTenantStaleInterval',
  'setStatusMapping',
  'removeStatusMapping',
]);

/** An endpoint id no tenant of B's owns (the same for both probes of a pair). */
const foreignEndpointId = '00000000-0000-4000-8000-000000000001';

/** Extra fields (webhooks, events, …) come with their own entry here; until then the coverage test names them. */
describe('isolation sweep', () => {
  test('every GraphQL query and mutation has a sweep entry', () => {
    const fields = [...surface.queries, ...surface.mutations].map((f) => f.name).sort();
    expect(
      fields.filter((f) => !graphqlSweep[f]),
      'GraphQL fields without an isolation sweep entry',
    ).toEqual([]);
  });

  const graphql = (key: string, probe: Probe, headers: Record<string, string> = {}) =>
    send(testApp, '/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', 'x-api-key': key, ...headers },
      body: JSON.stringify(probe),
    });

  test("GraphQL: B's answer for A's identifiers is the answer for identifiers that do not exist, and holds nothing of A's", async () => {
    let probes = 0;
    for (const [field, make] of Object.entries(graphqlSweep)) {
      for (const probe of make()) {
        const onA = await graphql(b.apiKey, probe);
        const onGhost = await graphql(b.apiKey, ghostOf(probe));
        const where = `${field}: ${JSON.stringify(probe)} → ${onA.text}`;
        expect(onA.status, where).toBeLessThan(500);
        expectContractErrors(onA, where);
        expect(stable(onA.text).replaceAll(a.slug, ghost), where).toBe(stable(onGhost.text));
        // What B sent comes back at most as B sent it (an echo in an error message); nothing else of A's.
        const echoed = JSON.stringify(probe.variables ?? {});
        for (const marker of aMarkers()) if (!echoed.includes(marker)) expect(onA.text, `${where} reveals ${marker}`).not.toContain(marker);
        probes++;
      }
    }
    expect(probes).toBeGreaterThanOrEqual(Object.keys(graphqlSweep).length);
    expect(await snapshot(testApp, a.id)).toEqual(aBefore);
  });

  test("GraphQL: every root query with unknown and A's identifiers, every nested list selected, answers data or contract errors", async () => {
    let probes = 0;
    for (const field of surface.queries) {
      const sel = selection(surface, field.type, 4);
      const required = field.args.filter((arg) => arg.type.kind === 'NON_NULL');
      const defs = required.map((arg) => `$${arg.name}: ${arg.type.ofType!.name}!`).join(', ');
      const call = required.map((arg) => `${arg.name}: $${arg.name}`).join(', ');
      const query = `query Sweep${defs ? `(${defs})` : ''} { ${field.name}${call ? `(${call})` : ''} ${sel} }`;
      const cases = required.length ? (['foreign', 'unknown', 'malformed'] as const) : (['own'] as const);
      const answers: string[] = [];
      for (const which of cases) {
        const variables = Object.fromEntries(required.map((arg) => [arg.name, identifierFor(field.name, arg.name, which)]));
        const res = await graphql(b.apiKey, { query, variables });
        const where = `${field.name} (${which}): ${res.text.slice(0, 500)}`;
        expect(res.status, where).toBeLessThan(500);
        expectContractErrors(res, where);
        // B's own lists may hold what B sent earlier (its ingest health logs the probes above naming A's permalinks).
        const echoed = JSON.stringify(variables);
        if (which !== 'own')
          for (const marker of aMarkers()) if (!echoed.includes(marker)) expect(res.text, `${where} reveals ${marker}`).not.toContain(marker);
        // The answer, with what was asked for swapped out, is the same for A's identifier as for one that names nothing.
        let text = stable(res.text).replaceAll(a.slug, ghost);
        for (const value of Object.values(variables)) text = text.replaceAll(String(value).replaceAll(a.slug, ghost), '<asked>');
        if (which !== 'malformed') answers.push(text);
        probes++;
      }
      if (answers.length === 2) expect(answers[0], field.name).toBe(answers[1]);
    }
    expect(probes).toBeGreaterThanOrEqual(surface.queries.length);
  });

  test("REST: every operation with A's records answers as for records that do not exist, and changes nothing of A's", async () => {
    const byRef = new Map<string, Body>();
    for (const op of restOperations()) {
      const kind = kindOf(op.route);
      if (kind && op.bodySchema?.$ref && permalinkFieldIn(aBodies[kind], kind)) byRef.set(op.bodySchema.$ref, aBodies[kind]!);
    }
    for (const op of restOperations()) {
      const body = op.bodySchema ? bodyFor(op.bodySchema, byRef) : undefined;
      expect(op.bodySchema === null || body !== undefined, `${op.name}: no way to build a body naming A's records (add one to the sweep)`).toBe(true);
      const request = (value: unknown) =>
        send(testApp, `${op.path}${op.parameters.some((p) => p.in === 'query' && p.name === 'sync_run_time') ? '?sync_run_time=2026-01-01T00:00:00Z' : ''}`, {
          method: op.method,
          headers: { 'content-type': 'application/json', 'x-api-key': b.apiKey },
          body: op.method === 'GET' ? undefined : JSON.stringify(value),
        });
      const onA = await request(body);
      const onGhost = await request(ghostOf(body));
      const where = `${op.name} → ${onA.text.slice(0, 300)}`;
      expect(onA.status, where).toBeLessThan(500);
      if (kindOf(op.route)) expect(acceptedIn(onA.body), `${where}: accepted A's record`).toEqual([]);
      expect(stable(onA.text).replaceAll(a.slug, ghost), where).toBe(stable(onGhost.text));
    }
    expect(await snapshot(testApp, a.id)).toEqual(aBefore);
  });

  test('the admin key writes no records: every mutation but tenant administration is forbidden, every REST write refused', async () => {
    for (const field of surface.mutations.filter((f) => !tenantAdministration.has(f.name))) {
      for (const probe of graphqlSweep[field.name]?.() ?? []) {
        const res = await graphql(adminKey, probe, { 'x-tenant': a.slug });
        expect(res.body.errors?.[0]?.extensions?.code, `${field.name}: ${res.text}`).toBe('forbidden');
        expect(res.body.data ?? null).toBeNull();
      }
    }
    for (const op of restOperations().filter((o) => o.method !== 'GET')) {
      const res = await send(testApp, op.path, {
        method: op.method,
        headers: { 'content-type': 'application/json', 'x-api-key': adminKey, 'x-tenant': a.slug },
        body: '{}',
      });
      expect(res.status, `${op.name}: ${res.text}`).toBe(401);
    }
    // Reads with the admin key do see A (that is what it is for); writes changed nothing.
    const read = await graphql(
      adminKey,
      { query: 'query ($p: String!) { load(permalink: $p) { permalink } }', variables: { p: aBodies.load!.native_system_load_permalink } },
      { 'x-tenant': a.slug },
    );
    expect(read.body.data.load).toEqual({ permalink: aBodies.load!.native_system_load_permalink });
    expect(await snapshot(testApp, a.id)).toEqual(aBefore);
  });
});

const permalinkFieldIn = (body: Body | undefined, kind: string) => body && typeof body[`native_system_${kind}_permalink`] === 'string';

/** A body for a request schema naming A's records: a record schema gets A's record; an envelope gets them in its arrays. */
function bodyFor(schema: Record<string, any>, byRef: Map<string, Body>): unknown {
  if (schema.$ref && byRef.has(schema.$ref)) return byRef.get(schema.$ref);
  const resolved = schema.$ref ? resolveSchema(schema.$ref) : schema;
  if (resolved.type === 'array' && resolved.items) {
    const item = bodyFor(resolved.items, byRef);
    return item === undefined ? undefined : [item];
  }
  if (resolved.type === 'object' && resolved.properties) {
    const out: Body = {};
    let found = false;
    for (const [name, prop] of Object.entries<Record<string, any>>(resolved.properties)) {
      const value = bodyFor(prop, byRef);
      if (value !== undefined) {
        out[name] = value;
        found = true;
      }
    }
    return found ? out : undefined;
  }
  for (const option of resolved.anyOf ?? resolved.oneOf ?? []) {
    const value = bodyFor(option, byRef);
    if (value !== undefined) return value;
  }
  return undefined;
}
