import { setStatusMapping } from '../../../src/domain/status-mapping/service.js';
import { describe, expect, test } from '../../fixtures.js';
import { fullBodies, loadBody, routes } from '../../factories/records.js';
import type { TestApp } from '../../helpers/app.js';
import { loadFields } from './contract.js';
import { describeFieldRules, expectProcessed } from './field-rules.js';
import { describeUpsertBehaviour } from './upsert-behaviour.js';

describeFieldRules({ route: routes.load, fields: loadFields, validBody: async (_api, tenant) => fullBodies.load(tenant) });

describeUpsertBehaviour({
  route: routes.load,
  permalinkField: 'native_system_load_permalink',
  validBody: async (_api, tenant) => fullBodies.load(tenant),
  rows: (testApp, permalink) => testApp.database.db.prisma.load.findMany({ where: { permalink } }),
  optional: { field: 'bol_number', column: 'bolNumber', value: 'BOL-CHANGED' },
  syncRunTime: true,
});

const storedLoad = (testApp: TestApp, permalink: unknown) =>
  testApp.database.db.prisma.load.findFirstOrThrow({ where: { permalink: permalink as string }, include: { phaseChanges: { orderBy: { changedAt: 'asc' } } } });

describe('POST /api/v1/loads/upsert: status → phase', () => {
  test('a status without a mapping is stored verbatim with phase UNMAPPED', async ({ api, tenant, testApp }) => {
    const body = loadBody(tenant, { native_system_load_status: '  Picked Up ' });
    expectProcessed(await api.post(routes.load, body));
    expect(await storedLoad(testApp, body.native_system_load_permalink)).toMatchObject({ status: '  Picked Up ', phase: 'UNMAPPED' });
  });

  test('a mapped status gets its phase, compared trimmed and case-insensitively', async ({ api, tenant, testApp }) => {
    await setStatusMapping(testApp.database.db, tenant.id, 'In Transit', 'IN_TRANSIT');
    for (const status of ['In Transit', ' in transit ', 'IN TRANSIT']) {
      const body = loadBody(tenant, { native_system_load_status: status });
      expectProcessed(await api.post(routes.load, body));
      expect(await storedLoad(testApp, body.native_system_load_permalink)).toMatchObject({ status, phase: 'IN_TRANSIT' });
    }
    const other = loadBody(tenant, { native_system_load_status: 'In-Transit' });
    expectProcessed(await api.post(routes.load, other));
    expect((await storedLoad(testApp, other.native_system_load_permalink)).phase).toBe('UNMAPPED');
  });

  test("another tenant's mapping does not apply", async ({ api, tenant, otherTenant, testApp }) => {
    await setStatusMapping(testApp.database.db, otherTenant.id, 'Delivered', 'DELIVERED');
    const body = loadBody(tenant, { native_system_load_status: 'Delivered' });
    expectProcessed(await api.post(routes.load, body));
    expect((await storedLoad(testApp, body.native_system_load_permalink)).phase).toBe('UNMAPPED');
  });

  test('a null status is UNMAPPED; an absent status on update keeps status and phase', async ({ api, tenant, testApp }) => {
    await setStatusMapping(testApp.database.db, tenant.id, 'Booked', 'PLANNED');
    const body = loadBody(tenant, { native_system_load_status: null });
    expectProcessed(await api.post(routes.load, body));
    expect((await storedLoad(testApp, body.native_system_load_permalink)).phase).toBe('UNMAPPED');
    expectProcessed(await api.post(routes.load, { ...body, native_system_load_status: 'Booked' }));
    // The status is required, so an update without it is a 400 and changes nothing.
    const { native_system_load_status: _s, ...withoutStatus } = body;
    expect((await api.post(routes.load, withoutStatus)).status).toBe(400);
    expect(await storedLoad(testApp, body.native_system_load_permalink)).toMatchObject({ status: 'Booked', phase: 'PLANNED' });
  });

  test('each phase change is recorded with the status that caused it; an unchanged phase adds no row', async ({ api, tenant, testApp }) => {
    const db = testApp.database.db;
    await setStatusMapping(db, tenant.id, 'Booked', 'PLANNED');
    await setStatusMapping(db, tenant.id, 'Dispatched', 'DISPATCHED');
    await setStatusMapping(db, tenant.id, 'Rolling', 'DISPATCHED');
    const body = loadBody(tenant, { native_system_load_status: 'Booked' });
    expectProcessed(await api.post(routes.load, body));
    testApp.clock.advance(1000);
    expectProcessed(await api.post(routes.load, { ...body, native_system_load_status: 'Dispatched' }));
    testApp.clock.advance(1000);
    expectProcessed(await api.post(routes.load, { ...body, native_system_load_status: 'Rolling' }));
    expectProcessed(await api.post(routes.load, { ...body, native_system_load_status: 'Rolling', bol_number: 'B-2' }));
    testApp.clock.advance(1000);
    expectProcessed(await api.post(routes.load, { ...body, native_system_load_status: 'Unknown' }));
    testApp.clock.reset();

    const stored = await storedLoad(testApp, body.native_system_load_permalink);
    expect(stored.phaseChanges.map((c) => [c.fromPhase, c.toPhase, c.status])).toEqual([
      [null, 'PLANNED', 'Booked'],
      ['PLANNED', 'DISPATCHED', 'Dispatched'],
      ['DISPATCHED', 'UNMAPPED', 'Unknown'],
    ]);
  });

  test('a skipped upsert changes neither phase nor history', async ({ api, tenant, testApp }) => {
    await setStatusMapping(testApp.database.db, tenant.id, 'Delivered', 'DELIVERED');
    const body = loadBody(tenant);
    expectProcessed(await api.post(`${routes.load}?sync_run_time=2026-01-02T00:00:00Z`, body));
    const res = await api.post(`${routes.load}?sync_run_time=2026-01-01T00:00:00Z`, { ...body, native_system_load_status: 'Delivered' });
    expect(res.body.status).toBe('skipped');
    const stored = await storedLoad(testApp, body.native_system_load_permalink);
    expect(stored).toMatchObject({ status: 'Booked', phase: 'UNMAPPED' });
    expect(stored.phaseChanges).toHaveLength(1);
  });
});
