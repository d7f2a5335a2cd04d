/**
 * Payload history (api-contract.md E, "Payload history"; issue 19 item 3): every write answered
 * processed, skipped or duplicate keeps the record's body as received, with its time, source, request
 * id, outcome and whether it changed the record; `history(first:)` on every record type answers it
 * newest first, within the retention (days, per record), tenant by tenant. Every kind and both
 * transports, single and bulk, from the registry.
 */
import { createPayloadPartitions } from '../../../src/db/payload-history.js';
import { createPayloadHistoryMaintenance, payloadHistoryOf } from '../../../src/domain/payload-history/service.js';
import { recordKinds, recordSpecOf, recordSpecs, type RecordKind } from '../../../src/domain/registry.js';
import { actionsOf, bulkMutationName, bulkRestPath, mutationName, restPath } from '../../../src/domain/declaration/record.js';
import { createLogger } from '../../../src/logger.js';
import { describe, expect, test } from '../../fixtures.js';
import { gqlData, readBack, toInput, upsertMutations } from '../../factories/graphql.js';
import { bodyMaker, routes, seed, seedLoadTree } from '../../factories/records.js';
import { apiFor, createTestApp, type Api } from '../../helpers/app.js';

type Body = Record<string, unknown>;

interface PayloadRecord {
  receivedAt: string;
  source: string;
  requestId: string | null;
  query: string | null;
  outcome: string;
  changed: boolean;
  body: Body;
}

const historyFields = 'receivedAt source requestId query outcome changed body';

/** `history(first:)` of one record, read as a client would (the shared read-back: load updates through their load). */
async function historyOf(api: Api, kind: RecordKind, body: Body, first?: number, includeDeleted = false): Promise<PayloadRecord[]> {
  const args = first === undefined ? '' : `(first: ${first})`;
  const record = await readBack(api, kind, body, `history${args} { ${historyFields} }`, { includeDeleted });
  return record!.history as PayloadRecord[];
}

/** A body with an unknown field and its keys in an order no serialiser would choose (reversed). */
function verbatim(body: Body): Body {
  return Object.fromEntries([['zz_unknown_field', { nested: [1, 'two', null] }], ...Object.entries(body).reverse()]);
}

/** Date-time fields come back from GraphQL inputs as ISO 8601 with milliseconds: the same instant. */
function expectSameBody(actual: Body, expected: Body) {
  for (const [field, value] of Object.entries(expected)) {
    if (typeof value === 'string' && /^\d{4}-\d{2}-\d{2}T/.test(value))
      expect(new Date(actual[field] as string).getTime(), field).toBe(new Date(value).getTime());
    else expect(actual[field], field).toEqual(value);
  }
}

const headers = (requestId: string) => ({ 'x-request-id': requestId, 'service-ingest-source': 'pull' });

