/**
 * Data quality (api-contract.md F): field coverage counted from the writes' log entries by the
 * tenant's pass (every accepted record, single and bulk, REST and GraphQL; not dry runs, not
 * rejections; an entry whose pass never ran counted by the next read), per source and hour, kept as
 * long as ingest health's counts; the findings; `dataQuality` for the tenant and admin keys; the metric.
 * Expected numbers are stated from the bodies sent (present: a value that is not absent, null or blank).
 */
import { describe, expect, testWith } from '../../fixtures.js';
import { carrierBody, loadBody, loadLegBody, loadUpdateBody, routes, seed, stopBody } from '../../factories/records.js';
import { gqlData, toInput, upsertMutations } from '../../factories/graphql.js';
import { apiFor, type Api, type TestApp } from '../../helpers/app.js';
import { withClockAhead } from '../../helpers/clock.js';
import { recordSpecOf } from '../../../src/domain/registry.js';
import { countedFields } from '../../../src/domain/declaration/record.js';
import { eventMaintenanceOf } from '../../helpers/maintenance.js';

const adminKey = 'data-quality-admin-key-0123456789abcdef01234';
const test = testWith({ env: { ADMIN_API_KEY: adminKey } });

const query = /* GraphQL */ `
  query ($since: DateTime, $source: IngestSource) {
    dataQuality(since: $since, source: $source) {
      since
      kinds { kind records writes fields { field feeds present missing ratio recordsMissing missingExamples(first: 10) } }
      findings { code kind count message examples(first: 10) }
    }
  }
`;

interface Field {
  field: string;
  feeds: string;
  present: number;
  missing: number;
  ratio: number | null;
  recordsMissing: number;
  missingExamples: string[];
}
interface Quality {
  since: string;
  kinds: { kind: string; records: number; writes: number; fields: Field[] }[];
  findings: { code: string; kind: string; count: number; message: string; examples: string[] }[];
}

async function quality(api: Api, variables: Record<string, unknown> = {}, headers?: Record<string, string>): Promise<Quality> {
  return (await gqlData(api, query, variables, headers)).dataQuality;
}
const kindOf = (q: Quality, kind: string) => q.kinds.find((k) => k.kind === kind)!;
const fieldOf = (q: Quality, kind: string, field: string) => kindOf(q, kind).fields.find((f) => f.field === field)!;
const findingOf = (q: Quality, code: string) => q.findings.find((f) => f.code === code)!;

const bulkPath = (kind: keyof typeof routes) => routes[kind].replace(/\/(upsert|create)$/, '/bulk_$1');

/** Rows of the tenant in field_coverage (one per hour, kind, source and field list), once the tenant's pass has run. */
async function coverageRows(testApp: TestApp, tenantId: string) {
  await testApp.app.services.sequencer.sequence(tenantId);
  return testApp.database.db.sql.query<{ kind: string; source: string; hour: Date; records: number; present: number[]; fields: string[] }>(
    'SELECT kind, source, hour, records, present, fields FROM field_coverage WHERE tenant_id = $1 ORDER BY id',
    [tenantId],
  );
}

