/**
 * GraphQL bulk mutations (`bulkUpsertLoads`, `bulkCreateLoadUpdates`, …): the twins of the REST bulk
 * routes, derived from the registry. One result per input in order, the same outcomes and errors as
 * the REST bulk route for the same records, the same limits, ingest accounting and rate limiting.
 */
import { recordKinds, recordSpecOf, recordSpecs, type RecordKind } from '../../../src/domain/registry.js';
import { bulkMutationName, bulkRestPath } from '../../../src/domain/declaration/record.js';
import { camelCase } from '../../../src/domain/declaration/fields.js';
import { describe, expect, test } from '../../fixtures.js';
import { bodyMaker, carrierBody, fullBodies, loadBody, loadLegBody, loadUpdateBody, routes, seed, stopBody } from '../../factories/records.js';
import { gqlData, gqlError, toInput } from '../../factories/graphql.js';
import { apiFor, createTestApp, type Api } from '../../helpers/app.js';
import { withClockAhead } from '../../helpers/clock.js';

type Body = Record<string, unknown>;
type Kind = RecordKind;

const specs = recordSpecOf;

/** Every field of a result. */
const resultFields = 'index status message permalink unknownFields error { code message details { field issue } }';

/** The bulk mutation of a kind over `$inputs` (and `$syncRunTime` where the kind takes one). */
function bulkMutation(kind: Kind, fields = resultFields) {
  const spec = specs[kind];
  const sync = spec.freshness !== 'append_only';
  return `mutation ($inputs: [${spec.graphql.input}!]!${sync ? ', $syncRunTime: DateTime' : ''}) {
    ${bulkMutationName(spec)}(inputs: $inputs${sync ? ', syncRunTime: $syncRunTime' : ''}) { ${fields} }
  }`;
}

interface BulkResult {
  index: number;
  status: string | null;
  message: string | null;
  permalink: string | null;
  unknownFields: string[];
  error: { code: string; message: string; details: { field: string; issue: string }[] | null } | null;
}

async function bulk(api: Api, kind: Kind, records: Body[], options: { syncRunTime?: string; headers?: Record<string, string> } = {}): Promise<BulkResult[]> {
  const data = await gqlData(
    api,
    bulkMutation(kind),
    { inputs: records.map((record) => inputOf(kind, record)), ...(options.syncRunTime ? { syncRunTime: options.syncRunTime } : {}) },
    options.headers,
  );
  return data[bulkMutationName(specs[kind])];
}

/** A REST body as a GraphQL input: contract fields in camelCase, fields beyond the contract moved into `extra`. */
function inputOf(kind: Kind, body: Body) {
  const shape = (specs[kind].body as unknown as { shape: Body }).shape;
  const contract = Object.fromEntries(Object.entries(body).filter(([field]) => field === 'extra' || field in shape));
  const extra = Object.fromEntries(Object.entries(body).filter(([field]) => field !== 'extra' && !(field in shape)));
  return { ...toInput(contract), ...(Object.keys(extra).length ? { extra } : {}) };
}

async function restBulk(api: Api, kind: Kind, records: Body[], query = '') {
  const res = await api.post(`${bulkRestPath(specs[kind])}${query}`, { records });
  expect(res.status).toBe(200);
  return res.body.results as Body[];
}

/**
 * A REST bulk result as GraphQL answers it: outcome fields in camelCase and the status in UPPER_CASE;
 * an error's fields named as the input names them (a validation_failed message lists those names).
 * Its `index` and `permalink` are REST's (an error result's permalink is the one the record sent).
 */
function asGraphql(result: Body) {
  const { index } = result;
  if ('error' in result) {
    const error = result.error as { code: string; message: string; details?: { field: string; issue: string }[] };
    return {
      index,
      status: null,
      message: null,
      permalink: result.permalink ?? null,
      unknownFields: [],
      error: {
        code: error.code,
        message: error.code === 'validation_failed' ? camelCase(error.message) : error.message,
        details: error.details?.map((d) => ({ field: camelCase(d.field), issue: d.issue })) ?? null,
      },
    };
  }
  return {
    index,
    status: String(result.status).toUpperCase(),
    message: result.message,
    permalink: result.permalink,
    unknownFields: result.unknown_fields,
    error: null,
  };
}

const kinds: readonly Kind[] = recordKinds;

