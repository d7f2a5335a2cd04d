/**
 * Deletes (tombstones), api-contract.md E: the REST routes (single and bulk, every deletable kind),
 * the GraphQL mutations, idempotent answers, the cascade, revival by upsert, deleted parents as absent
 * parents, `sync_run_time`, tenancy and ingest accounting.
 */
import { recordSpecOf, recordSpecs, type RecordKind } from '../../../src/domain/registry.js';
import { actionsOf, bulkRestPath, mutationName, restPath } from '../../../src/domain/declaration/record.js';
import { carrierBody, loadBody, loadLegBody, loadUpdateBody, routes, seed, seedLoadTree, stopBody } from '../../factories/records.js';
import { gqlData, gqlError, readBack } from '../../factories/graphql.js';
import { describe, expect, test } from '../../fixtures.js';
import type { Api } from '../../helpers/app.js';

type Body = Record<string, unknown>;
type Tenant = { slug: string };

const deletable = recordSpecs.filter((spec) => actionsOf(spec).includes('delete'));
const deleteRoute = Object.fromEntries(deletable.map((spec) => [spec.kind, restPath(spec, 'delete')])) as Record<string, string>;
const bulkDeleteRoute = Object.fromEntries(deletable.map((spec) => [spec.kind, bulkRestPath(spec, 'delete')])) as Record<string, string>;

/** A stored record of each deletable kind (with the parents it needs). */
async function seedOne(api: Api, tenant: Tenant, kind: RecordKind): Promise<Body> {
  const { carrier, load, leg, stop } = await seedLoadTree(api, tenant);
  return { carrier, load, load_leg: leg, stop }[kind as 'carrier'];
}

const permalinkOf = (kind: RecordKind, body: Body) => body[recordSpecs.find((s) => s.kind === kind)!.permalinkField] as string;
const deleteBody = (kind: RecordKind, permalink: string): Body => ({ [recordSpecs.find((s) => s.kind === kind)!.permalinkField]: permalink });

/** A record's tombstone as read back over GraphQL (`includeDeleted`): a Date, null while it lives, undefined when none is stored. */
async function storedDeletedAt(api: Api, kind: RecordKind, permalink: string): Promise<Date | null | undefined> {
  const record = await readBack(api, kind, { [recordSpecOf[kind].permalinkField]: permalink }, 'deletedAt', { includeDeleted: true });
  if (record === null) return undefined;
  return record.deletedAt === null ? null : new Date(record.deletedAt as string);
}

describe('the routes and mutations exist for the four deletable kinds, not for load updates', () => {
  test('REST paths and GraphQL names', () => {
    expect(deletable.map((spec) => [restPath(spec, 'delete'), bulkRestPath(spec, 'delete'), mutationName(spec, 'delete')])).toEqual([
      ['/api/v1/carriers/delete', '/api/v1/carriers/bulk_delete', 'deleteCarrier'],
      ['/api/v1/loads/delete', '/api/v1/loads/bulk_delete', 'deleteLoad'],
      ['/api/v1/loadlegs/delete', '/api/v1/loadlegs/bulk_delete', 'deleteLoadLeg'],
      ['/api/v1/stops/delete', '/api/v1/stops/bulk_delete', 'deleteStop'],
    ]);
  });

  test('there is no delete route for load updates', async ({ api }) => {
    expect((await api.post('/api/v1/loadupdates/delete', { native_system_load_update_permalink: 'U1-x' })).status).toBe(404);
  });
});