describe('field coverage', () => {
  test('counts every accepted record (processed, skipped, duplicate) of single and bulk writes, REST and GraphQL; not dry runs, not rejections', async ({
    testApp,
    api,
    tenant,
  }) => {
    // REST single: bol blank, po null, customer reference absent, order type present.
    const blanks = loadBody(tenant, { bol_number: '   ', po_number: null, order_type: 'FTL' });
    delete blanks.native_system_customer_reference_number;
    await seed(api, routes.load, blanks);
    // The same load sent stale: skipped, and counted (it carries the same fields).
    const stale = await api.post(`${routes.load}?sync_run_time=2000-01-01T00:00:00Z`, blanks);
    expect(stale.body.status).toBe('skipped');
    // REST bulk: two full loads and one rejected (a BOL longer than 250 characters).
    const full = [loadBody(tenant, { order_type: 'LTL' }), loadBody(tenant, { order_type: 'LTL' })];
    const rejected = loadBody(tenant, { bol_number: 'x'.repeat(300) });
    const bulk = await api.post(bulkPath('load'), { records: [...full, rejected] });
    expect(bulk.body.results.map((r: { status?: string; error?: { code: string } }) => r.status ?? r.error?.code)).toEqual([
      'processed',
      'processed',
      'validation_failed',
    ]);
    // GraphQL single and bulk: bol present, order type absent.
    const viaGraphql = loadBody(tenant);
    await gqlData(api, upsertMutations.load, { input: toInput(viaGraphql) });
    const viaGraphqlBulk = loadBody(tenant);
    await gqlData(api, 'mutation ($inputs: [LoadInput!]!) { bulkUpsertLoads(inputs: $inputs) { status } }', { inputs: [toInput(viaGraphqlBulk)] });
    // A dry run (REST and GraphQL) counts nothing.
    const dry = await api.post(`${routes.load}?dry_run=true`, loadBody(tenant, { bol_number: null }));
    expect(dry.status).toBe(200);
    await gqlData(api, 'mutation ($input: LoadInput!) { upsertLoad(input: $input, dryRun: true) { status } }', { input: toInput(loadBody(tenant)) });

    // 6 accepted writes of 5 loads: blanks twice (processed, skipped), 2 full, 2 via GraphQL.
    const q = await quality(api);
    expect(kindOf(q, 'LOAD')).toMatchObject({ records: 5, writes: 6 });
    expect(fieldOf(q, 'LOAD', 'bol_number')).toMatchObject({ recordsMissing: 1, missingExamples: [blanks.native_system_load_permalink] });
    expect(fieldOf(q, 'LOAD', 'bol_number')).toMatchObject({ present: 4, missing: 2, ratio: 4 / 6 });
    expect(fieldOf(q, 'LOAD', 'po_number')).toMatchObject({ present: 4, missing: 2 });
    expect(fieldOf(q, 'LOAD', 'native_system_customer_reference_number')).toMatchObject({ present: 4, missing: 2 });
    expect(fieldOf(q, 'LOAD', 'order_type')).toMatchObject({ present: 4, missing: 2 });
    // The tenant's pass added the six writes' log entries into one row per hour, kind and source.
    const rows = await coverageRows(testApp, tenant.id);
    expect(rows.reduce((sum, row) => sum + row.records, 0)).toBe(6);
    expect(new Set(rows.map((row) => `${row.kind}|${row.source}|${row.hour.toISOString()}`)).size).toBe(rows.length);
  });

  test('counts duplicates of append-only updates, never a record refused for a missing parent', async ({ testApp, api, tenant }) => {
    const load = await seed(api, routes.load, loadBody(tenant));
    const update = loadUpdateBody(tenant, load, { city: 'Chicago' });
    await seed(api, routes.load_update, update);
    expect((await api.post(routes.load_update, update)).body.status).toBe('duplicate');
    const orphan = loadLegBody(tenant, { native_system_load_id: 'NOPE', native_system_load_permalink: `NOPE-${tenant.slug}` });
    expect((await api.post(routes.load_leg, orphan)).body.error.code).toBe('parent_not_found');

    const q = await quality(api);
    expect(kindOf(q, 'LOAD_UPDATE')).toMatchObject({ records: 1, writes: 2 });
    expect(fieldOf(q, 'LOAD_UPDATE', 'city')).toMatchObject({ present: 2, missing: 0, ratio: 1 });
    expect(fieldOf(q, 'LOAD_UPDATE', 'latitude')).toMatchObject({ present: 0, missing: 2, ratio: 0 });
    expect(kindOf(q, 'LOAD_LEG')).toMatchObject({ records: 0, writes: 0 });
    expect((await coverageRows(testApp, tenant.id)).map((row) => [row.kind, row.records])).toEqual([
      ['load', 1],
      ['load_update', 2],
    ]);
  });

  test('ratio is null when nothing was counted; every recommended field names what it feeds', async ({ api }) => {
    const q = await quality(api);
    for (const kind of q.kinds) {
      expect(kind).toMatchObject({ records: 0, writes: 0 });
      for (const field of kind.fields) {
        expect(field).toMatchObject({ present: 0, missing: 0, ratio: null, recordsMissing: 0, missingExamples: [] });
        expect(field.feeds.length).toBeGreaterThan(10);
      }
    }
    expect(fieldOf(q, 'STOP', 'city').feeds).toMatch(/city filter/);
    expect(fieldOf(q, 'LOAD_LEG', 'native_system_load_unique_key').feeds).toMatch(/View in TMS/);
  });

  test('the source argument counts one ingest source only (its writes; the records are every source)', async ({ api, tenant }) => {
    await api.post(routes.carrier, carrierBody(tenant, { mc_number: null }), { 'service-ingest-source': 'pull' });
    await api.post(routes.carrier, carrierBody(tenant), { 'service-ingest-source': 'webhook' });
    await api.post(routes.carrier, carrierBody(tenant), { 'service-ingest-source': 'webhook' });
    expect(fieldOf(await quality(api, { source: 'PULL' }), 'CARRIER', 'mc_number')).toMatchObject({ present: 0, missing: 1 });
    expect(fieldOf(await quality(api, { source: 'WEBHOOK' }), 'CARRIER', 'mc_number')).toMatchObject({ present: 2, missing: 0 });
    expect(fieldOf(await quality(api), 'CARRIER', 'mc_number')).toMatchObject({ present: 2, missing: 1 });
    expect(kindOf(await quality(api, { source: 'UNSPECIFIED' }), 'CARRIER')).toMatchObject({ records: 3, writes: 0 });
  });

  test('since defaults to 24 hours ago: an hour counted 23 hours ago is read, one 25 hours ago is not', async ({ testApp, api, tenant }) => {
    await seed(api, routes.carrier, carrierBody(tenant));
    const records = (q: Quality) => kindOf(q, 'CARRIER').records;
    await withClockAhead(testApp.clock, 23 * 3_600_000, async (now) => {
      const q = await quality(api);
      expect(Date.parse(q.since)).toBeGreaterThanOrEqual(now - 24 * 3_600_000);
      expect(Date.parse(q.since)).toBeLessThanOrEqual(testApp.clock.now().getTime() - 24 * 3_600_000);
      expect(records(q)).toBe(1);
    });
    await withClockAhead(testApp.clock, 25 * 3_600_000, async () => expect(records(await quality(api))).toBe(0));
    // An explicit since after the write's hour reads nothing.
    expect(records(await quality(api, { since: new Date(Date.now() + 2 * 3_600_000).toISOString() }))).toBe(0);
  });

  test('records count each record once by its latest write; writes count every accepted write (issue 37: "409 records" for 206 loads)', async ({
    api,
    tenant,
  }) => {
    // Fixed by its second post: two writes, one lacking bol_number; the record holds it now.
    const fixed = loadBody(tenant, { bol_number: null });
    await seed(api, routes.load, fixed);
    await seed(api, routes.load, { ...fixed, bol_number: 'BOL-1' });
    // Re-posted stale: skipped, so the record keeps what its latest write stored (no bol_number).
    const stale = loadBody(tenant, { bol_number: null });
    await seed(api, routes.load, stale);
    for (let i = 0; i < 3; i++) expect((await api.post(`${routes.load}?sync_run_time=2000-01-01T00:00:00Z`, stale)).body.status).toBe('skipped');
    await seed(api, routes.load, loadBody(tenant));
    const q = await quality(api);
    expect(kindOf(q, 'LOAD')).toMatchObject({ records: 3, writes: 7 });
    const bol = fieldOf(q, 'LOAD', 'bol_number');
    expect(bol).toMatchObject({ present: 2, missing: 5, recordsMissing: 1, missingExamples: [stale.native_system_load_permalink] });
    // A deleted record is no longer one to fix.
    expect((await api.post('/api/v1/loads/delete', { native_system_load_permalink: stale.native_system_load_permalink })).status).toBe(200);
    expect(fieldOf(await quality(api), 'LOAD', 'bol_number')).toMatchObject({ recordsMissing: 0, missingExamples: [] });
  });

  test('missingExamples: the newest records of the window lacking the field', async ({ api, tenant }) => {
    const first = await seed(api, routes.load, loadBody(tenant, { bol_number: '' }));
    const second = await seed(api, routes.load, loadBody(tenant, { bol_number: null }));
    await seed(api, routes.load, loadBody(tenant));
    const q = await quality(api);
    expect(fieldOf(q, 'LOAD', 'bol_number').missingExamples).toEqual([second.native_system_load_permalink, first.native_system_load_permalink]);
    expect(fieldOf(q, 'LOAD', 'po_number').missingExamples).toEqual([]);
    const one = await gqlData(api, '{ dataQuality { kinds { kind fields { field missingExamples(first: 1) } } } }');
    const bol = one.dataQuality.kinds.find((k: { kind: string }) => k.kind === 'LOAD').fields.find((f: { field: string }) => f.field === 'bol_number');
    expect(bol.missingExamples).toEqual([second.native_system_load_permalink]);
  });

  test("the tenant's pass adds each write into its hour's one row; maintenance drops hours past ingest health retention", async ({ testApp, api, tenant }) => {
    for (let i = 0; i < 3; i++) await seed(api, routes.carrier, carrierBody(tenant, { dot_number: i ? `D${i}` : null }));
    const window = { since: new Date(Date.now() - 3_600_000).toISOString() };
    const before = await quality(api, window);
    const rows = await coverageRows(testApp, tenant.id);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ records: 3, present: [3, 3, 2] });
    const maintenance = eventMaintenanceOf(testApp, { retentionMs: 7 * 86_400_000 });
    await maintenance.runOnce();
    expect(await coverageRows(testApp, tenant.id)).toEqual(rows);
    expect(await quality(api, window)).toEqual(before);
    await withClockAhead(testApp.clock, 24 * 3_600_000 + 5 * 60_000 + 3_600_000, () => maintenance.runOnce());
    expect(await coverageRows(testApp, tenant.id)).toHaveLength(0);
  });

  test('a log entry committed without its pass (an instance killed between the two) is counted by the next read, once', async ({ testApp, api, tenant }) => {
    await seed(api, routes.carrier, carrierBody(tenant));
    await coverageRows(testApp, tenant.id);
    const fields = countedFields(recordSpecOf.carrier);
    // What a write statement's log entry holds (db/payload-history.ts), committed by a transaction of its own and no
    // pass after it; on the tenant's node, as a write's (on Citus the entry's `xid` is that node's: decision 0054).
    await testApp.database.db.tenantSql(tenant.id).query(
      `INSERT INTO payload_history (seq, tenant_id, kind, permalink, received_at, source, outcome, changed, body, coverage, xid)
       VALUES (nextval('payload_history_seq_seq'), $1::uuid, 'carrier', $2::text, now(), 'pull', 'processed', true, '{}', $3::varbit, pg_current_xact_id())`,
      [tenant.id, `KILLED-${tenant.slug}`, fields.map((_, i) => (i ? '1' : '0')).join('')],
    );
    const window = { since: new Date(Date.now() - 3_600_000).toISOString() };
    const q = await quality(api, window);
    expect(kindOf(q, 'CARRIER').writes).toBe(2);
    expect(fieldOf(q, 'CARRIER', fields[0]!)).toMatchObject({ present: 1, missing: 1 });
    expect(fieldOf(q, 'CARRIER', fields[1]!)).toMatchObject({ present: 2, missing: 0 });
    expect(await quality(api, window)).toEqual(q);
  });

  test("a pass on another node than its cursor's (Citus: the tenant's shards moved) starts from its own snapshot: later writes count, none twice", async ({
    testApp,
    api,
    tenant,
  }) => {
    await seed(api, routes.carrier, carrierBody(tenant));
    expect(await coverageRows(testApp, tenant.id)).toMatchObject([{ records: 1 }]);
    // The cursor of a tenant whose shards were on another node: that node's id and a snapshot of its transaction ids,
    // here far ahead of this node's (judged by it, none of this node's entries would ever be new).
    await testApp.database.db
      .tenantSql(tenant.id)
      .query(`UPDATE load_event_cursors SET derived_on = 1, derived_through = '4000000000:4000000000:'::pg_snapshot WHERE tenant_id = $1::uuid`, [tenant.id]);
    expect(await coverageRows(testApp, tenant.id)).toMatchObject([{ records: 1 }]);
    await seed(api, routes.carrier, carrierBody(tenant));
    await seed(api, routes.carrier, carrierBody(tenant));
    expect(await coverageRows(testApp, tenant.id)).toMatchObject([{ records: 3 }]);
  });
});

