import { describe, expect, test } from '../../fixtures.js';
import { apiFor } from '../../helpers/app.js';
import { fullBodies, loadBody, loadLegBody, routes, seed, seedParents, stopBody } from '../../factories/records.js';
import { stopFields } from './contract.js';
import { describeFieldRules, expectInvalid, expectProcessed } from './field-rules.js';
import { describeUpsertBehaviour } from './upsert-behaviour.js';

const validBody = async (api: Parameters<typeof seedParents>[0], tenant: { slug: string }) => fullBodies.stop(tenant, (await seedParents(api, tenant)).leg);

describeFieldRules({ route: routes.stop, fields: stopFields, validBody, nullParentStatus: { native_system_load_leg_permalink: 422 } });

describeUpsertBehaviour({
  route: routes.stop,
  permalinkField: 'native_system_stop_permalink',
  validBody,
  rows: (testApp, permalink) => testApp.database.db.prisma.stop.findMany({ where: { permalink } }),
  optional: { field: 'location_name', column: 'locationName', value: 'New DC' },
  syncRunTime: true,
});

describe('POST /api/v1/stops/upsert: time order', () => {
  for (const [earlier, later] of [
    ['appointment_start', 'appointment_end'],
    ['arrived_at', 'departed_at'],
  ] as const) {
    test(`${later} before ${earlier} is a 400 naming ${later}; equal instants are accepted`, async ({ api, tenant }) => {
      const body = await validBody(api, tenant);
      const res = await api.post(routes.stop, { ...body, [earlier]: '2026-11-23T10:00:00Z', [later]: '2026-11-23T09:59:59Z' });
      expectInvalid(res, later, new RegExp(earlier));
      expect(res.body.error.details).toHaveLength(1);
      // The same instant written with another offset.
      expectProcessed(await api.post(routes.stop, { ...body, [earlier]: '2026-11-23T10:00:00Z', [later]: '2026-11-23T04:00:00-06:00' }));
    });

    test(`${later} before ${earlier} is reported together with other offending fields`, async ({ api, tenant }) => {
      const body = await validBody(api, tenant);
      const res = await api.post(routes.stop, { ...body, city: 5, [earlier]: '2026-11-23T10:00:00Z', [later]: '2026-11-23T09:00:00Z' });
      expectInvalid(res, 'city');
      expectInvalid(res, later);
    });

    test(`only ${later} (or only ${earlier}) may be given`, async ({ api, tenant }) => {
      const body = await validBody(api, tenant);
      expectProcessed(await api.post(routes.stop, { ...body, [earlier]: null, [later]: '2026-11-23T09:00:00Z' }));
      const { [later]: _l, ...withoutLater } = body;
      expectProcessed(await api.post(routes.stop, withoutLater));
    });
  }
});

describe('POST /api/v1/stops/upsert: parent leg', () => {
  test('a leg that does not exist answers 422 parent_not_found naming field and permalink, and nothing is stored', async ({ api, tenant, testApp }) => {
    const body = await validBody(api, tenant);
    const missing = `NOPE-${tenant.slug}`;
    const res = await api.post(routes.stop, { ...body, native_system_load_leg_permalink: missing });
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({
      code: 'parent_not_found',
      details: [{ field: 'native_system_load_leg_permalink', issue: expect.stringContaining(missing) }],
    });
    expect(await testApp.database.db.prisma.stop.count({ where: { permalink: body.native_system_stop_permalink as string } })).toBe(0);
  });

  test("a leg of another tenant is not found, even when its permalink ends with this tenant's slug", async ({ api, tenant, testApp }) => {
    const other = await testApp.createTenant({ slug: `x-${tenant.slug}` });
    const otherApi = apiFor(testApp, other.apiKey);
    const load = await seed(otherApi, routes.load, loadBody(other));
    const leg = await seed(otherApi, routes.load_leg, loadLegBody(other, load));
    expect((leg.native_system_load_leg_permalink as string).endsWith(`-${tenant.slug}`)).toBe(true);
    const res = await api.post(routes.stop, stopBody(tenant, leg));
    expect(res.status).toBe(422);
    expect(res.body.error.code).toBe('parent_not_found');
  });

  test('a null leg permalink is built from native_system_load_leg_id when sent', async ({ api, tenant, testApp }) => {
    const { leg } = await seedParents(api, tenant);
    const body = stopBody(tenant, leg, { native_system_load_leg_permalink: null, native_system_load_leg_id: leg.native_system_load_leg_id });
    expectProcessed(await api.post(routes.stop, body));
    const stored = await testApp.database.db.prisma.stop.findFirstOrThrow({
      where: { permalink: body.native_system_stop_permalink as string },
      include: { leg: true },
    });
    expect(stored.leg.permalink).toBe(leg.native_system_load_leg_permalink);
  });

  test('an upsert can move the stop to another leg', async ({ api, tenant, testApp }) => {
    const { load, leg } = await seedParents(api, tenant);
    const otherLeg = await seed(api, routes.load_leg, loadLegBody(tenant, load));
    const body = stopBody(tenant, leg);
    expectProcessed(await api.post(routes.stop, body));
    expectProcessed(await api.post(routes.stop, { ...body, native_system_load_leg_permalink: otherLeg.native_system_load_leg_permalink }));
    const stored = await testApp.database.db.prisma.stop.findFirstOrThrow({
      where: { permalink: body.native_system_stop_permalink as string },
      include: { leg: true },
    });
    expect(stored.leg.permalink).toBe(otherLeg.native_system_load_leg_permalink);
  });
});