describe.each(deletable.map((spec) => [spec.kind] as const))('REST delete of a %s', (kind) => {
  test('deleted, then already deleted, then an unknown permalink: all processed, the message says which', async ({ api, tenant }) => {
    const body = await seedOne(api, tenant, kind);
    const permalink = permalinkOf(kind, body);
    const first = await api.post(deleteRoute[kind]!, deleteBody(kind, permalink));
    expect(first.status).toBe(200);
    expect(first.body).toMatchObject({ status: 'processed', permalink, message: expect.stringMatching(/(?<!already) deleted\.$/) });
    expect(await storedDeletedAt(api, kind, permalink)).toBeInstanceOf(Date);
    const again = await api.post(deleteRoute[kind]!, deleteBody(kind, permalink));
    expect(again.body).toMatchObject({ status: 'processed', message: expect.stringContaining('already deleted') });
    const unknown = `NOPE-${tenant.slug}`;
    const missing = await api.post(deleteRoute[kind]!, { ...deleteBody(kind, unknown), company_permalink: tenant.slug });
    expect(missing.body).toMatchObject({ status: 'processed', permalink: unknown, message: expect.stringContaining('not found: nothing to delete') });
  });

  test('bulk: per-record results in order, a bad record does not reject the others', async ({ api, tenant }) => {
    const body = await seedOne(api, tenant, kind);
    const permalink = permalinkOf(kind, body);
    const res = await api.post(bulkDeleteRoute[kind]!, {
      records: [deleteBody(kind, permalink), deleteBody(kind, 'X1-someone-else'), deleteBody(kind, permalink), deleteBody(kind, `Z9-${tenant.slug}`)],
    });
    expect(res.status).toBe(200);
    expect(res.body.results).toMatchObject([
      { status: 'processed', message: expect.stringMatching(/(?<!already) deleted\.$/) },
      { error: { code: 'validation_failed' } },
      { status: 'processed', message: expect.stringContaining('already deleted') },
      { status: 'processed', message: expect.stringContaining('not found') },
    ]);
    expect((await api.post(bulkDeleteRoute[kind]!, { records: [] })).status).toBe(400);
    expect((await api.post(bulkDeleteRoute[kind]!, [deleteBody(kind, permalink)])).status).toBe(400);
  });

  test('tenancy and suffix rules: another tenant cannot delete it, a foreign company_permalink is 403, a bad suffix 400', async ({ api, tenant, otherApi }) => {
    const permalink = permalinkOf(kind, await seedOne(api, tenant, kind));
    const foreign = await otherApi.post(deleteRoute[kind]!, deleteBody(kind, permalink));
    expect(foreign.status).toBe(400);
    expect(foreign.body.error.code).toBe('validation_failed');
    const mismatch = await api.post(deleteRoute[kind]!, { ...deleteBody(kind, permalink), company_permalink: 'someone-else' });
    expect(mismatch.status).toBe(403);
    expect(mismatch.body.error.code).toBe('tenant_mismatch');
    const noPermalink = await api.post(deleteRoute[kind]!, {});
    expect(noPermalink.status).toBe(400);
    expect(noPermalink.body.error.details).toEqual([{ field: recordSpecs.find((s) => s.kind === kind)!.permalinkField, issue: 'is required' }]);
    expect(await storedDeletedAt(api, kind, permalink)).toBeNull();
  });
});