describe('field coverage under concurrency', () => {
  test("a tenant's concurrent writes and two maintenance sweeps running meanwhile (their passes too) count every record once", async ({
    testApp,
    api,
    tenant,
  }) => {
    const batches = Array.from({ length: 12 }, (_, b) => Array.from({ length: 10 }, (_, i) => loadBody(tenant, (b + i) % 3 ? {} : { bol_number: null })));
    const missing = batches.flat().filter((load) => load.bol_number === null).length;
    const maintenance = eventMaintenanceOf(testApp, { retentionMs: 7 * 86_400_000 });
    const answers = await Promise.all([
      ...batches.map((records) => api.post(bulkPath('load'), { records })),
      maintenance.runOnce().then(() => null),
      maintenance.runOnce().then(() => null),
    ]);
    for (const answer of answers) if (answer) expect(answer.status).toBe(200);
    await Promise.all([maintenance.runOnce(), maintenance.runOnce()]);
    expect(await coverageRows(testApp, tenant.id)).toHaveLength(1);
    expect(fieldOf(await quality(api), 'LOAD', 'bol_number')).toMatchObject({ present: 120 - missing, missing });
  });
});

describe('findings', () => {
  test('load_without_legs: a load with no live leg 15 minutes after its creation', async ({ testApp, api, tenant }) => {
    const lonely = await seed(api, routes.load, loadBody(tenant));
    const withLeg = await seed(api, routes.load, loadBody(tenant));
    await seed(api, routes.load_leg, loadLegBody(tenant, withLeg));
    expect(findingOf(await quality(api), 'load_without_legs')).toMatchObject({ count: 0, examples: [] });
    await withClockAhead(testApp.clock, 16 * 60_000, async () => {
      const finding = findingOf(await quality(api), 'load_without_legs');
      expect(finding).toMatchObject({ kind: 'LOAD', count: 1, examples: [lonely.native_system_load_permalink] });
      expect(finding.message).toMatch(/^1 load has no live leg/);
    });
  });

  test('leg_sequence_gap: live legs whose sequences are not 1..n', async ({ api, tenant }) => {
    const gap = await seed(api, routes.load, loadBody(tenant));
    const fine = await seed(api, routes.load, loadBody(tenant));
    const repeat = await seed(api, routes.load, loadBody(tenant));
    for (const sequence of [1, 3]) await seed(api, routes.load_leg, loadLegBody(tenant, gap, { load_leg_sequence: sequence }));
    for (const sequence of [2, 1]) await seed(api, routes.load_leg, loadLegBody(tenant, fine, { load_leg_sequence: sequence }));
    for (const sequence of [1, 1]) await seed(api, routes.load_leg, loadLegBody(tenant, repeat, { load_leg_sequence: sequence }));
    const finding = findingOf(await quality(api), 'leg_sequence_gap');
    expect(finding.count).toBe(2);
    expect(finding.examples).toEqual([repeat.native_system_load_permalink, gap.native_system_load_permalink]);
  });

  test('stop_without_appointment: a stop with neither appointment time', async ({ api, tenant }) => {
    const load = await seed(api, routes.load, loadBody(tenant));
    const leg = await seed(api, routes.load_leg, loadLegBody(tenant, load));
    const bare = await seed(api, routes.stop, stopBody(tenant, leg));
    await seed(api, routes.stop, stopBody(tenant, leg, { stop_sequence: 2, appointment_start: '2026-11-23T08:00:00Z' }));
    await seed(api, routes.stop, stopBody(tenant, leg, { stop_sequence: 3, appointment_end: '2026-11-23T08:00:00Z' }));
    expect(findingOf(await quality(api), 'stop_without_appointment')).toMatchObject({ kind: 'STOP', count: 1, examples: [bare.native_system_stop_permalink] });
  });

  test('update_without_position and update_in_future', async ({ testApp, api, tenant }) => {
    const load = await seed(api, routes.load, loadBody(tenant));
    const nowhere = await seed(api, routes.load_update, loadUpdateBody(tenant, load, { city: ' ' }));
    await seed(api, routes.load_update, loadUpdateBody(tenant, load, { city: 'Chicago' }));
    await seed(api, routes.load_update, loadUpdateBody(tenant, load, { update_type: 'gps_ping', latitude: 41.8, longitude: -87.6 }));
    await seed(api, routes.load_update, loadUpdateBody(tenant, load, { latitude: 41.8 }));
    const now = testApp.clock.now().getTime();
    const future = await seed(api, routes.load_update, loadUpdateBody(tenant, load, { city: 'Gary', occurred_at: new Date(now + 60 * 60_000).toISOString() }));
    await seed(api, routes.load_update, loadUpdateBody(tenant, load, { city: 'Gary', occurred_at: new Date(now + 5 * 60_000).toISOString() }));
    const q = await quality(api);
    const without = findingOf(q, 'update_without_position');
    expect(without).toMatchObject({ kind: 'LOAD_UPDATE', count: 2 });
    expect(without.examples).toContain(nowhere.native_system_load_update_permalink);
    expect(findingOf(q, 'update_in_future')).toMatchObject({ kind: 'LOAD_UPDATE', count: 1, examples: [future.native_system_load_update_permalink] });
  });

  test("unmapped_status: ingest health's report of statuses without a phase mapping", async ({ testApp, api, tenant }) => {
    const odd = await seed(api, routes.load, loadBody(tenant, { native_system_load_status: 'Odd status' }));
    await seed(api, routes.load, loadBody(tenant, { native_system_load_status: 'odd STATUS ' }));
    const mapped = await seed(api, routes.load, loadBody(tenant, { native_system_load_status: 'Booked' }));
    await gqlData(api, 'mutation { setStatusMapping(status: "Booked", phase: COVERED) { status } }');
    await testApp.app.services.recorder.flush();
    const health = await gqlData(api, '{ ingestHealth { unmappedStatusCounts { status loadCount } } }');
    const finding = findingOf(await quality(api), 'unmapped_status');
    expect(finding.count).toBe(health.ingestHealth.unmappedStatusCounts.reduce((sum: number, s: { loadCount: number }) => sum + s.loadCount, 0));
    expect(finding.count).toBe(2);
    expect(finding.examples).toContain(odd.native_system_load_permalink);
    expect(finding.examples).not.toContain(mapped.native_system_load_permalink);
    expect(finding.message).toContain('Odd status');
  });

  test('every code is answered, in a fixed order, with `first` bounding the examples', async ({ api, tenant }) => {
    for (let i = 0; i < 3; i++) await seed(api, routes.load, loadBody(tenant, { native_system_load_status: 'Nowhere' }));
    const q = await gqlData(api, '{ dataQuality { findings { code examples(first: 2) } } }');
    expect(q.dataQuality.findings.map((f: { code: string }) => f.code)).toEqual([
      'load_without_legs',
      'leg_sequence_gap',
      'stop_without_appointment',
      'update_without_position',
      'update_in_future',
      'unmapped_status',
    ]);
    expect(q.dataQuality.findings.at(-1).examples).toHaveLength(2);
    const tooMany = await api.graphql('{ dataQuality { findings { examples(first: 51) } } }');
    expect(tooMany.body.errors[0].extensions.code).toBe('validation_failed');
  });
});

