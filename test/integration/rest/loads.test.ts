import { describe, expect, test } from '../../fixtures.js';
import { fullBodies, loadBody, routes } from '../../factories/records.js';
import { loadFields } from './contract.js';
import { describeFieldRules } from './field-rules.js';

describeFieldRules({ route: routes.load, fields: loadFields, validBody: async (_api, tenant) => fullBodies.load(tenant) });

describe('POST /api/v1/loads/upsert', () => {
  test('creates a load and answers processed with its permalink', async ({ api, tenant }) => {
    const body = loadBody(tenant);
    const res = await api.post(routes.load, body);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'processed', message: expect.stringContaining('processed'), permalink: body.native_system_load_permalink });
  });

  test('answers skipped and keeps the stored load when sync_run_time is older than its freshness', async ({ api, tenant, testApp }) => {
    const body = loadBody(tenant);
    await api.post(`${routes.load}?sync_run_time=2026-01-02T00:00:00Z`, body);
    const res = await api.post(`${routes.load}?sync_run_time=2026-01-01T00:00:00Z`, { ...body, bol_number: 'NEWER?' });
    expect(res.body).toMatchObject({ status: 'skipped', permalink: body.native_system_load_permalink });
    const stored = await testApp.database.db.prisma.load.findFirstOrThrow({ where: { permalink: body.native_system_load_permalink as string } });
    expect(stored.bolNumber).toBe(body.bol_number);
  });
});
