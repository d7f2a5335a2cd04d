import { describe, expect, test } from '../../fixtures.js';
import { carrierBody, loadBody, loadUpdateBody, routes, seed } from '../../factories/records.js';
import type { Api } from '../../helpers/app.js';
import { setStatusMapping } from '../../../src/domain/status-mapping/service.js';

const healthQuery = /* GraphQL */ `
  query Health {
    ingestHealth {
      sources {
        source
        state
        lastReceivedAt
        staleAfterSeconds
        lastHour { processed skipped duplicate rejected }
        lastDay { processed skipped duplicate rejected }
        byKind { kind lastHour { processed skipped duplicate rejected } lastDay { processed skipped duplicate rejected } }
      }
      unmappedStatuses
      unmappedStatusCounts { status loadCount }
      recentRejections { code message field permalink source kind at }
    }
  }
`;

interface Counts {
  processed: number;
  skipped: number;
  duplicate: number;
  rejected: number;
}
interface SourceHealth {
  source: string;
  state: string;
  lastReceivedAt: string | null;
  staleAfterSeconds: number;
  lastHour: Counts;
  lastDay: Counts;
  byKind: { kind: string; lastHour: Counts; lastDay: Counts }[];
}

async function readHealth(api: Api) {
  const res = await api.graphql(healthQuery);
  expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
  const health = res.body.data.ingestHealth;
  const source = (name: string): SourceHealth => health.sources.find((s: SourceHealth) => s.source === name);
  return { ...health, source } as {
    sources: SourceHealth[];
    source: (name: string) => SourceHealth;
    unmappedStatuses: string[];
    unmappedStatusCounts: { status: string; loadCount: number }[];
    recentRejections: { code: string; message: string; field: string | null; permalink: string | null; source: string; kind: string; at: string }[];
  };
}

const counts = (processed: number, skipped: number, duplicate: number, rejected: number): Counts => ({ processed, skipped, duplicate, rejected });
const pull = { 'service-ingest-source': 'pull' };
const webhook = { 'service-ingest-source': 'Webhook ' };