describe('sync_run_time and freshness', () => {
  test('load: skipped when older, deleted when newer; the record keeps its data; a stale upsert then cannot revive it', async ({ api, tenant, testApp }) => {
    const load = await seed(api, `${routes.load}?sync_run_time=2026-03-01T12:00:00Z`, loadBody(tenant));
    const permalink = load.native_system_load_permalink as string;
    const older = await api.post(`${deleteRoute.load}?sync_run_time=2026-03-01T11:00:00Z`, { native_system_load_permalink: permalink });
    expect(older.body).toMatchObject({ status: 'skipped', permalink });
    expect(await storedDeletedAt(api, 'load', permalink)).toBeNull();
    const newer = await api.post(`${deleteRoute.load}?sync_run_time=2026-03-01T13:00:00Z`, { native_system_load_permalink: permalink });
    expect(newer.body).toMatchObject({ status: 'processed', message: expect.stringMatching(/(?<!already) deleted\.$/) });
    const stored = await testApp.database.db.prisma.load.findFirstOrThrow({ where: { permalink } });
    expect(stored.freshAt.toISOString()).toBe('2026-03-01T13:00:00.000Z');
    expect(stored.bolNumber).toBe(load.bol_number);
    const stale = await api.post(`${routes.load}?sync_run_time=2026-03-01T12:30:00Z`, load);
    expect(stale.body.status).toBe('skipped');
    expect(await storedDeletedAt(api, 'load', permalink)).toBeInstanceOf(Date);
  });

  test('a newer delete of a tombstone moves its freshness (a stale upsert then cannot revive it); an older one is skipped', async ({
    api,
    tenant,
    testApp,
  }) => {
    const load = await seed(api, `${routes.load}?sync_run_time=2026-03-01T12:00:00Z`, loadBody(tenant));
    const permalink = load.native_system_load_permalink as string;
    const at = (hour: number) => `${deleteRoute.load}?sync_run_time=2026-03-01T${hour}:00:00Z`;
    expect((await api.post(at(13), { native_system_load_permalink: permalink })).body.message).toMatch(/(?<!already) deleted\.$/);
    expect((await api.post(at(15), { native_system_load_permalink: permalink })).body.message).toContain('already deleted');
    expect((await testApp.database.db.prisma.load.findFirstOrThrow({ where: { permalink } })).freshAt.toISOString()).toBe('2026-03-01T15:00:00.000Z');
    expect((await api.post(at(14), { native_system_load_permalink: permalink })).body.status).toBe('skipped');
    expect((await api.post(`${routes.load}?sync_run_time=2026-03-01T14:00:00Z`, load)).body.status).toBe('skipped');
    expect(await storedDeletedAt(api, 'load', permalink)).toBeInstanceOf(Date);
    expect((await api.post(`${routes.load}?sync_run_time=2026-03-01T16:00:00Z`, load)).body.status).toBe('processed');
    expect(await storedDeletedAt(api, 'load', permalink)).toBeNull();
  });

  test('legs and stops honour sync_run_time too; carriers ignore it (as their upserts do)', async ({ api, tenant }) => {
    const { carrier, leg, stop } = await seedLoadTree(api, tenant);
    const past = '?sync_run_time=2020-01-01T00:00:00Z';
    expect((await api.post(`${deleteRoute.load_leg}${past}`, { native_system_load_leg_permalink: leg.native_system_load_leg_permalink })).body.status).toBe(
      'skipped',
    );
    expect((await api.post(`${deleteRoute.stop}${past}`, { native_system_stop_permalink: stop.native_system_stop_permalink })).body.status).toBe('skipped');
    const carrierDelete = await api.post(`${deleteRoute.carrier}${past}`, { native_system_carrier_permalink: carrier.native_system_carrier_permalink });
    expect(carrierDelete.body).toMatchObject({ status: 'processed', message: expect.stringMatching(/(?<!already) deleted\.$/) });
  });

  test('a bad sync_run_time is a validation_failed naming it', async ({ api, tenant }) => {
    const res = await api.post(`${deleteRoute.load}?sync_run_time=yesterday`, { native_system_load_permalink: `L1-${tenant.slug}` });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toContainEqual(expect.objectContaining({ field: 'sync_run_time' }));
  });
});

