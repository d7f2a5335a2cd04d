import { describe, expect, test } from '../../fixtures.js';
import { carrierBody, fullBodies, loadBody, routes, seed, seedParents } from '../../factories/records.js';
import { apiFor, type Api, type TestApp } from '../../helpers/app.js';
import { loadLegFields } from './contract.js';
import { describeFieldRules, expectProcessed } from './field-rules.js';
import { describeUpsertBehaviour } from './upsert-behaviour.js';

const validBody = async (api: Api, tenant: { slug: string }) => {
  const { load, carrier } = await seedParents(api, tenant);
  return fullBodies.load_leg(tenant, load, carrier);
};

describeFieldRules({ route: routes.load_leg, fields: loadLegFields, validBody, nullParentStatus: { native_system_load_permalink: 200 } });

describeUpsertBehaviour({
  route: routes.load_leg,
  permalinkField: 'native_system_load_leg_permalink',
  validBody,
  rows: (testApp, permalink) => testApp.database.db.prisma.loadLeg.findMany({ where: { permalink } }),
  optional: { field: 'driver_name', column: 'driverName', value: 'Alex New' },
  syncRunTime: true,
});

const storedLeg = (testApp: TestApp, body: Record<string, unknown>) =>
  testApp.database.db.prisma.loadLeg.findFirstOrThrow({
    where: { permalink: body.native_system_load_leg_permalink as string },
    include: { load: true, carrier: true },
  });

describe('POST /api/v1/loadlegs/upsert: parents', () => {
  test('links the leg to its load and carrier', async ({ api, tenant, testApp }) => {
    const body = await validBody(api, tenant);
    expectProcessed(await api.post(routes.load_leg, body));
    const stored = await storedLeg(testApp, body);
    expect(stored.load.permalink).toBe(body.native_system_load_permalink);
    expect(stored.carrier?.permalink).toBe(body.native_system_carrier_permalink);
  });

  test('a null load permalink is built from native_system_load_id as <id>-<slug>', async ({ api, tenant, testApp }) => {
    const body = await validBody(api, tenant);
    expectProcessed(await api.post(routes.load_leg, { ...body, native_system_load_permalink: null }));
    expect((await storedLeg(testApp, body)).load.permalink).toBe(`${String(body.native_system_load_id)}-${tenant.slug}`);
  });

  test('a null load permalink with a null or unknown load id answers 422 parent_not_found', async ({ api, tenant, testApp }) => {
    const body = await validBody(api, tenant);
    for (const id of [null, '', 'UNKNOWN']) {
      const res = await api.post(routes.load_leg, { ...body, native_system_load_permalink: null, native_system_load_id: id });
      expect(res.status, JSON.stringify(res.body)).toBe(422);
      expect(res.body.error).toMatchObject({ code: 'parent_not_found', details: [{ field: 'native_system_load_permalink' }] });
    }
    expect(await testApp.database.db.prisma.loadLeg.count({ where: { permalink: body.native_system_load_leg_permalink as string } })).toBe(0);
  });

  test('a missing load and a missing carrier are both named in one 422; nothing is stored', async ({ api, tenant, testApp }) => {
    const body = await validBody(api, tenant);
    const res = await api.post(routes.load_leg, {
      ...body,
      native_system_load_permalink: `L0-${tenant.slug}`,
      native_system_carrier_permalink: `C0-${tenant.slug}`,
    });
    expect(res.status).toBe(422);
    expect(res.body.error.details.map((d: { field: string }) => d.field).sort()).toEqual(['native_system_carrier_permalink', 'native_system_load_permalink']);
    expect(res.body.error.details[0].issue).toContain(`-${tenant.slug}`);
    expect(await testApp.database.db.prisma.loadLeg.count({ where: { permalink: body.native_system_load_leg_permalink as string } })).toBe(0);
  });

  test('a missing parent on update changes nothing', async ({ api, tenant, testApp }) => {
    const body = await validBody(api, tenant);
    expectProcessed(await api.post(routes.load_leg, body));
    const before = await storedLeg(testApp, body);
    const res = await api.post(routes.load_leg, { ...body, driver_name: 'Changed', native_system_carrier_permalink: `C0-${tenant.slug}` });
    expect(res.status).toBe(422);
    expect(await storedLeg(testApp, body)).toEqual(before);
  });

  test("parents of another tenant are not found, even when their permalinks end with this tenant's slug", async ({ api, tenant, testApp }) => {
    const other = await testApp.createTenant({ slug: `x-${tenant.slug}` });
    const otherApi = apiFor(testApp, other.apiKey);
    const load = await seed(otherApi, routes.load, loadBody(other));
    const carrier = await seed(otherApi, routes.carrier, carrierBody(other));
    const body = await validBody(api, tenant);
    const res = await api.post(routes.load_leg, {
      ...body,
      native_system_load_permalink: load.native_system_load_permalink,
      native_system_carrier_permalink: carrier.native_system_carrier_permalink,
    });
    expect(res.status).toBe(422);
    expect(res.body.error.details).toHaveLength(2);
  });

  test('the carrier is optional: absent keeps it, null unassigns it, a null permalink is built from an extra native_system_carrier_id', async ({
    api,
    tenant,
    testApp,
  }) => {
    const body = await validBody(api, tenant);
    expectProcessed(await api.post(routes.load_leg, body));
    const { native_system_carrier_permalink: carrier, ...withoutCarrier } = body;
    expectProcessed(await api.post(routes.load_leg, withoutCarrier));
    expect((await storedLeg(testApp, body)).carrier?.permalink).toBe(carrier);
    expectProcessed(await api.post(routes.load_leg, { ...body, native_system_carrier_permalink: null }));
    expect((await storedLeg(testApp, body)).carrierId).toBeNull();
    const carrierId = (carrier as string).slice(0, -(tenant.slug.length + 1));
    expectProcessed(await api.post(routes.load_leg, { ...body, native_system_carrier_permalink: null, native_system_carrier_id: carrierId }));
    expect((await storedLeg(testApp, body)).carrier?.permalink).toBe(carrier);
  });
});