describe('ingestHealth', () => {
  test('counts every outcome per source and kind after a known mix of requests', async ({ api, tenant }) => {
    // pull: 2 loads processed, 1 skipped (older sync_run_time), 1 rejected (permalink of another tenant)
    const load = loadBody(tenant);
    expect((await api.post(`${routes.load}?sync_run_time=2026-11-02T00:00:00Z`, load, pull)).body.status).toBe('processed');
    expect((await api.post(routes.load, loadBody(tenant), pull)).body.status).toBe('processed');
    expect((await api.post(`${routes.load}?sync_run_time=2026-11-01T00:00:00Z`, load, pull)).body.status).toBe('skipped');
    const foreign = loadBody(tenant, { native_system_load_permalink: 'L1-someone-else' });
    expect((await api.post(routes.load, foreign, pull)).status).toBe(400);
    // webhook: 1 load update processed, the same again duplicate, 1 rejected (unknown load)
    const update = loadUpdateBody(tenant, load);
    expect((await api.post(routes.load_update, update, webhook)).body.status).toBe('processed');
    expect((await api.post(routes.load_update, update, webhook)).body.status).toBe('duplicate');
    const orphan = loadUpdateBody(tenant, { native_system_load_permalink: `NOPE-${tenant.slug}` });
    expect((await api.post(routes.load_update, orphan, webhook)).status).toBe(422);
    // unspecified: 1 carrier processed
    await seed(api, routes.carrier, carrierBody(tenant));

    const health = await readHealth(api);
    expect(health.sources.map((s) => s.source)).toEqual(['PULL', 'WEBHOOK', 'UNSPECIFIED']);

    const p = health.source('PULL');
    expect(p).toMatchObject({ state: 'HEALTHY', lastHour: counts(2, 1, 0, 1), lastDay: counts(2, 1, 0, 1), staleAfterSeconds: 3600 });
    expect(p.byKind).toEqual([{ kind: 'LOAD', lastHour: counts(2, 1, 0, 1), lastDay: counts(2, 1, 0, 1) }]);
    expect(p.lastReceivedAt).not.toBeNull();

    const w = health.source('WEBHOOK');
    expect(w).toMatchObject({ state: 'HEALTHY', lastHour: counts(1, 0, 1, 1), lastDay: counts(1, 0, 1, 1), staleAfterSeconds: 86400 });
    expect(w.byKind).toEqual([{ kind: 'LOAD_UPDATE', lastHour: counts(1, 0, 1, 1), lastDay: counts(1, 0, 1, 1) }]);

    const u = health.source('UNSPECIFIED');
    expect(u).toMatchObject({ state: 'HEALTHY', lastHour: counts(1, 0, 0, 0) });
    expect(u.byKind.map((k) => k.kind)).toEqual(['CARRIER']);

    expect(health.recentRejections).toHaveLength(2);
    expect(health.recentRejections).toEqual(
      expect.arrayContaining([
        expect.objectContaining({
          code: 'validation_failed',
          field: 'native_system_load_permalink',
          permalink: 'L1-someone-else',
          source: 'PULL',
          kind: 'LOAD',
        }),
        expect.objectContaining({ code: 'parent_not_found', permalink: orphan.native_system_load_update_permalink, source: 'WEBHOOK', kind: 'LOAD_UPDATE' }),
      ]),
    );
    for (const r of health.recentRejections) expect(r.message.length).toBeGreaterThan(0);
  });

  test('another tenant sees none of these counts', async ({ api, otherApi, tenant }) => {
    await seed(api, routes.load, loadBody(tenant));
    await api.post(routes.load, {}, pull);
    const health = await readHealth(otherApi);
    for (const s of health.sources) {
      expect(s).toMatchObject({ state: 'NO_TRAFFIC', lastReceivedAt: null, lastHour: counts(0, 0, 0, 0), lastDay: counts(0, 0, 0, 0), byKind: [] });
    }
    expect(health.recentRejections).toEqual([]);
  });

  test('unused sources are NO_TRAFFIC while a used one is HEALTHY', async ({ api, tenant }) => {
    await seed(api, routes.carrier, carrierBody(tenant));
    const health = await readHealth(api);
    expect(health.sources.map((s) => [s.source, s.state])).toEqual([
      ['PULL', 'NO_TRAFFIC'],
      ['WEBHOOK', 'NO_TRAFFIC'],
      ['UNSPECIFIED', 'HEALTHY'],
    ]);
    expect(health.source('PULL').lastReceivedAt).toBeNull();
  });

  test('a rejection rate over the threshold turns a source DEGRADED, and it recovers once the hour has passed', async ({ api, tenant, testApp }) => {
    // webhook: 10 requests, 3 rejected (30% > 20%)
    for (let i = 0; i < 7; i++) await seed(api, routes.load, loadBody(tenant));
    for (let i = 0; i < 7; i++) expect((await api.post(routes.load, loadBody(tenant), webhook)).status).toBe(200);
    for (let i = 0; i < 3; i++) expect((await api.post(routes.load, { native_system_load_id: 'X' }, webhook)).status).toBe(400);
    // pull: 9 requests, all rejected: below the 10-request minimum, so not DEGRADED
    for (let i = 0; i < 9; i++) expect((await api.post(routes.load, { native_system_load_id: 'X' }, pull)).status).toBe(400);

    let health = await readHealth(api);
    expect(health.source('WEBHOOK')).toMatchObject({ state: 'DEGRADED', lastHour: counts(7, 0, 0, 3) });
    expect(health.source('PULL')).toMatchObject({ state: 'HEALTHY', lastHour: counts(0, 0, 0, 9) });
    expect(health.source('UNSPECIFIED')).toMatchObject({ state: 'HEALTHY', lastHour: counts(7, 0, 0, 0) });

    // one more rejection makes pull's sample large enough
    await api.post(routes.load, {}, pull);
    health = await readHealth(api);
    expect(health.source('PULL')).toMatchObject({ state: 'DEGRADED', lastHour: counts(0, 0, 0, 10) });

    // two hours later the rejections are out of the last hour (still in the last day); webhook is
    // within its 24 h interval again HEALTHY, pull (1 h interval) is STALE
    testApp.clock.advance(2 * 3_600_000);
    health = await readHealth(api);
    expect(health.source('WEBHOOK')).toMatchObject({ state: 'HEALTHY', lastHour: counts(0, 0, 0, 0), lastDay: counts(7, 0, 0, 3) });
    expect(health.source('PULL')).toMatchObject({ state: 'STALE', lastDay: counts(0, 0, 0, 10) });
  });

  test('a source turns STALE after the tenant interval of silence, and HEALTHY again with new traffic', async ({ api, tenant, testApp }) => {
    await testApp.database.db.prisma.tenant.update({ where: { id: tenant.id }, data: { pullStaleSeconds: 120 } });
    await api.post(routes.load, loadBody(tenant), pull);
    let health = await readHealth(api);
    expect(health.source('PULL')).toMatchObject({ state: 'HEALTHY', staleAfterSeconds: 120 });

    testApp.clock.advance(119_000);
    expect((await readHealth(api)).source('PULL').state).toBe('HEALTHY');
    testApp.clock.advance(2_000);
    health = await readHealth(api);
    expect(health.source('PULL')).toMatchObject({ state: 'STALE', lastHour: counts(1, 0, 0, 0) });
    expect(health.source('WEBHOOK').state).toBe('NO_TRAFFIC');

    await api.post(routes.load, loadBody(tenant), pull);
    expect((await readHealth(api)).source('PULL').state).toBe('HEALTHY');
  });

  test('keeps the 50 most recent rejections per tenant, in memory and in the database', async ({ api, tenant, testApp }) => {
    const post = async (i: number) => {
      testApp.clock.advance(1_000);
      const res = await api.post(routes.load, { native_system_load_permalink: `R${i}-${tenant.slug}` }, pull);
      expect(res.status).toBe(400);
    };
    for (let i = 0; i < 30; i++) await post(i);
    await testApp.app.services.recorder.flush();
    for (let i = 30; i < 60; i++) await post(i);

    const health = await readHealth(api);
    expect(health.recentRejections.map((r) => r.permalink)).toEqual(Array.from({ length: 50 }, (_, i) => `R${59 - i}-${tenant.slug}`));
    expect(health.source('PULL').lastHour.rejected).toBe(60);
    const stored = await testApp.database.db.prisma.ingestRejection.count({ where: { tenantId: tenant.id } });
    expect(stored).toBe(50);
  });

  test('lists the TMS statuses of loads without a phase mapping, with their load counts', async ({ api, tenant, testApp }) => {
    await seed(api, routes.load, loadBody(tenant, { native_system_load_status: 'Waiting on docs' }));
    await seed(api, routes.load, loadBody(tenant, { native_system_load_status: ' Waiting on docs  ' }));
    await seed(api, routes.load, loadBody(tenant, { native_system_load_status: 'waiting on DOCS' }));
    await seed(api, routes.load, loadBody(tenant, { native_system_load_status: 'Booked' }));
    await seed(api, routes.load, loadBody(tenant, { native_system_load_status: null }));

    let health = await readHealth(api);
    expect(health.unmappedStatusCounts).toEqual([
      { status: expect.stringMatching(/^waiting on docs$/i), loadCount: 3 },
      { status: 'Booked', loadCount: 1 },
    ]);
    expect(health.unmappedStatuses).toEqual(health.unmappedStatusCounts.map((u) => u.status));

    await setStatusMapping(testApp.database.db, tenant.id, 'booked', 'COVERED');
    health = await readHealth(api);
    expect(health.unmappedStatuses).toEqual([expect.stringMatching(/^waiting on docs$/i)]);
  });

  test('has the contract types: ingestHealth and every list, state and count non-null', async ({ api }) => {
    const res = await api.graphql(`{
      query: __type(name: "Query") { fields { name type { kind ofType { name } } } }
      health: __type(name: "IngestHealth") { fields { name type { kind } } }
      source: __type(name: "IngestSourceHealth") { fields { name type { kind } } }
      counts: __type(name: "OutcomeCounts") { fields { name type { kind } } }
    }`);
    const { query, health, source, counts } = res.body.data;
    expect(query.fields.find((f: { name: string }) => f.name === 'ingestHealth').type).toEqual({ kind: 'NON_NULL', ofType: { name: 'IngestHealth' } });
    const kinds = (type: { fields: { name: string; type: { kind: string } }[] }) => Object.fromEntries(type.fields.map((f) => [f.name, f.type.kind]));
    expect(kinds(health)).toEqual({
      sources: 'NON_NULL',
      unmappedStatuses: 'NON_NULL',
      unmappedStatusCounts: 'NON_NULL',
      recentRejections: 'NON_NULL',
      webhookEndpoints: 'NON_NULL',
    });
    expect(kinds(source)).toEqual({
      source: 'NON_NULL',
      state: 'NON_NULL',
      lastReceivedAt: 'SCALAR',
      staleAfterSeconds: 'NON_NULL',
      lastHour: 'NON_NULL',
      lastDay: 'NON_NULL',
      series: 'NON_NULL',
      byKind: 'NON_NULL',
      dryRun: 'NON_NULL',
    });
    expect(Object.values(kinds(counts))).toEqual(['NON_NULL', 'NON_NULL', 'NON_NULL', 'NON_NULL']);
  });

  test('answers 401 without an API key', async ({ testApp }) => {
    const res = await testApp.fetch('/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: healthQuery }),
    });
    expect(res.status).toBe(401);
  });
});
