/**
 * Bulk routes (api-contract.md "Bulk routes"): one result per record in request order, the same
 * outcomes and errors as the single routes, set-based writes, envelope errors rejected whole.
 */
import { recordSpecs, type RecordKind } from '../../../src/domain/registry.js';
import { bulkRestPath } from '../../../src/domain/declaration/record.js';
import { describe, expect, test } from '../../fixtures.js';
import { carrierBody, loadBody, loadLegBody, loadUpdateBody, routes, seed, stopBody } from '../../factories/records.js';
import type { Api } from '../../helpers/app.js';
import { statisticsTag } from '../../../src/db/table-statistics.js';
import { isPassStatement } from '../../../src/domain/events/sequencer.js';
import { withClockAhead } from '../../helpers/clock.js';

/** The bulk route of each kind, from the registry. */
const bulk = Object.fromEntries(recordSpecs.map((spec) => [spec.kind, bulkRestPath(spec)])) as Record<RecordKind, string>;

const post = (api: Api, path: string, records: unknown, query = '', headers?: Record<string, string>) => api.post(`${path}${query}`, { records }, headers);

describe('bulk routes', () => {
  test('the contract paths are served', () => {
    expect(Object.values(bulk)).toEqual([
      '/api/v1/carriers/bulk_upsert',
      '/api/v1/loads/bulk_upsert',
      '/api/v1/loadlegs/bulk_upsert',
      '/api/v1/stops/bulk_upsert',
      '/api/v1/loadupdates/bulk_create',
    ]);
  });

  test('one result per record in request order, each with its index: processed, validation_failed, tenant_mismatch, created and updated', async ({
    api,
    tenant,
    testApp,
  }) => {
    const existing = await seed(api, routes.load, loadBody(tenant));
    const fresh = loadBody(tenant);
    const invalid: Record<string, unknown> = { ...loadBody(tenant), native_system_load_status: 5 };
    const foreign: Record<string, unknown> = { ...loadBody(tenant), company_permalink: 'someone-else' };
    const res = await post(api, bulk.load, [fresh, invalid, { ...existing, bol_number: 'NEW' }, foreign]);
    expect(res.status).toBe(200);
    expect(res.body.results).toEqual([
      {
        index: 0,
        status: 'processed',
        message: expect.stringContaining('created'),
        permalink: fresh.native_system_load_permalink,
        unknown_fields: [],
        suggestions: [],
        phase: 'UNMAPPED',
      },
      {
        index: 1,
        permalink: invalid.native_system_load_permalink,
        error: { code: 'validation_failed', message: expect.any(String), details: [{ field: 'native_system_load_status', issue: expect.any(String) }] },
      },
      {
        index: 2,
        status: 'processed',
        message: expect.stringContaining('updated'),
        permalink: existing.native_system_load_permalink,
        unknown_fields: [],
        suggestions: [],
        phase: 'UNMAPPED',
      },
      {
        index: 3,
        permalink: foreign.native_system_load_permalink,
        error: { code: 'tenant_mismatch', message: expect.any(String), details: expect.any(Array) },
      },
    ]);
    const stored = await testApp.database.db.prisma.load.findFirstOrThrow({ where: { permalink: existing.native_system_load_permalink as string } });
    expect(stored.bolNumber).toBe('NEW');
  });

  test('an error result names the permalink the record sent as a string, and none when it sent a number, null, nothing or no object', async ({
    api,
    tenant,
  }) => {
    const wrongSuffix = { ...loadBody(tenant), native_system_load_permalink: 'L1-elsewhere' };
    const { native_system_load_permalink: _omitted, ...withoutPermalink } = loadBody(tenant);
    const records = [
      wrongSuffix,
      { ...loadBody(tenant), native_system_load_permalink: 42 },
      { ...loadBody(tenant), native_system_load_permalink: null },
      withoutPermalink,
      'not a record',
    ];
    const { results } = (await post(api, bulk.load, records)).body;
    expect(results.map((r: { index: number }) => r.index)).toEqual([0, 1, 2, 3, 4]);
    expect(results[0]).toEqual({ index: 0, permalink: 'L1-elsewhere', error: expect.objectContaining({ code: 'validation_failed' }) });
    for (const result of results.slice(1)) {
      expect(result).toEqual({ index: result.index, error: expect.objectContaining({ code: 'validation_failed' }) });
    }
    // A parent that does not exist: the result names the record's own permalink.
    const orphan = loadLegBody(tenant, loadBody(tenant));
    const [missingParent] = (await post(api, bulk.load_leg, [orphan])).body.results;
    expect(missingParent).toMatchObject({ index: 0, permalink: orphan.native_system_load_leg_permalink, error: { code: 'parent_not_found' } });
  });

  test('a sync_run_time more than 5 minutes ahead of the service clock rejects the request whole (400), as on the single route', async ({
    api,
    tenant,
    testApp,
  }) => {
    // The test clock runs 1 hour ahead: the rule reads the service clock, not the machine's.
    await withClockAhead(testApp.clock, 3_600_000, async (now) => {
      const ahead = `?sync_run_time=${new Date(now + 6 * 60_000).toISOString()}`;
      const body = loadBody(tenant);
      for (const res of [await post(api, bulk.load, [body, loadBody(tenant)], ahead), await api.post(`${routes.load}${ahead}`, body)]) {
        expect(res.status).toBe(400);
        expect(res.body.error).toEqual({
          code: 'validation_failed',
          message: expect.stringContaining('sync_run_time'),
          details: [{ field: 'sync_run_time', issue: expect.stringMatching(/5 minutes/) }],
        });
      }
      // Nothing of the rejected batch was stored; 4 minutes ahead is accepted.
      expect(await testApp.database.db.prisma.load.count({ where: { permalink: body.native_system_load_permalink as string } })).toBe(0);
      const near = await post(api, bulk.load, [body], `?sync_run_time=${new Date(now + 4 * 60_000).toISOString()}`);
      expect(near.body.results).toMatchObject([{ index: 0, status: 'processed' }]);
    });
  });

  test('skipped by sync_run_time per record; a bad sync_run_time rejects the request whole (400)', async ({ api, tenant }) => {
    const stored = await seed(api, `${routes.load}?sync_run_time=2026-03-01T12:00:00Z`, loadBody(tenant));
    const fresh = loadBody(tenant);
    const res = await post(api, bulk.load, [stored, fresh], '?sync_run_time=2026-03-01T10:00:00Z');
    expect(res.body.results.map((r: { status?: string }) => r.status)).toEqual(['skipped', 'processed']);
    const bad = await post(api, bulk.load, [loadBody(tenant), loadBody(tenant)], '?sync_run_time=yesterday');
    expect(bad.status).toBe(400);
    expect(bad.body.error).toMatchObject({ code: 'validation_failed', details: [{ field: 'sync_run_time', issue: expect.any(String) }] });
  });

  test('parents from an earlier batch resolve; missing parents are 422 results; repeated update permalinks are duplicate', async ({ api, tenant }) => {
    const carrier = carrierBody(tenant);
    const loads = [loadBody(tenant), loadBody(tenant)];
    expect((await post(api, bulk.carrier, [carrier])).body.results[0].status).toBe('processed');
    expect((await post(api, bulk.load, loads)).body.results.map((r: { status: string }) => r.status)).toEqual(['processed', 'processed']);
    const legs = loads.map((load) => loadLegBody(tenant, load, { native_system_carrier_permalink: carrier.native_system_carrier_permalink }));
    const orphan = loadLegBody(tenant, loadBody(tenant));
    const legResults = (await post(api, bulk.load_leg, [...legs, orphan])).body.results;
    expect(legResults.slice(0, 2).map((r: { status: string }) => r.status)).toEqual(['processed', 'processed']);
    expect(legResults[2].error).toMatchObject({ code: 'parent_not_found', details: [{ field: 'native_system_load_permalink' }] });
    expect((await post(api, bulk.stop, [stopBody(tenant, legs[0]!)])).body.results[0].status).toBe('processed');

    const update = loadUpdateBody(tenant, loads[0]!);
    const updates = (await post(api, bulk.load_update, [update, { ...update, message: 'again' }, loadUpdateBody(tenant, loads[1]!)])).body.results;
    expect(updates.map((r: { status: string }) => r.status)).toEqual(['processed', 'duplicate', 'processed']);
  });

  test('the same permalink twice in one batch: the later one wins, as two requests in order', async ({ api, tenant, testApp }) => {
    const body = loadBody(tenant);
    const res = await post(api, bulk.load, [{ ...body, bol_number: 'FIRST' }, loadBody(tenant), { ...body, bol_number: 'SECOND' }]);
    expect(res.body.results.map((r: { message: string }) => r.message.match(/created|updated/)![0])).toEqual(['created', 'created', 'updated']);
    const stored = await testApp.database.db.prisma.load.findFirstOrThrow({ where: { permalink: body.native_system_load_permalink as string } });
    expect(stored.bolNumber).toBe('SECOND');
  });

  test('an absent field keeps its stored value, per record, whatever the other records carry', async ({ api, tenant, testApp }) => {
    const a = await seed(api, routes.load, loadBody(tenant, { po_number: 'PO-A' }));
    const { po_number: _omitted, ...withoutPo } = a;
    const b = loadBody(tenant, { po_number: 'PO-B' });
    await post(api, bulk.load, [{ ...withoutPo, bol_number: 'X' }, b]);
    const stored = await testApp.database.db.prisma.load.findFirstOrThrow({ where: { permalink: a.native_system_load_permalink as string } });
    expect(stored).toMatchObject({ poNumber: 'PO-A', bolNumber: 'X' });
  });

  test('writes 500 records in a few statements, not one per record', async ({ api, tenant, testApp }) => {
    const statements: string[] = [];
    const stop = testApp.database.db.onStatement((sql) => statements.push(sql));
    try {
      const res = await post(
        api,
        bulk.load,
        Array.from({ length: 500 }, () => loadBody(tenant)),
      );
      expect(res.body.results.filter((r: { status: string }) => r.status === 'processed')).toHaveLength(500);
    } finally {
      stop();
    }
    // Not the request's: the background check of the table's planner statistics (src/db/table-statistics.ts),
    // and the numbering pass that follows the answer (decision 0045), counted when it starts before `stop()`.
    const request = statements.filter((sql) => !sql.startsWith(statisticsTag) && !isPassStatement(sql));
    expect(request.filter((sql) => /INSERT INTO "loads"/.test(sql))).toHaveLength(1);
    expect(request.length).toBeLessThanOrEqual(3);
  });

  test('envelope errors are rejected whole: not an array, empty, over 1,000 records, over 5 MiB, invalid JSON', async ({ api, tenant, testApp }) => {
    for (const records of [undefined, {}, 'x', []]) {
      const res = await api.post(bulk.load, records === undefined ? {} : { records });
      expect(res.status, JSON.stringify(res.body)).toBe(400);
      expect(res.body.error).toMatchObject({ code: 'validation_failed', details: [{ field: 'records' }] });
    }
    const tooMany = await post(
      api,
      bulk.carrier,
      Array.from({ length: 1001 }, () => ({})),
    );
    expect(tooMany.status).toBe(400);
    const big = await post(api, bulk.carrier, [carrierBody(tenant, { notes: 'x'.repeat(5 * 1024 * 1024) })]);
    expect(big.status).toBe(413);
    expect(big.body.error.message).toBe('The body is larger than 5242880 bytes; split the records over several requests (at most 1000 records each).');
    const invalid = await testApp.fetch(bulk.carrier, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': tenant.apiKey },
      body: '{"records": [',
    });
    expect(invalid.status).toBe(400);
    expect((await invalid.json()).error.code).toBe('invalid_json');
    // A body over the single routes' 1 MiB is fine in bulk.
    const records = Array.from({ length: 20 }, () => carrierBody(tenant, { notes: 'y'.repeat(60_000) }));
    expect((await post(api, bulk.carrier, records)).body.results.every((r: { status: string }) => r.status === 'processed')).toBe(true);
  });

  test('unknown fields are listed per record and kept in extra; sync_run_time in the body gets a hint', async ({ api, tenant, testApp }) => {
    const body = loadBody(tenant, { custmer_reference: 'X1', sync_run_time: '2026-03-01T10:00:00Z' });
    const [result] = (await post(api, bulk.load, [body])).body.results;
    expect(result.unknown_fields).toEqual(['custmer_reference', 'sync_run_time']);
    expect(result.message).toMatch(/sync_run_time.*query parameter/);
    const single = await api.post(routes.load, loadBody(tenant, { custmer_reference: 'X2' }));
    expect(single.body.unknown_fields).toEqual(['custmer_reference']);
    expect(single.body.message).not.toMatch(/query parameter/);
    const stored = await testApp.database.db.prisma.load.findFirstOrThrow({ where: { permalink: body.native_system_load_permalink as string } });
    expect(stored.extra).toEqual({ custmer_reference: 'X1', sync_run_time: '2026-03-01T10:00:00Z' });
  });

  test('ingest health counts each record of a batch, by outcome', async ({ api, tenant, testApp }) => {
    const stored = await seed(api, routes.carrier, carrierBody(tenant));
    await post(api, bulk.carrier, [carrierBody(tenant), stored, { bad: true }], '', { 'Service-Ingest-Source': 'pull' });
    await testApp.app.services.recorder.flush();
    const counts = await testApp.database.db.prisma.ingestCount.findMany({ where: { tenantId: tenant.id, source: 'pull', kind: 'carrier' } });
    const byOutcome = Object.fromEntries(counts.map((c) => [c.outcome, c.count]));
    expect(byOutcome).toEqual({ processed: 2, rejected: 1 });
  });
});

