/**
 * Database failures, provoked for real: 503 `unavailable` (with Retry-After) when the database cannot be
 * reached, 500 `internal` without internals when a write fails for another reason. Each test builds
 * its own app and database, since it breaks them.
 */
import { openDatabase } from '../../../src/db/database.js';
import { recordSpecOf } from '../../../src/domain/registry.js';
import { bulkRestPath } from '../../../src/domain/declaration/record.js';
import { describe, expect, test } from '../../fixtures.js';
import { carrierBody, loadBody, routes } from '../../factories/records.js';
import { apiFor, createTestApp } from '../../helpers/app.js';
import { createTestDatabase } from '../../setup/database.js';

const expectUnavailable = (res: { status: number; headers: Headers; body: any }) => {
  expect(res.status, JSON.stringify(res.body)).toBe(503);
  expect(res.body).toEqual({ error: { code: 'unavailable', message: expect.any(String) } });
  expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
};

describe('database failures', () => {
  test('a database that was closed answers 503 unavailable with Retry-After', async () => {
    const database = await createTestDatabase();
    const testApp = await createTestApp({ database });
    try {
      const tenant = await testApp.createTenant();
      const api = apiFor(testApp, tenant.apiKey);
      expect((await api.post(routes.carrier, carrierBody(tenant))).status).toBe(200);
      await database.db.close();
      for (const [path, body] of [
        [routes.carrier, carrierBody(tenant)],
        [routes.load, loadBody(tenant)],
      ] as const) {
        expectUnavailable(await api.post(path, body));
      }
    } finally {
      await testApp.close().catch(() => {});
      await database.drop().catch(() => {});
    }
  });

  test('a PostgreSQL server that cannot be reached answers 503 unavailable', async () => {
    // Port 1 refuses connections: the driver fails exactly as with a server that is down.
    const db = await openDatabase({ url: 'postgresql://postgres@127.0.0.1:1/unreachable', dataDir: '' });
    const testApp = await createTestApp({ database: { db, url: null, drop: () => db.close() } });
    try {
      expectUnavailable(await apiFor(testApp, 'tms_any_key').post(routes.load, loadBody({ slug: 'acme' })));
    } finally {
      await testApp.close().catch(() => {});
      await db.close();
    }
  });

  test('a write that fails in the database answers 500 internal without SQL, stack or table names; nothing is half-written', async () => {
    const database = await createTestDatabase();
    const testApp = await createTestApp({ database });
    try {
      const tenant = await testApp.createTenant();
      const api = apiFor(testApp, tenant.apiKey);
      // The phase-history trigger writes into phase_changes inside the load upsert's statement.
      await database.db.sql.query('DROP TABLE phase_changes', []);
      const body = loadBody(tenant);
      const res = await api.post(routes.load, body);
      expect(res.status).toBe(500);
      expect(res.body).toEqual({ error: { code: 'internal', message: 'An internal error occurred.' } });
      expect(JSON.stringify(res.body)).not.toMatch(/phase_changes|relation|SELECT|INSERT|at \w+ \(/i);
      expect(await database.db.prisma.load.count({ where: { permalink: body.native_system_load_permalink as string } })).toBe(0);
      // A bulk request too: a broken schema is no record's fault, so the request fails whole.
      const bulk = await api.post(bulkRestPath(recordSpecOf.load), { records: [loadBody(tenant), loadBody(tenant)] });
      expect(bulk.status).toBe(500);
      expect(bulk.body).toEqual({ error: { code: 'internal', message: 'An internal error occurred.' } });
      // Routes that do not touch the broken table still work.
      expect((await api.post(routes.carrier, carrierBody(tenant))).status).toBe(200);
    } finally {
      await testApp.close();
      await database.drop();
    }
  });
});