describe('cascade', () => {
  test('deleting a load deletes its legs and their stops at the same instant; its updates stay stored', async ({ api, tenant, testApp }) => {
    const { load, leg, stop, carrier } = await seedLoadTree(api, tenant);
    const leg2 = await seed(api, routes.load_leg, loadLegBody(tenant, load, { load_leg_sequence: 2 }));
    const stop2 = await seed(api, routes.stop, stopBody(tenant, leg2));
    const update = await seed(api, routes.load_update, loadUpdateBody(tenant, load));
    testApp.clock.advance(1000);
    await api.post(deleteRoute.load!, { native_system_load_permalink: load.native_system_load_permalink });
    const db = testApp.database.db.prisma;
    const deletedAt = (await db.load.findFirstOrThrow({ where: { permalink: load.native_system_load_permalink as string } })).deletedAt;
    expect(deletedAt).toBeInstanceOf(Date);
    for (const permalink of [leg.native_system_load_leg_permalink, leg2.native_system_load_leg_permalink]) {
      expect((await db.loadLeg.findFirstOrThrow({ where: { permalink: permalink as string } })).deletedAt).toEqual(deletedAt);
    }
    for (const permalink of [stop.native_system_stop_permalink, stop2.native_system_stop_permalink]) {
      expect((await db.stop.findFirstOrThrow({ where: { permalink: permalink as string } })).deletedAt).toEqual(deletedAt);
    }
    expect(await db.loadUpdate.count({ where: { permalink: update.native_system_load_update_permalink as string } })).toBe(1);
    expect((await db.carrier.findFirstOrThrow({ where: { permalink: carrier.native_system_carrier_permalink as string } })).deletedAt).toBeNull();
  });

  test('deleting a leg deletes its stops only; deleting a carrier leaves its legs', async ({ api, tenant }) => {
    const { load, leg, stop, carrier } = await seedLoadTree(api, tenant);
    const leg2 = await seed(api, routes.load_leg, loadLegBody(tenant, load, { load_leg_sequence: 2 }));
    const stop2 = await seed(api, routes.stop, stopBody(tenant, leg2));
    await api.post(deleteRoute.load_leg!, { native_system_load_leg_permalink: leg.native_system_load_leg_permalink });
    expect(await storedDeletedAt(api, 'stop', stop.native_system_stop_permalink as string)).toBeInstanceOf(Date);
    expect(await storedDeletedAt(api, 'stop', stop2.native_system_stop_permalink as string)).toBeNull();
    expect(await storedDeletedAt(api, 'load', load.native_system_load_permalink as string)).toBeNull();
    await api.post(deleteRoute.carrier!, { native_system_carrier_permalink: carrier.native_system_carrier_permalink });
    expect(await storedDeletedAt(api, 'load_leg', leg2.native_system_load_leg_permalink as string)).toBeNull();
  });
});

describe('revival and deleted parents', () => {
  test('an upsert of a deleted load revives it with the new fields; its deleted children stay deleted until upserted', async ({ api, tenant, testApp }) => {
    const { load, leg, stop } = await seedLoadTree(api, tenant);
    await api.post(deleteRoute.load!, { native_system_load_permalink: load.native_system_load_permalink });
    const revived = await api.post(routes.load, { ...load, bol_number: 'BOL-REVIVED' });
    expect(revived.body.status).toBe('processed');
    const stored = await testApp.database.db.prisma.load.findFirstOrThrow({ where: { permalink: load.native_system_load_permalink as string } });
    expect(stored).toMatchObject({ deletedAt: null, bolNumber: 'BOL-REVIVED' });
    expect(await storedDeletedAt(api, 'load_leg', leg.native_system_load_leg_permalink as string)).toBeInstanceOf(Date);
    expect(await storedDeletedAt(api, 'stop', stop.native_system_stop_permalink as string)).toBeInstanceOf(Date);
    // A stop of a deleted leg is parent_not_found until its leg is upserted again.
    const orphan = await api.post(routes.stop, stop);
    expect(orphan.status).toBe(422);
    await seed(api, routes.load_leg, leg);
    await seed(api, routes.stop, stop);
    expect(await storedDeletedAt(api, 'stop', stop.native_system_stop_permalink as string)).toBeNull();
  });

  test('a child naming a deleted parent is parent_not_found (leg → load, stop → leg, update → load, leg → carrier)', async ({ api, tenant }) => {
    const { carrier, load, leg } = await seedLoadTree(api, tenant);
    await api.post(deleteRoute.carrier!, { native_system_carrier_permalink: carrier.native_system_carrier_permalink });
    const withCarrier = await api.post(
      routes.load_leg,
      loadLegBody(tenant, load, { native_system_carrier_permalink: carrier.native_system_carrier_permalink }),
    );
    expect(withCarrier.status).toBe(422);
    expect(withCarrier.body.error.details).toEqual([expect.objectContaining({ field: 'native_system_carrier_permalink' })]);
    await api.post(deleteRoute.load!, { native_system_load_permalink: load.native_system_load_permalink });
    for (const [route, body, field] of [
      [routes.load_leg, loadLegBody(tenant, load), 'native_system_load_permalink'],
      [routes.stop, stopBody(tenant, leg), 'native_system_load_leg_permalink'],
      [routes.load_update, loadUpdateBody(tenant, load), 'native_system_load_permalink'],
    ] as const) {
      const res = await api.post(route, body);
      expect(res.status, route).toBe(422);
      expect(res.body.error).toMatchObject({ code: 'parent_not_found', details: [expect.objectContaining({ field })] });
    }
  });

  test('editLoad of a deleted load is not_found and changes nothing', async ({ api, tenant, testApp }) => {
    const { load } = await seedLoadTree(api, tenant);
    await api.post(deleteRoute.load!, { native_system_load_permalink: load.native_system_load_permalink });
    const { error } = await gqlError(api, 'mutation ($p: String!) { editLoad(permalink: $p, patch: { bolNumber: "EDITED" }) { permalink } }', {
      p: load.native_system_load_permalink,
    });
    expect(error.extensions?.code).toBe('not_found');
    const stored = await testApp.database.db.prisma.load.findFirstOrThrow({ where: { permalink: load.native_system_load_permalink as string } });
    expect(stored.bolNumber).toBe(load.bol_number);
  });

  test('a carrier upsert revives a deleted carrier', async ({ api, tenant }) => {
    const carrier = await seed(api, routes.carrier, carrierBody(tenant));
    await api.post(deleteRoute.carrier!, { native_system_carrier_permalink: carrier.native_system_carrier_permalink });
    await seed(api, routes.carrier, carrier);
    expect(await storedDeletedAt(api, 'carrier', carrier.native_system_carrier_permalink as string)).toBeNull();
  });
});