describe('every kind, both transports, single and bulk', () => {
  test.for(recordKinds)(
    '%s: REST single and bulk keep the body verbatim (key order, unknown fields) with request id and source',
    async (kind, { api, tenant }) => {
      const make = await bodyMaker(api, tenant);
      const single = verbatim(make(kind));
      const res = await api.post(routes[kind], single, headers(`hist-single-${kind}`));
      expect(res.body.status).toBe('processed');
      expect(res.headers.get('x-request-id')).toBe(`hist-single-${kind}`);
      const [row, ...rest] = await historyOf(api, kind, single);
      expect(rest).toEqual([]);
      expect(row).toMatchObject({ source: 'PULL', requestId: `hist-single-${kind}`, query: null, outcome: 'PROCESSED', changed: true });
      expect(JSON.stringify(row!.body)).toBe(JSON.stringify(single));

      const bulkBodies = [verbatim(make(kind)), verbatim(make(kind))];
      const bulk = await api.post(bulkRestPath(recordSpecOf[kind]), { records: bulkBodies }, headers(`hist-bulk-${kind}`));
      expect(bulk.body.results.map((r: Body) => r.status)).toEqual(['processed', 'processed']);
      for (const body of bulkBodies) {
        const history = await historyOf(api, kind, body);
        expect(history).toHaveLength(1);
        expect(history[0]).toMatchObject({ requestId: `hist-bulk-${kind}`, outcome: 'PROCESSED', changed: true, source: 'PULL' });
        expect(JSON.stringify(history[0]!.body)).toBe(JSON.stringify(body));
      }
    },
  );

  test.for(recordKinds)('%s: GraphQL single and bulk keep the input under the REST field names', async (kind, { api, tenant }) => {
    const make = await bodyMaker(api, tenant);
    const spec = recordSpecOf[kind];
    const single = make(kind);
    const res = await api.graphql(upsertMutations[kind], { input: { ...toInput(single), extra: { zz_unknown_field: 'kept' } } }, headers(`hist-gql-${kind}`));
    expect(res.body.errors).toBeUndefined();
    expect(res.headers.get('x-request-id')).toBe(`hist-gql-${kind}`);
    const [row] = await historyOf(api, kind, single);
    expect(row).toMatchObject({ requestId: `hist-gql-${kind}`, outcome: 'PROCESSED', changed: true, source: 'PULL' });
    expectSameBody(row!.body, { ...single, zz_unknown_field: 'kept' });

    const bulkBodies = [make(kind), make(kind)];
    await gqlData(
      api,
      `mutation ($inputs: [${spec.graphql.input}!]!) { ${bulkMutationName(spec)}(inputs: $inputs) { status } }`,
      { inputs: bulkBodies.map(toInput) },
      headers(`hist-gql-bulk-${kind}`),
    );
    for (const body of bulkBodies) {
      const history = await historyOf(api, kind, body);
      expect(history).toHaveLength(1);
      expect(history[0]).toMatchObject({ requestId: `hist-gql-bulk-${kind}`, outcome: 'PROCESSED', changed: true });
      expectSameBody(history[0]!.body, body);
    }
  });
});

/** A tombstone's history: read by permalink with `includeDeleted: true` (the only read that shows it). */
const tombstoneHistory = (api: Api, kind: RecordKind, body: Body) => historyOf(api, kind, body, undefined, true);

const deletableKinds = recordSpecs.filter((spec) => actionsOf(spec).includes('delete')).map((spec) => spec.kind);

/** The delete body of a record: its permalink field only. */
const deleteBodyOf = (kind: RecordKind, body: Body): Body => ({ [recordSpecOf[kind].permalinkField]: body[recordSpecOf[kind].permalinkField] });

describe('deletes keep their body too (every deletable kind, both transports, single and bulk)', () => {
  test.for(deletableKinds)('%s: REST delete and bulk_delete: processed, changed when deleted now, not when already deleted', async (kind, { api, tenant }) => {
    const make = await bodyMaker(api, tenant);
    const spec = recordSpecOf[kind];
    const body = await seed(api, routes[kind], make(kind));
    const single = { zz_note: 'voided', ...deleteBodyOf(kind, body) };
    const res = await api.post(restPath(spec, 'delete'), single, headers(`hist-del-${kind}`));
    expect(res.body).toMatchObject({ status: 'processed', message: expect.stringMatching(/(?<!already) deleted/) });
    const bulk = await api.post(bulkRestPath(spec, 'delete'), { records: [deleteBodyOf(kind, body)] }, headers(`hist-bulk-del-${kind}`));
    expect(bulk.body.results[0]).toMatchObject({ status: 'processed', message: expect.stringContaining('already deleted') });

    const history = await tombstoneHistory(api, kind, body);
    expect(history.map((h) => [h.requestId, h.outcome, h.changed])).toEqual([
      [`hist-bulk-del-${kind}`, 'PROCESSED', false],
      [`hist-del-${kind}`, 'PROCESSED', true],
      [history[2]!.requestId, 'PROCESSED', true],
    ]);
    expect(history[1]!.source).toBe('PULL');
    expect(JSON.stringify(history[1]!.body)).toBe(JSON.stringify(single));
    expect(history[0]!.body).toEqual(deleteBodyOf(kind, body));
    expectSameBody(history[2]!.body, body);
  });

  test.for(deletableKinds)('%s: GraphQL delete and bulk delete mutations', async (kind, { api, tenant }) => {
    const make = await bodyMaker(api, tenant);
    const spec = recordSpecOf[kind];
    const body = await seed(api, routes[kind], make(kind));
    const input = toInput(deleteBodyOf(kind, body));
    await gqlData(
      api,
      `mutation ($input: ${spec.model}DeleteInput!) { ${mutationName(spec, 'delete')}(input: $input) { status } }`,
      { input },
      headers(`hist-gql-del-${kind}`),
    );
    await gqlData(
      api,
      `mutation ($inputs: [${spec.model}DeleteInput!]!) { ${bulkMutationName(spec, 'delete')}(inputs: $inputs) { status } }`,
      { inputs: [input] },
      headers(`hist-gql-bulk-del-${kind}`),
    );
    const [bulkRow, singleRow, upsertRow, ...rest] = await tombstoneHistory(api, kind, body);
    expect(rest).toEqual([]);
    expect(bulkRow).toMatchObject({ requestId: `hist-gql-bulk-del-${kind}`, outcome: 'PROCESSED', changed: false, body: deleteBodyOf(kind, body) });
    expect(singleRow).toMatchObject({ requestId: `hist-gql-del-${kind}`, outcome: 'PROCESSED', changed: true, body: deleteBodyOf(kind, body) });
    expect(upsertRow).toMatchObject({ outcome: 'PROCESSED', changed: true });
  });
});