describe('GraphQL bulk mutations', () => {
  test('one per kind of the registry, named in parallel with the single mutations and the REST routes', () => {
    expect(recordSpecs.map((spec) => [spec.graphql.mutation, bulkMutationName(spec), bulkRestPath(spec)])).toEqual([
      ['upsertCarrier', 'bulkUpsertCarriers', '/api/v1/carriers/bulk_upsert'],
      ['upsertLoad', 'bulkUpsertLoads', '/api/v1/loads/bulk_upsert'],
      ['upsertLoadLeg', 'bulkUpsertLoadLegs', '/api/v1/loadlegs/bulk_upsert'],
      ['upsertStop', 'bulkUpsertStops', '/api/v1/stops/bulk_upsert'],
      ['createLoadUpdate', 'bulkCreateLoadUpdates', '/api/v1/loadupdates/bulk_create'],
    ]);
  });

  test.for(kinds)(
    '%s: new, invalid, unknown fields, repeated permalinks; answers equal the REST bulk route’s for the same records',
    async (kind, { api, tenant }) => {
      const maker = await bodyMaker(api, tenant, 'full');
      const make = (overrides?: Body) => maker(kind, overrides);
      const spec = specs[kind];
      const first = make();
      const twice = make();
      const invalid = make({ [spec.permalinkField]: 'no-tenant-suffix' });
      const withExtra = make({ custom_x: 1 });
      const records = [first, twice, invalid, twice, withExtra];
      const permalinks = records.map((r) => String(r[spec.permalinkField]));

      const created = await bulk(api, kind, records);
      const append = spec.freshness === 'append_only';
      expect(created.map((r) => [r.index, r.status, r.error?.code ?? null])).toEqual([
        [0, 'PROCESSED', null],
        [1, 'PROCESSED', null],
        [2, null, 'validation_failed'],
        [3, append ? 'DUPLICATE' : 'PROCESSED', null],
        [4, 'PROCESSED', null],
      ]);
      expect(created.map((r) => r.permalink)).toEqual(permalinks);
      expect(created[0]!.message).toContain('created');
      expect(created[2]!.error!.details).toEqual([{ field: camelCase(spec.permalinkField), issue: expect.any(String) }]);
      expect(created[4]!.unknownFields).toEqual(['custom_x']);

      // The same records again by REST, then by GraphQL: both see the same stored state.
      const rest = await restBulk(api, kind, records);
      const again = await bulk(api, kind, records);
      expect(again).toEqual(rest.map(asGraphql));
      expect(rest.map((r) => [r.index, r.permalink])).toEqual(permalinks.map((permalink, i) => [i, permalink]));
      expect(again[0]!.status).toBe(append ? 'DUPLICATE' : 'PROCESSED');
    },
  );

  test('loads: updated, skipped by an older syncRunTime, later occurrence wins; the stored records show it', async ({ api, tenant, testApp }) => {
    const stored = await seed(api, `${routes.load}?sync_run_time=2026-03-01T12:00:00Z`, loadBody(tenant));
    const updated = await seed(api, `${routes.load}?sync_run_time=2026-03-01T08:00:00Z`, loadBody(tenant, { bol_number: 'OLD' }));
    const fresh = loadBody(tenant);
    const results = await bulk(
      api,
      'load',
      [{ ...stored, bol_number: 'IGNORED' }, fresh, { ...fresh, bol_number: 'SECOND' }, { ...updated, bol_number: 'NEW' }],
      {
        syncRunTime: '2026-03-01T10:00:00Z',
      },
    );
    expect(results.map((r) => [r.status, r.message?.match(/created|updated|sync_run_time/)?.[0]])).toEqual([
      ['SKIPPED', 'sync_run_time'],
      ['PROCESSED', 'created'],
      ['PROCESSED', 'updated'],
      ['PROCESSED', 'updated'],
    ]);
    const bol = async (body: Body) =>
      (await testApp.database.db.prisma.load.findFirstOrThrow({ where: { permalink: body.native_system_load_permalink as string } })).bolNumber;
    expect([await bol(stored), await bol(fresh), await bol(updated)]).toEqual([stored.bol_number, 'SECOND', 'NEW']);
  });

  test('load updates: a repeat of a stored update and a repeat within the batch are DUPLICATE; a missing load is parent_not_found', async ({ api, tenant }) => {
    const load = await seed(api, routes.load, loadBody(tenant));
    const old = await seed(api, routes.load_update, loadUpdateBody(tenant, load));
    const fresh = loadUpdateBody(tenant, load);
    const orphan = loadUpdateBody(tenant, loadBody(tenant));
    const results = await bulk(api, 'load_update', [old, fresh, fresh, orphan]);
    expect(results.map((r) => r.status)).toEqual(['DUPLICATE', 'PROCESSED', 'DUPLICATE', null]);
    expect(results[3]!.error).toEqual({
      code: 'parent_not_found',
      message: expect.any(String),
      details: [{ field: 'nativeSystemLoadPermalink', issue: expect.stringContaining(String(orphan.native_system_load_permalink)) }],
    });
  });

  test('parents written earlier in the same request: loads, then their legs, then their stops in one document', async ({ api, tenant, testApp }) => {
    const loads = [loadBody(tenant), loadBody(tenant)];
    const legs = loads.map((load) => loadLegBody(tenant, load));
    const stops = legs.map((leg) => stopBody(tenant, leg));
    const data = await gqlData(
      api,
      `mutation ($loads: [LoadInput!]!, $legs: [LoadLegInput!]!, $stops: [StopInput!]!) {
        loads: bulkUpsertLoads(inputs: $loads) { status }
        legs: bulkUpsertLoadLegs(inputs: $legs) { status error { code } }
        stops: bulkUpsertStops(inputs: $stops) { status error { code } }
      }`,
      { loads: loads.map(toInput), legs: legs.map(toInput), stops: stops.map(toInput) },
    );
    expect(data).toEqual({
      loads: [{ status: 'PROCESSED' }, { status: 'PROCESSED' }],
      legs: [
        { status: 'PROCESSED', error: null },
        { status: 'PROCESSED', error: null },
      ],
      stops: [
        { status: 'PROCESSED', error: null },
        { status: 'PROCESSED', error: null },
      ],
    });
    expect(await testApp.database.db.prisma.stop.count({ where: { tenantId: tenant.id } })).toBe(2);
  });

  test('an input whose extra names an input field is that record’s validation_failed; the others are written', async ({ api, tenant }) => {
    const good = loadBody(tenant);
    const bad: Body = { ...loadBody(tenant), extra: { bolNumber: 'X' } };
    const results = await bulk(api, 'load', [good, bad]);
    expect(results[0]!.status).toBe('PROCESSED');
    expect(results[1]).toMatchObject({
      status: null,
      permalink: bad.native_system_load_permalink,
      error: { code: 'validation_failed', details: [{ field: 'extra.bolNumber', issue: expect.any(String) }] },
    });
  });

  test('a syncRunTime more than 5 minutes ahead of the service clock refuses the mutation whole, as REST does; nothing is written', async ({
    api,
    tenant,
    testApp,
  }) => {
    // The test clock runs 1 hour ahead: the rule reads the service clock, not the machine's.
    await withClockAhead(testApp.clock, 3_600_000, async (now) => {
      const records = [loadBody(tenant), loadBody(tenant)];
      const inputs = records.map((record) => inputOf('load', record));
      const { error, data } = await gqlError(api, bulkMutation('load'), { inputs, syncRunTime: new Date(now + 6 * 60_000).toISOString() });
      expect(error.extensions).toEqual({ code: 'validation_failed', details: [{ field: 'sync_run_time', issue: expect.stringMatching(/5 minutes/) }] });
      expect(data).toBeNull();
      expect(await testApp.database.db.prisma.load.count({ where: { tenantId: tenant.id } })).toBe(0);
      const near = await bulk(api, 'load', records, { syncRunTime: new Date(now + 4 * 60_000).toISOString() });
      expect(near.map((r) => r.status)).toEqual(['PROCESSED', 'PROCESSED']);
    });
  });

  test('0 and 1,001 inputs are refused whole, naming inputs; nothing is written', async ({ api, tenant, testApp }) => {
    for (const count of [0, 1001]) {
      const inputs = Array.from({ length: count }, () => toInput(loadBody(tenant)));
      const { error, data } = await gqlError(api, bulkMutation('load'), { inputs });
      expect(error.extensions).toEqual({ code: 'validation_failed', details: [{ field: 'inputs', issue: `must hold 1 to 1000 records (got ${count})` }] });
      expect(data).toBeNull();
    }
    expect(await testApp.database.db.prisma.load.count({ where: { tenantId: tenant.id } })).toBe(0);
  });

  test('1,000 full records pass the body limit and the complexity limit with every result field; six such batches in one document are refused', async ({
    api,
    tenant,
    testApp,
  }) => {
    const inputs = Array.from({ length: 1000 }, () => toInput(fullBodies.load(tenant, { extra: { note: 'x'.repeat(200) } })));
    const data = await gqlData(api, bulkMutation('load'), { inputs });
    expect(data.bulkUpsertLoads).toHaveLength(1000);
    expect(data.bulkUpsertLoads.every((r: BulkResult) => r.status === 'PROCESSED')).toBe(true);

    const abuse = `mutation ($inputs: [LoadInput!]!) { ${[1, 2, 3, 4, 5, 6].map((i) => `b${i}: bulkUpsertLoads(inputs: $inputs) { ${resultFields} }`).join(' ')} }`;
    const { error } = await gqlError(api, abuse, { inputs: inputs.map((i) => ({ ...i, bolNumber: 'ABUSE' })) });
    expect(error.extensions).toMatchObject({ code: 'validation_failed', details: [{ field: 'query' }] });
    expect(await testApp.database.db.prisma.load.count({ where: { tenantId: tenant.id, bolNumber: 'ABUSE' } })).toBe(0);
  });

  test('a body over 5 MiB is 413 payload_too_large', async ({ api, tenant }) => {
    const inputs = Array.from({ length: 600 }, () => toInput(loadBody(tenant, { extra: { note: 'x'.repeat(9000) } })));
    const res = await api.graphql(bulkMutation('load'), { inputs });
    expect(res.status).toBe(413);
    expect(res.body.errors[0].extensions).toMatchObject({ code: 'payload_too_large' });
  });

  test('each record is counted in ingest health under Service-Ingest-Source; a bad header rejects the request once', async ({ api, tenant }) => {
    const stored = await seed(api, `${routes.load}?sync_run_time=2026-03-01T12:00:00Z`, loadBody(tenant));
    const invalid = loadBody(tenant, { bol_number: 'x'.repeat(300) });
    await bulk(api, 'load', [loadBody(tenant), loadBody(tenant), stored, invalid], {
      syncRunTime: '2026-03-01T10:00:00Z',
      headers: { 'service-ingest-source': 'webhook' },
    });
    const load = await seed(api, routes.load, loadBody(tenant));
    const update = loadUpdateBody(tenant, load);
    await bulk(api, 'load_update', [update, update], { headers: { 'service-ingest-source': 'pull' } });
    const badSource = await gqlError(
      api,
      bulkMutation('carrier'),
      { inputs: [toInput(carrierBody(tenant)), toInput(carrierBody(tenant))] },
      {
        'service-ingest-source': 'carrier-pigeon',
      },
    );
    expect(badSource.error.extensions?.details).toEqual([{ field: 'Service-Ingest-Source', issue: expect.any(String) }]);

    const health = await gqlData(
      api,
      `{ ingestHealth {
        sources { source lastHour { processed skipped duplicate rejected } byKind { kind lastHour { processed skipped duplicate rejected } } }
        recentRejections { code field permalink kind source }
      } }`,
    );
    const source = (name: string) => health.ingestHealth.sources.find((s: { source: string }) => s.source === name);
    expect(source('WEBHOOK').lastHour).toEqual({ processed: 2, skipped: 1, duplicate: 0, rejected: 1 });
    expect(source('PULL').byKind).toEqual([{ kind: 'LOAD_UPDATE', lastHour: { processed: 1, skipped: 0, duplicate: 1, rejected: 0 } }]);
    // Two seeded loads (REST, no header) and the refused request (counted once, no permalink).
    expect(source('UNSPECIFIED').lastHour).toEqual({ processed: 2, skipped: 0, duplicate: 0, rejected: 1 });
    expect(health.ingestHealth.recentRejections).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ code: 'validation_failed', field: 'bol_number', permalink: invalid.native_system_load_permalink, source: 'WEBHOOK' }),
        expect.objectContaining({ code: 'validation_failed', field: 'Service-Ingest-Source', permalink: null, kind: 'CARRIER', source: 'UNSPECIFIED' }),
      ]),
    );
  });
});

