/**
 * Dry runs (api-contract.md E "Dry run"): `?dry_run=true` on every REST ingestion route of the route
 * list and `dryRun: true` on every ingestion mutation answer as the real request that follows them
 * (plus the dry-run mark), write nothing (every record table, phase changes and change events are
 * compared before and after; GraphQL reads them back), record no event, run no sequencer pass (no
 * cached answer dropped), are counted apart in ingest health and metrics, are charged by the rate
 * limit, and evaluate parents, `sync_run_time`, duplicates and phases against the stored data. `Database.rehearse`, which they run in, is tested
 * directly: what it wrote is gone afterwards.
 */
import { onTestFinished } from 'vitest';
import { recordSpecOf, recordSpecs, type RecordKind } from '../../../src/domain/registry.js';
import { bulkMutationName } from '../../../src/domain/declaration/record.js';
import { setStatusMapping } from '../../../src/domain/status-mapping/service.js';
import { setRateLimit } from '../../../src/domain/tenant/service.js';
import { restRoutes } from '../../../src/routes.js';
import { gqlData, gqlError, readBack, toInput } from '../../factories/graphql.js';
import { bodyMaker, loadBody, loadLegBody, loadUpdateBody, routes, seed } from '../../factories/records.js';
import type { Api, TestApp, TestTenant } from '../../helpers/app.js';
import { describe, expect, test } from '../../fixtures.js';

type Body = Record<string, unknown>;

/** Every table a write can touch, for one tenant: the record tables of the registry, phase changes and change events. */
const tables = [...recordSpecs.map((spec) => spec.table), 'phase_changes', 'load_events'];

/**
 * The tenant's stored data: per table, its row count and a digest of every row (any write changes it),
 * once the numbering passes of the writes answered so far have numbered their events (they follow the
 * answers, decision 0045: a pass landing between two snapshots would change an event row).
 */
async function snapshot(testApp: TestApp, tenant: TestTenant) {
  await testApp.app.services.sequencer.idle();
  const state: Record<string, unknown> = {};
  for (const table of tables) {
    const [row] = await testApp.database.db.sql.query<{ n: number; digest: string | null }>(
      `SELECT count(*)::int AS n, md5(string_agg(t::text, '|' ORDER BY t::text)) AS digest FROM ${table} t WHERE tenant_id = $1`,
      [tenant.id],
    );
    state[table] = row;
  }
  return state;
}

const eventsQuery = /* GraphQL */ `
  query { loadEvents(first: 100) { edges { node { type } } } }
`;
const eventTypes = async (api: Api) => (await gqlData(api, eventsQuery)).loadEvents.edges.map((e: { node: { type: string } }) => e.node.type) as string[];

/** The body a route takes for a kind's record (`body`): a delete route takes the permalink only. */
const isDeleteRoute = (path: string) => /\/(bulk_)?delete$/.test(path);

const ingestionRoutes = restRoutes.filter((route) => route.ingestion);

describe('dry run on every REST ingestion route', { timeout: 240_000 }, () => {
  test('the route list holds every kind, single and bulk', () => {
    for (const spec of recordSpecs) expect(ingestionRoutes.filter((r) => r.ingestion!.spec.kind === spec.kind).length).toBeGreaterThanOrEqual(2);
  });

  test.for(ingestionRoutes.map((route) => [route.path, route] as const))(
    '%s: the same answer as the real request after it, nothing written',
    async ([path, route], { api, tenant, testApp }) => {
      const kind = route.ingestion!.spec.kind;
      const spec = recordSpecOf[kind];
      const make = await bodyMaker(api, tenant);
      let body = make(kind);
      if (isDeleteRoute(path)) {
        await seed(api, routes[kind], body);
        body = { [spec.permalinkField]: body[spec.permalinkField] };
      }
      const payload = path.includes('/bulk_') ? { records: [body] } : body;
      const before = await snapshot(testApp, tenant);
      const eventsBefore = await eventTypes(api);

      const dry = await api.post(`${path}?dry_run=true`, payload, { 'service-ingest-source': 'pull' });
      expect(dry.status, JSON.stringify(dry.body)).toBe(200);
      expect(dry.body.dry_run).toBe(true);
      expect(await snapshot(testApp, tenant)).toEqual(before);
      expect(await eventTypes(api)).toEqual(eventsBefore);

      const real = await api.post(path, payload, { 'service-ingest-source': 'pull' });
      expect(real.status).toBe(dry.status);
      expect(real.body).not.toHaveProperty('dry_run');
      expect(dry.body).toEqual({ ...real.body, dry_run: true });
      // The real request wrote: the dry run's "nothing written" is about the very statements that write.
      expect(await snapshot(testApp, tenant)).not.toEqual(before);
    },
  );

  test('the OpenAPI document describes dry_run on every ingestion route', async ({ api }) => {
    const doc = (await api.get('/api/v1/openapi.json')).body;
    for (const route of ingestionRoutes) {
      const parameters = doc.paths[route.path].post.parameters as { name: string; in: string }[];
      expect(parameters, route.path).toContainEqual(expect.objectContaining({ name: 'dry_run', in: 'query' }));
    }
  });
});