describe('deletes: outcomes, the cascade, a permalink never stored, dry runs', () => {
  test('a delete older than the record is kept as skipped; a revival follows it', async ({ api, tenant }) => {
    const make = await bodyMaker(api, tenant);
    const del = 'delete';
    const load = await seed(api, `${routes.load}?sync_run_time=2026-11-20T10:00:00Z`, make('load'));
    expect((await api.post(`${restPath(recordSpecOf.load, del)}?sync_run_time=2026-11-20T09:00:00Z`, deleteBodyOf('load', load))).body.status).toBe('skipped');
    expect((await api.post(`${restPath(recordSpecOf.load, del)}?sync_run_time=2026-11-20T11:00:00Z`, deleteBodyOf('load', load))).body.status).toBe(
      'processed',
    );
    expect((await api.post(`${routes.load}?sync_run_time=2026-11-20T12:00:00Z`, load)).body.status).toBe('processed');
    expect((await historyOf(api, 'load', load)).map((h) => [h.outcome, h.changed, Object.keys(h.body).length > 1 ? 'upsert' : 'delete'])).toEqual([
      ['PROCESSED', true, 'upsert'], // the revival
      ['PROCESSED', true, 'delete'],
      ['SKIPPED', false, 'delete'],
      ['PROCESSED', true, 'upsert'],
    ]);
  });

  test("a load's delete is kept on the load only: its cascaded legs and stops were sent no body", async ({ api, tenant }) => {
    const { load, leg, stop } = await seedLoadTree(api, tenant);
    expect((await api.post(restPath(recordSpecOf.load, 'delete'), deleteBodyOf('load', load))).body.status).toBe('processed');
    expect((await tombstoneHistory(api, 'load', load)).map((h) => h.changed)).toEqual([true, true]);
    expect((await tombstoneHistory(api, 'load_leg', leg)).map((h) => Object.keys(h.body).length > 1)).toEqual([true]);
    expect((await tombstoneHistory(api, 'stop', stop)).map((h) => Object.keys(h.body).length > 1)).toEqual([true]);
  });

  test('"not found: nothing to delete" is kept under its permalink (unchanged): a record created later shows it', async ({ api, tenant }) => {
    const make = await bodyMaker(api, tenant);
    const stop = make('stop');
    const res = await api.post(restPath(recordSpecOf.stop, 'delete'), deleteBodyOf('stop', stop), headers('hist-del-early'));
    expect(res.body.message).toContain('not found: nothing to delete');
    await seed(api, routes.stop, stop);
    expect((await historyOf(api, 'stop', stop)).map((h) => [h.requestId === 'hist-del-early', h.outcome, h.changed, Object.keys(h.body).length > 1])).toEqual([
      [false, 'PROCESSED', true, true],
      [true, 'PROCESSED', false, false],
    ]);
  });

  test('a dry-run delete keeps no body; a bulk delete records in its own statement', async ({ api, tenant, testApp }) => {
    const make = await bodyMaker(api, tenant);
    const del = 'delete';
    const loads = [await seed(api, routes.load, make('load')), await seed(api, routes.load, make('load'))];
    const rehearsed = await api.post(`${bulkRestPath(recordSpecOf.load, del)}?dry_run=true`, { records: loads.map((l) => deleteBodyOf('load', l)) });
    expect(rehearsed.body.results.map((r: Body) => r.status)).toEqual(['processed', 'processed']);
    await gqlData(api, `mutation ($input: LoadDeleteInput!) { deleteLoad(input: $input, dryRun: true) { status } }`, {
      input: toInput(deleteBodyOf('load', loads[0]!)),
    });
    for (const load of loads) expect((await historyOf(api, 'load', load)).map((h) => h.changed)).toEqual([true]);

    const statements: string[] = [];
    const stop = testApp.database.db.onStatement((sql) => statements.push(sql));
    try {
      expect(
        (await api.post(bulkRestPath(recordSpecOf.load, del), { records: loads.map((l) => deleteBodyOf('load', l)) })).body.results.map((r: Body) => r.status),
      ).toEqual(['processed', 'processed']);
    } finally {
      stop();
    }
    const touching = statements.filter((sql) => /payload_history/.test(sql));
    expect(touching).toHaveLength(1);
    expect(touching[0]).toMatch(/UPDATE "loads"/);
    for (const load of loads) expect((await tombstoneHistory(api, 'load', load)).map((h) => h.changed)).toEqual([true, true]);
  });
});