describe('GraphQL delete mutations share the use case', () => {
  test('deleteLoad, deleteStop and their answers; bulkDeleteLoadLegs with per-record results', async ({ api, tenant }) => {
    const { load, leg, stop } = await seedLoadTree(api, tenant);
    const stopDelete = await gqlData(api, 'mutation ($input: StopDeleteInput!) { deleteStop(input: $input) { status message permalink } }', {
      input: { nativeSystemStopPermalink: stop.native_system_stop_permalink },
    });
    expect(stopDelete.deleteStop).toMatchObject({ status: 'PROCESSED', message: expect.stringMatching(/(?<!already) deleted\.$/) });
    const bulk = await gqlData(
      api,
      'mutation ($inputs: [LoadLegDeleteInput!]!) { bulkDeleteLoadLegs(inputs: $inputs) { index status message error { code } } }',
      { inputs: [{ nativeSystemLoadLegPermalink: leg.native_system_load_leg_permalink }, { nativeSystemLoadLegPermalink: 'G1-elsewhere' }] },
    );
    expect(bulk.bulkDeleteLoadLegs).toMatchObject([
      { index: 0, status: 'PROCESSED', message: expect.stringMatching(/(?<!already) deleted\.$/), error: null },
      { index: 1, status: null, error: { code: 'validation_failed' } },
    ]);
    const skipped = await gqlData(api, 'mutation ($input: LoadDeleteInput!, $t: DateTime) { deleteLoad(input: $input, syncRunTime: $t) { status } }', {
      input: { nativeSystemLoadPermalink: load.native_system_load_permalink },
      t: '2020-01-01T00:00:00Z',
    });
    expect(skipped.deleteLoad.status).toBe('SKIPPED');
    const done = await gqlData(api, 'mutation ($input: LoadDeleteInput!) { deleteLoad(input: $input) { status message } }', {
      input: { nativeSystemLoadPermalink: load.native_system_load_permalink },
    });
    expect(done.deleteLoad.message).toMatch(/(?<!already) deleted\.$/);
    expect(await storedDeletedAt(api, 'load', load.native_system_load_permalink as string)).toBeInstanceOf(Date);
    const mismatch = await gqlError(api, 'mutation ($input: CarrierDeleteInput!) { deleteCarrier(input: $input) { status } }', {
      input: { nativeSystemCarrierPermalink: `C1-${tenant.slug}`, companyPermalink: 'else' },
    });
    expect(mismatch.error.extensions?.code).toBe('tenant_mismatch');
    const bulkCarriers = await gqlData(api, 'mutation ($inputs: [CarrierDeleteInput!]!) { bulkDeleteCarriers(inputs: $inputs) { status message } }', {
      inputs: [{ nativeSystemCarrierPermalink: `C1-${tenant.slug}` }],
    });
    expect(bulkCarriers.bulkDeleteCarriers[0].message).toContain('not found: nothing to delete');
    const bulkStops = await gqlData(api, 'mutation ($inputs: [StopDeleteInput!]!) { bulkDeleteStops(inputs: $inputs) { status message } }', {
      inputs: [{ nativeSystemStopPermalink: stop.native_system_stop_permalink }],
    });
    expect(bulkStops.bulkDeleteStops[0].message).toContain('already deleted');
    const bulkLoads = await gqlData(api, 'mutation ($inputs: [LoadDeleteInput!]!) { bulkDeleteLoads(inputs: $inputs) { status message } }', {
      inputs: [{ nativeSystemLoadPermalink: load.native_system_load_permalink }],
    });
    expect(bulkLoads.bulkDeleteLoads[0].message).toContain('already deleted');
  });
});