const readRecord = (api: Api, kind: RecordKind, body: Body) => readBack(api, kind, body);

const resultFields = 'status message permalink unknownFields phase dryRun';
const bulkResultFields = 'index status message permalink unknownFields phase dryRun error { code message details { field issue } }';

describe('dryRun on every ingestion mutation', { timeout: 240_000 }, () => {
  test('every ingestion mutation of the schema takes dryRun', async ({ api }) => {
    const data = await gqlData(api, `{ __schema { mutationType { fields { name args { name type { name } } } } } }`);
    const fields = data.__schema.mutationType.fields as { name: string; args: { name: string; type: { name: string } }[] }[];
    for (const spec of recordSpecs) {
      for (const name of [spec.graphql.mutation, bulkMutationName(spec)]) {
        expect(fields.find((f) => f.name === name)?.args, name).toContainEqual({ name: 'dryRun', type: { name: 'Boolean' } });
      }
    }
  });

  test.for(recordSpecs.map((spec) => [spec.graphql.mutation, spec.kind] as const))(
    '%s and its bulk form: the same answer as the real mutation, nothing stored',
    async ([mutation, kind], { api, tenant, testApp }) => {
      const spec = recordSpecOf[kind];
      const make = await bodyMaker(api, tenant);
      const sync = spec.freshness !== 'append_only';
      const single = `mutation ($input: ${spec.graphql.input}!, $dryRun: Boolean) { ${mutation}(input: $input, dryRun: $dryRun) { ${resultFields} } }`;
      const bulk = `mutation ($inputs: [${spec.graphql.input}!]!, $dryRun: Boolean${sync ? ', $syncRunTime: DateTime' : ''}) {
      r: ${bulkMutationName(spec)}(inputs: $inputs, dryRun: $dryRun${sync ? ', syncRunTime: $syncRunTime' : ''}) { ${bulkResultFields} } }`;

      for (const [query, variables] of [
        [single, (body: Body) => ({ input: toInput(body) })],
        [bulk, (body: Body) => ({ inputs: [toInput(body)] })],
      ] as const) {
        const body = make(kind);
        const before = await snapshot(testApp, tenant);
        const dry = await gqlData(api, query, { ...variables(body), dryRun: true });
        expect(await snapshot(testApp, tenant)).toEqual(before);
        expect(await readRecord(api, kind, body)).toBeNull();
        const real = await gqlData(api, query, { ...variables(body), dryRun: false });
        const answer = (data: Record<string, unknown>) => (query === single ? data[mutation] : (data.r as unknown[])[0]) as Body;
        expect(answer(dry)).toMatchObject({ status: 'PROCESSED', dryRun: true });
        expect(answer(dry)).toEqual({ ...answer(real), dryRun: true });
        expect(answer(real).dryRun).toBe(false);
        expect(await readRecord(api, kind, body)).not.toBeNull();
      }
    },
  );

  test('a rejected dry-run mutation raises exactly the error of the real one', async ({ api, tenant }) => {
    const leg = loadLegBody(tenant, loadBody(tenant));
    const query = `mutation ($input: LoadLegInput!, $dryRun: Boolean) { upsertLoadLeg(input: $input, dryRun: $dryRun) { status } }`;
    const dry = await gqlError(api, query, { input: toInput(leg), dryRun: true });
    const real = await gqlError(api, query, { input: toInput(leg) });
    expect(dry.error.extensions?.code).toBe('parent_not_found');
    expect(dry.errors).toEqual(real.errors);
  });
});