describe('the hot path', () => {
  test("a bulk request's bodies are recorded by the write's own statement: no statement of their own", async ({ api, tenant, testApp }) => {
    const make = await bodyMaker(api, tenant);
    const bodies = Array.from({ length: 200 }, () => make('load'));
    const statements: string[] = [];
    const stop = testApp.database.db.onStatement((sql) => statements.push(sql));
    try {
      const res = await api.post(bulkRestPath(recordSpecOf.load), { records: bodies });
      expect(res.body.results.every((r: Body) => r.status === 'processed')).toBe(true);
    } finally {
      stop();
    }
    const touching = statements.filter((sql) => /payload_history/.test(sql));
    expect(touching).toHaveLength(1);
    expect(touching[0]).toMatch(/INSERT INTO "loads"/);
    expect(statements.filter((sql) => /INSERT INTO "loads"/.test(sql))).toHaveLength(1);
    const rows = await testApp.database.db.sql.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM payload_history WHERE tenant_id = $1::uuid AND permalink = ANY($2::text[])`,
      [tenant.id, bodies.map((b) => b.native_system_load_permalink)],
    );
    expect(rows[0]!.n).toBe(200);
  });
});

describe('outcomes and order', () => {
  test('processed (changed or not), skipped and duplicate are kept, newest first; first: limits', async ({ api, tenant }) => {
    const make = await bodyMaker(api, tenant);
    const load = make('load');
    await api.post(`${routes.load}?sync_run_time=2026-11-20T10:00:00Z`, load);
    await api.post(`${routes.load}?sync_run_time=2026-11-20T11:00:00Z`, load); // the same values again
    const moved = { ...load, native_system_load_status: 'In Transit' };
    await api.post(`${routes.load}?sync_run_time=2026-11-20T12:00:00Z`, moved);
    const stale = { ...load, native_system_load_status: 'Delivered' };
    expect((await api.post(`${routes.load}?sync_run_time=2026-11-20T09:00:00Z`, stale)).body.status).toBe('skipped');

    const history = await historyOf(api, 'load', load);
    // Each with the query string that explains it: the skipped one's sync_run_time is older than the stored one.
    expect(history.map((h) => [h.outcome, h.changed, h.body.native_system_load_status, h.query])).toEqual([
      ['SKIPPED', false, 'Delivered', 'sync_run_time=2026-11-20T09:00:00Z'],
      ['PROCESSED', true, 'In Transit', 'sync_run_time=2026-11-20T12:00:00Z'],
      ['PROCESSED', false, 'Booked', 'sync_run_time=2026-11-20T11:00:00Z'],
      ['PROCESSED', true, 'Booked', 'sync_run_time=2026-11-20T10:00:00Z'],
    ]);
    expect((await historyOf(api, 'load', load, 2)).map((h) => h.body.native_system_load_status)).toEqual(['Delivered', 'In Transit']);
    expect(await historyOf(api, 'load', load, 0)).toEqual([]);

    const update = make('load_update');
    await seed(api, routes.load_update, update);
    expect((await api.post(routes.load_update, update)).body.status).toBe('duplicate');
    expect((await historyOf(api, 'load_update', update)).map((h) => [h.outcome, h.changed])).toEqual([
      ['DUPLICATE', false],
      ['PROCESSED', true],
    ]);
  });

  test("the request's parameters are kept as received: REST's query string (bulk and delete too), GraphQL's syncRunTime", async ({ api, tenant }) => {
    const make = await bodyMaker(api, tenant);
    const [a, b] = [make('load'), make('load')];
    const query = 'dry_run=false&sync_run_time=2026-11-20T10%3A00%3A00Z';
    expect((await api.post(`${bulkRestPath(recordSpecOf.load)}?${query}`, { records: [a, b] })).status).toBe(200);
    for (const body of [a, b]) expect((await historyOf(api, 'load', body))[0]?.query).toBe(query);
    const removed = await api.post(`/api/v1/loads/delete?sync_run_time=2026-11-20T11:00:00Z`, deleteBodyOf('load', a));
    expect(removed.body.status).toBe('processed');
    expect((await tombstoneHistory(api, 'load', a))[0]).toMatchObject({ outcome: 'PROCESSED', query: 'sync_run_time=2026-11-20T11:00:00Z' });
    await gqlData(api, 'mutation ($input: LoadInput!, $s: DateTime) { upsertLoad(input: $input, syncRunTime: $s) { status } }', {
      input: toInput(b),
      s: '2026-11-20T12:00:00Z',
    });
    await gqlData(api, upsertMutations.load, { input: toInput(b) });
    expect((await historyOf(api, 'load', b)).map((h) => h.query)).toEqual([null, 'sync_run_time=2026-11-20T12:00:00.000Z', query]);
  });

  test('a skipped or duplicate write drops cached answers: the next read shows its body', async ({ testApp, tenant }) => {
    const cached = await createTestApp({ database: { ...testApp.database, drop: async () => {} }, env: { RESPONSE_CACHE_TTL_MS: '3600000' } });
    try {
      const api = apiFor(cached, tenant.apiKey);
      const make = await bodyMaker(api, tenant);
      const load = await seed(api, `${routes.load}?sync_run_time=2026-11-20T10:00:00Z`, make('load'));
      const update = await seed(api, routes.load_update, make('load_update'));
      const read = `query ($l: String!, $u: String!) {
        a: load(permalink: $l) { history { outcome } }
        b: load(permalink: $u) { updates(first: 100) { permalink history { outcome } } }
      }`;
      const variables = { l: load.native_system_load_permalink, u: update.native_system_load_permalink };
      const outcomes = async () => {
        const { a, b } = await gqlData(api, read, variables);
        const updateHistory = b.updates.find((u: Body) => u.permalink === update.native_system_load_update_permalink).history;
        return [a.history.map((h: Body) => h.outcome), updateHistory.map((h: Body) => h.outcome)];
      };
      await cached.app.services.sequencer.idle(); // the writes' numbering passes (which drop cached answers too) follow their answers
      expect(await outcomes()).toEqual([['PROCESSED'], ['PROCESSED']]);
      expect((await api.graphql(read, variables)).headers.get('x-response-cache')).toBe('hit');
      expect((await api.post(`${routes.load}?sync_run_time=2026-11-20T09:00:00Z`, load)).body.status).toBe('skipped');
      expect(await outcomes()).toEqual([['SKIPPED', 'PROCESSED'], ['PROCESSED']]);
      expect((await api.post(routes.load_update, update)).body.status).toBe('duplicate');
      expect(await outcomes()).toEqual([
        ['SKIPPED', 'PROCESSED'],
        ['DUPLICATE', 'PROCESSED'],
      ]);
    } finally {
      await cached.close();
    }
  });

  test('a repeated permalink in one bulk request is two rows, in request order', async ({ api, tenant }) => {
    const make = await bodyMaker(api, tenant);
    const first = make('carrier');
    const second = { ...first, carrier_name: 'Renamed' };
    await api.post(bulkRestPath(recordSpecOf.carrier), { records: [first, second] });
    expect((await historyOf(api, 'carrier', first)).map((h) => h.body.carrier_name)).toEqual(['Renamed', first.carrier_name]);
  });

  test('rejected bodies are not kept: invalid, or naming a missing parent', async ({ api, tenant, testApp }) => {
    const make = await bodyMaker(api, tenant);
    const load = make('load');
    expect((await api.post(routes.load, { ...load, native_system_load_id: 12 })).status).toBe(400);
    const orphan = make('load_leg', { native_system_load_permalink: `NOPE-${tenant.slug}` });
    expect((await api.post(bulkRestPath(recordSpecOf.load_leg), { records: [orphan] })).body.results[0].error.code).toBe('parent_not_found');
    await seed(api, routes.load, load);
    const history = await historyOf(api, 'load', load);
    expect(history.map((h) => h.body.native_system_load_id)).toEqual([load.native_system_load_id]);
    const rows = await payloadHistoryOf(
      testApp.database.db,
      { days: 14, perRecord: 50 },
      {
        tenantId: tenant.id,
        kind: 'load_leg',
        permalinks: [orphan.native_system_load_leg_permalink as string],
        first: 50,
        now: new Date(),
      },
    );
    expect(rows.get(orphan.native_system_load_leg_permalink as string)).toEqual([]);
  });

  test('a dry run keeps no body (nothing of it is written)', async ({ api, tenant }) => {
    const make = await bodyMaker(api, tenant);
    const load = await seed(api, routes.load, make('load'));
    const rehearsed = await api.post(`${routes.load}?dry_run=true`, { ...load, native_system_load_status: 'Delivered' });
    expect(rehearsed.body).toMatchObject({ status: 'processed', dry_run: true });
    expect((await historyOf(api, 'load', load)).map((h) => h.body.native_system_load_status)).toEqual(['Booked']);
  });

  test('tenant isolation: another tenant reads none of it', async ({ api, tenant, otherTenant, testApp }) => {
    const make = await bodyMaker(api, tenant);
    const carrier = await seed(api, routes.carrier, make('carrier'));
    const permalink = carrier.native_system_carrier_permalink as string;
    const config = { days: 14, perRecord: 50 };
    const q = { kind: 'carrier' as const, permalinks: [permalink], first: 50, now: new Date() };
    expect((await payloadHistoryOf(testApp.database.db, config, { ...q, tenantId: tenant.id })).get(permalink)).toHaveLength(1);
    expect((await payloadHistoryOf(testApp.database.db, config, { ...q, tenantId: otherTenant.id })).get(permalink)).toEqual([]);
    const other = apiFor(testApp, otherTenant.apiKey);
    expect((await gqlData(other, `query ($p: String!) { carrier(permalink: $p) { history { body } } }`, { p: permalink })).carrier).toBeNull();
  });

  test('a first below 0 names the argument (the page rule of every list)', async ({ api, tenant }) => {
    const make = await bodyMaker(api, tenant);
    const carrier = await seed(api, routes.carrier, make('carrier'));
    const res = await api.graphql(`query ($p: String!) { carrier(permalink: $p) { history(first: -1) { body } } }`, {
      p: carrier.native_system_carrier_permalink,
    });
    expect(res.body.errors[0].extensions.details).toEqual([{ field: 'first', issue: 'must be between 0 and 100' }]);
  });
});

describe('retention', () => {
  const logger = createLogger('silent');

  test('PAYLOAD_HISTORY_PER_RECORD: reads answer at most the cap, the job deletes the rest', async ({ testApp, tenant }) => {
    const capped = await createTestApp({ database: { ...testApp.database, drop: async () => {} }, env: { PAYLOAD_HISTORY_PER_RECORD: '3' } });
    try {
      const api = apiFor(capped, tenant.apiKey);
      const make = await bodyMaker(api, tenant);
      const carrier = make('carrier');
      for (let i = 1; i <= 5; i++) await api.post(routes.carrier, { ...carrier, carrier_name: `Name ${i}` });
      expect((await historyOf(api, 'carrier', carrier, 50)).map((h) => h.body.carrier_name)).toEqual(['Name 5', 'Name 4', 'Name 3']);
      const count = async () =>
        (
          await testApp.database.db.sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM payload_history WHERE tenant_id = $1::uuid AND permalink = $2`, [
            tenant.id,
            carrier.native_system_carrier_permalink,
          ])
        )[0]!.n;
      expect(await count()).toBe(5);
      const job = createPayloadHistoryMaintenance({ db: testApp.database.db, clock: capped.clock, logger, config: { days: 14, perRecord: 3 }, intervalMs: 0 });
      expect((await job.runOnce()).trimmed).toBeGreaterThanOrEqual(2);
      expect(await count()).toBe(3);
      expect((await historyOf(api, 'carrier', carrier, 50)).map((h) => h.body.carrier_name)).toEqual(['Name 5', 'Name 4', 'Name 3']);
    } finally {
      await capped.close();
    }
  });

  test('PAYLOAD_HISTORY_DAYS=0 keeps no body and answers nothing (the log entries stay, bodiless, for field coverage)', async ({ testApp, tenant }) => {
    const off = await createTestApp({ database: { ...testApp.database, drop: async () => {} }, env: { PAYLOAD_HISTORY_DAYS: '0' } });
    try {
      const api = apiFor(off, tenant.apiKey);
      const make = await bodyMaker(api, tenant);
      for (const kind of recordKinds) {
        const body = await seed(api, routes[kind], make(kind));
        await api.post(bulkRestPath(recordSpecOf[kind]), { records: [body] });
        const rows = await testApp.database.db.sql.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM payload_history WHERE tenant_id = $1::uuid AND permalink = $2 AND body IS NOT NULL`,
          [tenant.id, body[recordSpecOf[kind].permalinkField]],
        );
        expect(rows[0]!.n, kind).toBe(0);
      }
      // The writes still count in data quality: their log entries carry the fields' presence, not the bodies
      // (carriers: the parent the body maker seeded, then the single and the bulk write).
      const quality = await gqlData(api, '{ dataQuality { kinds { kind writes } } }');
      expect(quality.dataQuality.kinds.find((k: { kind: string }) => k.kind === 'CARRIER').writes).toBe(3);
      // Written while on, read while off: nothing is answered.
      const on = apiFor(testApp, tenant.apiKey);
      const carrier = await seed(on, restPath(recordSpecOf.carrier), make('carrier'));
      expect(await historyOf(on, 'carrier', carrier)).toHaveLength(1);
      expect(await historyOf(api, 'carrier', carrier)).toEqual([]);
    } finally {
      await off.close();
    }
  });

  test('PAYLOAD_HISTORY_DAYS: older rows are not answered, and the job drops their day partition', async ({ testApp, tenant, api }) => {
    const { db } = testApp.database;
    const make = await bodyMaker(api, tenant);
    const daysAgo = 20;
    const then = new Date(Date.now() - daysAgo * 86_400_000);
    const [partition] = await createPayloadPartitions(db.sql, then, 1);
    expect(partition).toMatch(/^payload_history_p\d{8}$/);
    const carrier = make('carrier');
    testApp.clock.advance(-daysAgo * 86_400_000);
    try {
      await seed(api, routes.carrier, carrier);
    } finally {
      testApp.clock.reset();
    }
    const permalink = carrier.native_system_carrier_permalink as string;
    const inPartition = async () =>
      (await db.sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM "${partition}" WHERE permalink = $1`, [permalink]))[0]!.n;
    expect(await inPartition()).toBe(1);
    expect(await historyOf(api, 'carrier', carrier)).toEqual([]); // past the 14 days, even before the job

    await api.post(routes.carrier, carrier); // a recent write stays
    const job = createPayloadHistoryMaintenance({ db, clock: testApp.clock, logger, config: { days: 14, perRecord: 50 }, intervalMs: 0 });
    const { created, dropped } = await job.runOnce();
    expect(dropped).toContain(partition);
    const partitions = (
      await db.sql.query<{ name: string }>(
        `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'payload_history'::regclass`,
        [],
      )
    ).map((row) => row.name);
    expect(partitions).not.toContain(partition);
    // Today's and the next days' partitions exist ahead (created now or by an earlier pass), and the default one.
    const day = (offset: number) => `payload_history_p${new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10).replaceAll('-', '')}`;
    expect(partitions).toEqual(expect.arrayContaining([day(1), day(2), 'payload_history_default']));
    expect(created.every((name) => partitions.includes(name))).toBe(true);
    expect(await historyOf(api, 'carrier', carrier)).toHaveLength(1);
    // A second pass (another instance, the next interval) changes nothing.
    expect(await job.runOnce()).toMatchObject({ created: [], dropped: [] });
  });
});