describe('tenancy and the metric', () => {
  test("the admin key reads a tenant's data quality with X-Tenant; another tenant sees none of it", async ({ testApp, api, tenant, otherApi }) => {
    await seed(api, routes.load, loadBody(tenant, { bol_number: null, native_system_load_status: 'Mine only' }));
    const window = { since: new Date(Date.now() - 3_600_000).toISOString() };
    const own = await quality(api, window);
    expect(kindOf(own, 'LOAD').records).toBe(1);
    const admin = apiFor(testApp, adminKey);
    expect(await quality(admin, window, { 'x-tenant': tenant.slug })).toEqual(own);
    const noTenant = await admin.graphql(query);
    expect(noTenant.body.errors[0].extensions).toMatchObject({ code: 'validation_failed', details: [{ field: 'X-Tenant' }] });
    const other = await quality(otherApi);
    expect(kindOf(other, 'LOAD').records).toBe(0);
    expect(JSON.stringify(other)).not.toContain(tenant.slug);
  });

  test('ingest_recommended_field_missing_total counts accepted records missing a field, by tenant, source, kind and field', async ({
    testApp,
    api,
    tenant,
  }) => {
    const line = async (field: string) => {
      const text = await (await testApp.fetch('/metrics')).text();
      const match = new RegExp(
        `^ingest_recommended_field_missing_total\\{tenant="${tenant.slug}",source="pull",kind="load",field="${field}"\\} (\\d+)$`,
        'm',
      ).exec(text);
      return match ? Number(match[1]) : 0;
    };
    const pull = { 'service-ingest-source': 'pull' };
    const blank = loadBody(tenant, { bol_number: '' });
    await api.post(routes.load, blank, pull);
    await api.post(`${routes.load}?sync_run_time=2000-01-01T00:00:00Z`, blank, pull); // skipped: counted
    await api.post(`${routes.load}?dry_run=true`, loadBody(tenant, { bol_number: null }), pull); // dry run: not counted
    await api.post(routes.load, loadBody(tenant, { bol_number: null, po_number: 'x'.repeat(1001) }), pull); // rejected: not counted
    await api.post(bulkPath('load'), { records: [loadBody(tenant, { bol_number: null }), loadBody(tenant)] }, pull);
    expect(await line('bol_number')).toBe(3);
    expect(await line('po_number')).toBe(0);
  });
});