describe('a dry run evaluates against the stored data', { timeout: 240_000 }, () => {
  test('sync_run_time: a stored record fresher than it answers skipped, as the real request does', async ({ api, tenant, testApp }) => {
    const load = await seed(api, `${routes.load}?sync_run_time=2026-11-20T12:00:00Z`, loadBody(tenant));
    const before = await snapshot(testApp, tenant);
    const older = { ...load, bol_number: 'OLDER' };
    const dry = await api.post(`${routes.load}?sync_run_time=2026-11-20T11:00:00Z&dry_run=true`, older);
    expect(dry.body).toMatchObject({ status: 'skipped', dry_run: true });
    const newer = await api.post(`${routes.load}?sync_run_time=2026-11-20T13:00:00Z&dry_run=true`, older);
    expect(newer.body).toMatchObject({ status: 'processed', message: expect.stringContaining('updated'), dry_run: true });
    expect(await snapshot(testApp, tenant)).toEqual(before);
    const real = await api.post(`${routes.load}?sync_run_time=2026-11-20T11:00:00Z`, older);
    expect(dry.body).toEqual({ ...real.body, dry_run: true });
  });

  test('parent_not_found answers exactly as the real request (no dry-run mark on an error)', async ({ api, tenant }) => {
    const leg = loadLegBody(tenant, loadBody(tenant));
    const dry = await api.post(`${routes.load_leg}?dry_run=true`, leg);
    const real = await api.post(routes.load_leg, leg);
    expect(dry.status).toBe(422);
    expect(dry.body.error.code).toBe('parent_not_found');
    expect(dry.body).toEqual(real.body);
  });

  test('a validation failure answers exactly as the real request', async ({ api, tenant }) => {
    const bad = loadBody(tenant, { bol_number: 'x'.repeat(500), native_system_load_status: 7 });
    const dry = await api.post(`${routes.load}?dry_run=true`, bad);
    const real = await api.post(routes.load, bad);
    expect(dry.status).toBe(400);
    expect(dry.body).toEqual(real.body);
  });

  test('a load update already stored is a duplicate; repeated permalinks in a dry-run batch answer as in a real batch', async ({ api, tenant, testApp }) => {
    const load = await seed(api, routes.load, loadBody(tenant));
    const update = await seed(api, routes.load_update, loadUpdateBody(tenant, load));
    const before = await snapshot(testApp, tenant);
    const dup = await api.post(`${routes.load_update}?dry_run=true`, update);
    expect(dup.body).toMatchObject({ status: 'duplicate', dry_run: true });

    const fresh = loadUpdateBody(tenant, load);
    const batch = await api.post(`/api/v1/loadupdates/bulk_create?dry_run=1`, { records: [update, fresh, fresh] });
    expect(batch.body.results.map((r: Body) => r.status)).toEqual(['duplicate', 'processed', 'duplicate']);
    const newLoad = loadBody(tenant);
    const loads = await api.post(`/api/v1/loads/bulk_upsert?dry_run=TRUE`, { records: [newLoad, newLoad] });
    expect(loads.body).toMatchObject({
      dry_run: true,
      results: [
        { status: 'processed', message: expect.stringContaining('created') },
        { status: 'processed', message: expect.stringContaining('updated') },
      ],
    });
    expect(await snapshot(testApp, tenant)).toEqual(before);
  });

  test('the answer shows the phase the status maps to (real and dry alike)', async ({ api, tenant, testApp }) => {
    await setStatusMapping(testApp.database.db, tenant.id, 'booked', 'COVERED');
    const mapped = await api.post(`${routes.load}?dry_run=true`, loadBody(tenant, { native_system_load_status: ' BOOKED ' }));
    expect(mapped.body).toMatchObject({ status: 'processed', phase: 'COVERED', dry_run: true });
    const unmapped = await api.post(`${routes.load}?dry_run=true`, loadBody(tenant, { native_system_load_status: 'Somewhere' }));
    expect(unmapped.body).toMatchObject({ phase: 'UNMAPPED' });
    const data = await gqlData(api, `mutation ($input: LoadInput!) { upsertLoad(input: $input, dryRun: true) { phase dryRun } }`, {
      input: toInput(loadBody(tenant, { native_system_load_status: 'Booked' })),
    });
    expect(data.upsertLoad).toEqual({ phase: 'COVERED', dryRun: true });
    const carrier = await api.post(`${routes.carrier}?dry_run=true`, (await bodyMaker(api, tenant))('carrier'));
    expect(carrier.body).not.toHaveProperty('phase');
  });
});