describe('bulk writes racing single upserts', () => {
  test('a batch racing single upserts of the same permalinks: no duplicates, the freshest sync_run_time wins', async ({ api, tenant, testApp }) => {
    const bodies = Array.from({ length: 40 }, () => loadBody(tenant));
    const batch = post(
      api,
      bulk.load,
      bodies.map((b) => ({ ...b, bol_number: 'BATCH' })),
      '?sync_run_time=2026-03-01T10:00:00Z',
    );
    const singles = bodies.map((b) => api.post(`${routes.load}?sync_run_time=2026-03-01T11:00:00Z`, { ...b, bol_number: 'SINGLE' }));
    const [batchResult, ...singleResults] = await Promise.all([batch, ...singles]);
    expect(batchResult.status).toBe(200);
    expect(singleResults.every((r) => r.status === 200 && r.body.status === 'processed')).toBe(true);
    const stored = await testApp.database.db.prisma.load.findMany({ where: { tenantId: tenant.id } });
    expect(stored).toHaveLength(40);
    // The single upserts carry the fresher time: whatever the interleaving, their data is kept.
    expect(stored.every((load) => load.bolNumber === 'SINGLE')).toBe(true);
  });
});

describe('bulk writes racing each other', () => {
  // A load update moves its load's last_activity_at, so a batch locks the loads its records belong to.
  // Two batches whose permalinks sort their loads in opposite orders locked them in opposite orders and
  // deadlocked on PostgreSQL (PostgreSQL aborted one: a 503). Rows are now written in parent order.
  test('two batches of load updates touching the same loads in opposite permalink orders both succeed', async ({ api, tenant, testApp }) => {
    const loads = await Promise.all(Array.from({ length: 30 }, () => seed(api, routes.load, loadBody(tenant))));
    const batch = (round: number, side: string, order: typeof loads) =>
      order.map((load, i) =>
        loadUpdateBody(tenant, load, { native_system_load_update_permalink: `R${round}-${side}-${String(i).padStart(2, '0')}-${tenant.slug}` }),
      );
    for (let round = 0; round < 3; round += 1) {
      const answers = await Promise.all([
        post(api, bulk.load_update, batch(round, 'A', loads)),
        post(api, bulk.load_update, batch(round, 'B', [...loads].reverse())),
      ]);
      for (const answer of answers) {
        expect(answer.status, JSON.stringify(answer.body).slice(0, 300)).toBe(200);
        expect(answer.body.results.every((r: { status: string }) => r.status === 'processed')).toBe(true);
      }
    }
    expect(await testApp.database.db.prisma.loadUpdate.count({ where: { tenantId: tenant.id } })).toBe(3 * 2 * 30);
  });

  // Loads are written in permalink order; their legs and stops lock the same loads (last_activity_at).
  // Legs written in load-id order and stops in leg order took those locks in other orders than the
  // loads batch and deadlocked with it (npm run bench). Every kind now writes in load-permalink order.
  test('batches of loads, of their legs and of their stops racing each other all succeed', async ({ api, tenant, testApp }) => {
    const loads = Array.from({ length: 40 }, () => loadBody(tenant));
    const legs = loads.map((load) => loadLegBody(tenant, load));
    const stops = legs.map((leg) => stopBody(tenant, leg));
    for (const [route, records] of [
      [bulk.load, loads],
      [bulk.load_leg, legs],
      [bulk.stop, stops],
    ] as const) {
      expect((await post(api, route, records)).status).toBe(200);
    }
    for (let round = 0; round < 3; round += 1) {
      const answers = await Promise.all([
        post(
          api,
          bulk.load,
          loads.map((load) => ({ ...load, bol_number: `BOL-${round}` })),
        ),
        post(
          api,
          bulk.load_leg,
          [...legs].reverse().map((leg) => ({ ...leg, driver_name: `Driver ${round}` })),
        ),
        post(
          api,
          bulk.stop,
          stops.map((stop) => ({ ...stop, location_name: `Dock ${round}` })),
        ),
        post(
          api,
          bulk.load_leg,
          legs.map((leg) => ({ ...leg, truck_number: `T-${round}` })),
        ),
      ]);
      for (const answer of answers) {
        expect(answer.status, JSON.stringify(answer.body).slice(0, 300)).toBe(200);
        expect(answer.body.results.every((r: { status: string }) => r.status === 'processed')).toBe(true);
      }
    }
    expect(await testApp.database.db.prisma.stop.count({ where: { tenantId: tenant.id, locationName: 'Dock 2' } })).toBe(40);
  });
});