describe('dry run', () => {
  test('?dry_run=true and dryRun: the real answer of a load delete, its cascade rolled back, no event', async ({ api, tenant, testApp }) => {
    const { load, leg, stop } = await seedLoadTree(api, tenant);
    const eventsBefore = await testApp.database.db.prisma.loadEvent.count({ where: { tenantId: tenant.id } });
    const rest = await api.post(`${deleteRoute.load}?dry_run=true`, { native_system_load_permalink: load.native_system_load_permalink });
    expect(rest.body).toMatchObject({ status: 'processed', message: expect.stringMatching(/(?<!already) deleted\.$/), dry_run: true });
    const gql = await gqlData(api, 'mutation ($input: LoadDeleteInput!) { deleteLoad(input: $input, dryRun: true) { status message dryRun } }', {
      input: { nativeSystemLoadPermalink: load.native_system_load_permalink },
    });
    expect(gql.deleteLoad).toMatchObject({ status: 'PROCESSED', dryRun: true, message: expect.stringMatching(/(?<!already) deleted\.$/) });
    expect(await storedDeletedAt(api, 'load', load.native_system_load_permalink as string)).toBeNull();
    expect(await storedDeletedAt(api, 'load_leg', leg.native_system_load_leg_permalink as string)).toBeNull();
    expect(await storedDeletedAt(api, 'stop', stop.native_system_stop_permalink as string)).toBeNull();
    expect(await testApp.database.db.prisma.loadEvent.count({ where: { tenantId: tenant.id } })).toBe(eventsBefore);
  });
});

describe('ingest accounting and the ingest source', () => {
  test('deletes are counted per kind and source like any record; a bad Service-Ingest-Source is rejected', async ({ api, tenant, testApp }) => {
    const { load } = await seedLoadTree(api, tenant);
    await api.post(deleteRoute.load!, { native_system_load_permalink: load.native_system_load_permalink }, { 'service-ingest-source': 'webhook' });
    await api.post(bulkDeleteRoute.stop!, { records: [{ native_system_stop_permalink: `S1-${tenant.slug}` }] }, { 'service-ingest-source': 'pull' });
    const bad = await api.post(deleteRoute.load!, { native_system_load_permalink: load.native_system_load_permalink }, { 'service-ingest-source': 'fax' });
    expect(bad.status).toBe(400);
    await testApp.app.services.recorder.flush();
    const counts = await testApp.database.db.prisma.ingestCount.findMany({
      where: { tenantId: tenant.id },
      select: { source: true, kind: true, outcome: true, count: true },
    });
    expect(counts).toContainEqual({ source: 'webhook', kind: 'load', outcome: 'processed', count: 1 });
    expect(counts).toContainEqual({ source: 'pull', kind: 'stop', outcome: 'processed', count: 1 });
    expect(counts).toContainEqual({ source: 'unspecified', kind: 'load', outcome: 'rejected', count: 1 });
  });
});