describe('dry_run values', () => {
  test('true/1 rehearse and false/0 write, case-insensitively; anything else, or twice, is validation_failed naming dry_run', async ({
    api,
    tenant,
    testApp,
  }) => {
    for (const value of ['true', '1', 'True']) {
      expect((await api.post(`${routes.load}?dry_run=${value}`, loadBody(tenant))).body.dry_run, value).toBe(true);
    }
    const before = await snapshot(testApp, tenant);
    expect(before.loads).toMatchObject({ n: 0 });
    for (const value of ['false', '0']) {
      const res = await api.post(`${routes.load}?dry_run=${value}`, loadBody(tenant));
      expect(res.body).toMatchObject({ status: 'processed' });
      expect(res.body).not.toHaveProperty('dry_run');
    }
    expect(await snapshot(testApp, tenant)).toMatchObject({ loads: { n: 2 } });
    for (const query of ['dry_run=yes', 'dry_run=', 'dry_run', 'dry_run=true&dry_run=true']) {
      const res = await api.post(`/api/v1/loads/bulk_upsert?${query}`, { records: [loadBody(tenant)] });
      expect(res.status, query).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'validation_failed', details: [{ field: 'dry_run', issue: expect.any(String) }] });
    }
    expect(await snapshot(testApp, tenant)).toMatchObject({ loads: { n: 2 } });
  });
});

const healthQuery = /* GraphQL */ `
  query {
    ingestHealth {
      sources {
        source state lastReceivedAt
        lastHour { processed skipped duplicate rejected }
        lastDay { processed skipped duplicate rejected }
        dryRun { lastHour { processed skipped duplicate rejected } lastDay { processed skipped duplicate rejected } }
      }
      recentRejections { code permalink }
    }
  }
`;