describe('GraphQL bulk mutations and access', () => {
  test('the admin (read-only) key is refused with forbidden; nothing is written', async () => {
    const adminKey = 'admin-key-for-bulk-tests-0123456789abcdef';
    const testApp = await createTestApp({ env: { ADMIN_API_KEY: adminKey } });
    try {
      const tenant = await testApp.createTenant();
      const admin = apiFor(testApp, adminKey);
      const { error, data } = await gqlError(admin, bulkMutation('load'), { inputs: [toInput(loadBody(tenant))] }, { 'x-tenant': tenant.slug });
      expect(error.extensions?.code).toBe('forbidden');
      expect(data).toBeNull();
      expect(await testApp.database.db.prisma.load.count({ where: { tenantId: tenant.id } })).toBe(0);
    } finally {
      await testApp.close();
    }
  });

  test('a bulk mutation costs one record per input in the ingestion rate limit, as a REST bulk request', async () => {
    const testApp = await createTestApp({ env: { RATE_LIMIT_RECORDS_PER_SECOND: '0.001', RATE_LIMIT_BURST: '5' } });
    try {
      const tenant = await testApp.createTenant();
      const api = apiFor(testApp, tenant.apiKey);
      const three = await api.graphql(bulkMutation('load', 'status'), { inputs: [1, 2, 3].map(() => toInput(loadBody(tenant))) });
      expect(three.body.data.bulkUpsertLoads).toHaveLength(3);
      expect(three.headers.get('ratelimit')).toMatch(/r=2;/);
      const refused = await api.graphql(bulkMutation('load', 'status'), { inputs: [1, 2, 3].map(() => toInput(loadBody(tenant))) });
      expect(refused.status).toBe(429);
      expect(refused.body.errors[0].extensions.code).toBe('rate_limited');
      expect(await testApp.database.db.prisma.load.count({ where: { tenantId: tenant.id } })).toBe(3);
    } finally {
      await testApp.close();
    }
  });
});
