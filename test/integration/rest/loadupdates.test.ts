import { setStatusMapping } from '../../../src/domain/status-mapping/service.js';
import { describe, expect, test } from '../../fixtures.js';
import { fullBodies, loadBody, loadUpdateBody, routes, seed, seedParents } from '../../factories/records.js';
import { apiFor, type Api, type TestApp } from '../../helpers/app.js';
import { loadUpdateFields } from './contract.js';
import { describeFieldRules, expectInvalid, expectProcessed } from './field-rules.js';

const validBody = async (api: Api, tenant: { slug: string }) => {
  const { load, leg } = await seedParents(api, tenant);
  return fullBodies.load_update(tenant, load, leg);
};

describeFieldRules({ route: routes.load_update, fields: loadUpdateFields, validBody, nullParentStatus: { native_system_load_permalink: 422 } });

const storedUpdates = (testApp: TestApp, body: Record<string, unknown>) =>
  testApp.database.db.prisma.loadUpdate.findMany({
    where: { permalink: body.native_system_load_update_permalink as string },
    include: { load: true, leg: true },
  });

describe('POST /api/v1/loadupdates/create', () => {
  test('is append-only: a repeated permalink answers duplicate and the stored update is unchanged', async ({ api, tenant, testApp }) => {
    const body = await validBody(api, tenant);
    const first = await api.post(routes.load_update, { ...body, tms_x: 1 });
    expect(first.body).toEqual({
      status: 'processed',
      message: expect.any(String),
      permalink: body.native_system_load_update_permalink,
      unknown_fields: ['tms_x'],
      suggestions: [],
      phase: 'UNMAPPED', // its status ('In Transit') has no mapping in a new tenant
    });
    const [before] = await storedUpdates(testApp, body);
    const second = await api.post(routes.load_update, { ...body, message: 'Changed', update_type: 'status_remark', tms_x: 2, tms_y: 3 });
    expect(second.status).toBe(200);
    expect(second.body).toEqual({
      status: 'duplicate',
      message: expect.stringContaining('unchanged'),
      permalink: body.native_system_load_update_permalink,
      unknown_fields: ['tms_x', 'tms_y'],
      suggestions: [],
    });
    const after = await storedUpdates(testApp, body);
    expect(after).toEqual([before]);
  });

  test('links the update to its load and leg', async ({ api, tenant, testApp }) => {
    const body = await validBody(api, tenant);
    expectProcessed(await api.post(routes.load_update, body));
    const [stored] = await storedUpdates(testApp, body);
    expect(stored!.load.permalink).toBe(body.native_system_load_permalink);
    expect(stored!.leg?.permalink).toBe(body.native_system_load_leg_permalink);
  });

  test('a null load permalink is built from an extra native_system_load_id', async ({ api, tenant, testApp }) => {
    const { load } = await seedParents(api, tenant);
    const body = loadUpdateBody(tenant, load, { native_system_load_permalink: null, native_system_load_id: load.native_system_load_id });
    expectProcessed(await api.post(routes.load_update, body));
    expect((await storedUpdates(testApp, body))[0]!.load.permalink).toBe(load.native_system_load_permalink);
  });

  test('a missing load or leg answers 422 naming the field; nothing is stored', async ({ api, tenant, testApp }) => {
    const body = await validBody(api, tenant);
    for (const field of ['native_system_load_permalink', 'native_system_load_leg_permalink']) {
      const res = await api.post(routes.load_update, { ...body, [field]: `NOPE-${tenant.slug}` });
      expect(res.status).toBe(422);
      expect(res.body.error).toMatchObject({ code: 'parent_not_found', details: [{ field }] });
    }
    expect(await storedUpdates(testApp, body)).toHaveLength(0);
  });

  test("a load of another tenant is not found, even when its permalink ends with this tenant's slug", async ({ api, tenant, testApp }) => {
    const other = await testApp.createTenant({ slug: `x-${tenant.slug}` });
    const load = await seed(apiFor(testApp, other.apiKey), routes.load, loadBody(other));
    const res = await api.post(routes.load_update, loadUpdateBody(tenant, load));
    expect(res.status).toBe(422);
  });

  test('a gps_ping needs a non-null latitude and longitude; other types do not', async ({ api, tenant }) => {
    const body = await validBody(api, tenant);
    for (const field of ['latitude', 'longitude']) {
      expectInvalid(await api.post(routes.load_update, { ...body, update_type: 'gps_ping', [field]: null }), field, /gps_ping/);
      const { [field]: _f, ...without } = body;
      expectInvalid(await api.post(routes.load_update, { ...without, update_type: 'gps_ping' }), field, /gps_ping/);
    }
    const res = await api.post(routes.load_update, { ...body, update_type: 'gps_ping', latitude: null, longitude: null, city: 7 });
    expect(res.body.error.details.map((d: { field: string }) => d.field).sort()).toEqual(['city', 'latitude', 'longitude']);
    for (const type of ['check_call', 'status_remark']) {
      expectProcessed(await api.post(routes.load_update, { ...(await validBody(api, tenant)), update_type: type, latitude: null, longitude: null }));
    }
  });

  test("the update's status gets a phase from the mapping; the load's own status and phase do not change", async ({ api, tenant, testApp }) => {
    await setStatusMapping(testApp.database.db, tenant.id, 'Delivered', 'DELIVERED');
    const body = await validBody(api, tenant);
    const loadBefore = await testApp.database.db.prisma.load.findFirstOrThrow({ where: { permalink: body.native_system_load_permalink as string } });
    expectProcessed(await api.post(routes.load_update, { ...body, native_system_load_status: ' delivered' }));
    expect((await storedUpdates(testApp, body))[0]).toMatchObject({ status: ' delivered', phase: 'DELIVERED' });
    const loadAfter = await testApp.database.db.prisma.load.findFirstOrThrow({ where: { permalink: body.native_system_load_permalink as string } });
    // The update is activity on the load (lastActivityAt moves); its status and phase stay.
    expect({ ...loadAfter, lastActivityAt: null }).toEqual({ ...loadBefore, lastActivityAt: null });
  });

  test('an update without a status (a GPS ping) has no phase; an unmapped status is UNMAPPED', async ({ api, tenant, testApp }) => {
    const body = await validBody(api, tenant);
    for (const status of [undefined, null, '  ']) {
      const update = { ...(await validBody(api, tenant)), native_system_load_status: status };
      expectProcessed(await api.post(routes.load_update, update));
      expect((await storedUpdates(testApp, update))[0], String(status)).toMatchObject({ phase: null });
    }
    expectProcessed(await api.post(routes.load_update, { ...body, native_system_load_status: 'Somewhere odd' }));
    expect((await storedUpdates(testApp, body))[0]).toMatchObject({ phase: 'UNMAPPED' });
  });

  test('ignores sync_run_time, even an invalid one', async ({ api, tenant }) => {
    const body = await validBody(api, tenant);
    expectProcessed(await api.post(`${routes.load_update}?sync_run_time=garbage`, body));
  });
});