describe('accounting', () => {
  test('ingest health counts dry runs apart: not as traffic, not in the state, last received time or recent rejections', async ({ api, tenant, testApp }) => {
    const pull = { 'service-ingest-source': 'pull' };
    const load = loadBody(tenant);
    await api.post(`/api/v1/loads/bulk_upsert?dry_run=true`, { records: [load, loadBody(tenant)] }, pull);
    await api.post(`${routes.load_leg}?dry_run=true`, loadLegBody(tenant, load), pull); // parent_not_found: the load was never written
    await api.post(`${routes.load}?dry_run=true`, '{not json', pull); // rejected whole before its records are read
    await gqlData(api, `mutation ($input: LoadInput!) { upsertLoad(input: $input, dryRun: true) { status } }`, { input: toInput(loadBody(tenant)) }, pull);
    await seed(api, routes.load, loadBody(tenant));

    const health = (await gqlData(api, healthQuery)).ingestHealth;
    const source = (name: string) => health.sources.find((s: Body) => s.source === name);
    const none = { processed: 0, skipped: 0, duplicate: 0, rejected: 0 };
    expect(source('PULL')).toEqual({
      source: 'PULL',
      state: 'NO_TRAFFIC',
      lastReceivedAt: null,
      lastHour: none,
      lastDay: none,
      dryRun: { lastHour: { ...none, processed: 3, rejected: 2 }, lastDay: { ...none, processed: 3, rejected: 2 } },
    });
    expect(source('UNSPECIFIED')).toMatchObject({ state: 'HEALTHY', lastHour: { ...none, processed: 1 }, dryRun: { lastHour: none } });
    expect(health.recentRejections).toEqual([]);

    const metrics = await (await testApp.fetch('/metrics')).text();
    const line = (name: string, outcome: string, source = 'pull') => `${name}{tenant="${tenant.slug}",source="${source}",kind="load",outcome="${outcome}"}`;
    expect(metrics).toContain(`${line('ingest_dry_run_records_total', 'processed')} 3`);
    expect(metrics).toContain(`${line('ingest_dry_run_records_total', 'rejected')} 1`);
    expect(metrics).not.toContain(line('ingest_records_total', 'processed'));
    expect(metrics).toContain(`${line('ingest_records_total', 'processed', 'unspecified')} 1`);
  });

  test('rate limits charge dry runs like real requests (REST and GraphQL)', async ({ api, tenant, testApp }) => {
    await setRateLimit(testApp.database.db, tenant.slug, 1, 3);
    testApp.clock.freeze();
    onTestFinished(() => testApp.clock.reset());
    const charged = await api.post(`/api/v1/loads/bulk_upsert?dry_run=true`, { records: [loadBody(tenant), loadBody(tenant), loadBody(tenant)] });
    expect(charged.status).toBe(200);
    expect(charged.headers.get('ratelimit')).toMatch(/^"ingest";r=0;/);
    const refused = await api.post(`${routes.load}?dry_run=true`, loadBody(tenant));
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('rate_limited');
    const mutation = await gqlError(api, `mutation ($input: LoadInput!) { upsertLoad(input: $input, dryRun: true) { status } }`, {
      input: toInput(loadBody(tenant)),
    });
    expect(mutation.error.extensions?.code).toBe('rate_limited');
  });
});

describe('no side effect after the rollback', () => {
  test("a dry run runs no sequencer pass, so it drops none of the tenant's cached answers; the real write does", async ({ api, tenant, testApp }) => {
    const version = () => testApp.app.dataVersions.of(tenant.id);
    // A new tenant has written nothing, so no notification of its own can arrive late and move its version.
    const before = version();
    const load = loadBody(tenant);
    await api.post(`${routes.load}?dry_run=true`, load);
    await api.post(`/api/v1/loads/bulk_upsert?dry_run=true`, { records: [loadBody(tenant)] });
    await gqlData(api, `mutation ($input: LoadInput!) { upsertLoad(input: $input, dryRun: true) { status } }`, { input: toInput(loadBody(tenant)) });
    expect(version()).toBe(before);
    await seed(api, routes.load, load);
    expect(version()).not.toBe(before);
  });
});

describe('Database.rehearse', () => {
  test('what the work writes is visible inside and gone after; a refused statement fails alone; a throw rolls back and is rethrown', async ({
    tenant,
    testApp,
  }) => {
    const { db } = testApp.database;
    const mappings = async () => (await db.sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM status_mappings WHERE tenant_id = $1`, [tenant.id]))[0]!.n;
    const insert = `INSERT INTO status_mappings (id, tenant_id, status, status_key, phase, updated_at) VALUES (gen_random_uuid(), $1, 'X', 'x', 'COVERED', now())`;
    const inside = await db.rehearse(async (sql) => {
      await sql.query(insert, [tenant.id]);
      await expect(sql.query(`SELECT 1 / 0`, [])).rejects.toThrow();
      return (await sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM status_mappings WHERE tenant_id = $1`, [tenant.id]))[0]!.n;
    });
    expect(inside).toBe(1);
    expect(await mappings()).toBe(0);
    await expect(
      db.rehearse(async (sql) => {
        await sql.query(insert, [tenant.id]);
        throw new Error('work failed');
      }),
    ).rejects.toThrow('work failed');
    expect(await mappings()).toBe(0);
  });
});
