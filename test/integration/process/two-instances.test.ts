/**
 * Two instances on one database (issue 9, point 6): the races of rest/concurrency.test.ts (one
 * permalink from many clients, duplicate load updates, `sync_run_time`, legs racing their load) with
 * the requests spread over two instances. On PostgreSQL: two `npm start` processes over real HTTP.
 * PGlite admits one process (server.test.ts proves the second is refused), so there the same
 * scenarios run against two app instances inside one process sharing the one PGlite database.
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { Database } from '../../../src/db/database.js';
import { createTenant } from '../../../src/domain/tenant/service.js';
import { carrierBody, loadBody, loadLegBody, loadUpdateBody, routes } from '../../factories/records.js';
import { apiFor, createTestApp, uniqueSlug, type TestApp } from '../../helpers/app.js';
import { postgresTarget, type Target } from '../cli/targets.js';
import { startServer, type ServerProcess } from './server-process.js';

type Post = (path: string, body: unknown) => Promise<{ status: number; body: any }>;

interface Instances {
  /** One client per instance; request i goes to instance i % 2. */
  clients: Post[];
  db: Database;
  tenant: { id: string; slug: string };
}

const spread = (instances: Instances, i: number) => instances.clients[i % instances.clients.length]!;

/** The races, each request sent to the instance its index picks (both instances get half). */
const scenarios: [string, (instances: Instances) => Promise<void>][] = [
  [
    '50 concurrent upserts of one new permalink: all processed, exactly one created, one record',
    async (x) => {
      const body = carrierBody(x.tenant);
      const results = await Promise.all(Array.from({ length: 50 }, (_, i) => spread(x, i)(routes.carrier, { ...body, carrier_name: `Name ${i}` })));
      expect(results.map((r) => r.status)).toEqual(Array(50).fill(200));
      expect(results.every((r) => r.body.status === 'processed')).toBe(true);
      expect(results.filter((r) => /created/.test(r.body.message))).toHaveLength(1);
      expect(await x.db.prisma.carrier.count({ where: { tenantId: x.tenant.id, permalink: String(body.native_system_carrier_permalink) } })).toBe(1);
    },
  ],
  [
    '30 concurrent creates of one load-update permalink: one processed, 29 duplicate, one record',
    async (x) => {
      const load = loadBody(x.tenant);
      expect((await spread(x, 0)(routes.load, load)).status).toBe(200);
      const body = loadUpdateBody(x.tenant, load);
      const results = await Promise.all(Array.from({ length: 30 }, (_, i) => spread(x, i)(routes.load_update, { ...body, message: `Try ${i}` })));
      expect(results.map((r) => r.status)).toEqual(Array(30).fill(200));
      expect(results.filter((r) => r.body.status === 'processed')).toHaveLength(1);
      expect(results.filter((r) => r.body.status === 'duplicate')).toHaveLength(29);
      expect(await x.db.prisma.loadUpdate.count({ where: { tenantId: x.tenant.id, permalink: String(body.native_system_load_update_permalink) } })).toBe(1);
    },
  ],
  [
    'concurrent upserts with different sync_run_times keep the newest, whatever the order and instance',
    async (x) => {
      const body = loadBody(x.tenant);
      const order = Array.from({ length: 24 }, (_, i) => i).sort(() => Math.random() - 0.5);
      const results = await Promise.all(
        order.map((h, i) => spread(x, i)(`${routes.load}?sync_run_time=2026-03-01T${String(h).padStart(2, '0')}:00:00Z`, { ...body, bol_number: `BOL-${h}` })),
      );
      expect(results.map((r) => r.status)).toEqual(Array(24).fill(200));
      const stored = await x.db.prisma.load.findFirstOrThrow({ where: { tenantId: x.tenant.id, permalink: String(body.native_system_load_permalink) } });
      expect(stored.bolNumber).toBe('BOL-23');
      expect(stored.freshAt.toISOString()).toBe('2026-03-01T23:00:00.000Z');
      expect(results[order.indexOf(23)]!.body.status).toBe('processed');
    },
  ],
  [
    'leg upserts racing the creation of their load: processed or 422, never a 500 or an orphan',
    async (x) => {
      const load = loadBody(x.tenant);
      const legs = Array.from({ length: 20 }, (_, i) => loadLegBody(x.tenant, load, { load_leg_sequence: i + 1 }));
      const [loadResult, ...legResults] = await Promise.all([spread(x, 0)(routes.load, load), ...legs.map((leg, i) => spread(x, i + 1)(routes.load_leg, leg))]);
      expect(loadResult.body.status).toBe('processed');
      for (const r of legResults) {
        expect([200, 422], JSON.stringify(r.body)).toContain(r.status);
        if (r.status === 422) expect(r.body.error.code).toBe('parent_not_found');
      }
      const stored = await x.db.prisma.loadLeg.findMany({
        where: { tenantId: x.tenant.id, permalink: { in: legs.map((l) => String(l.native_system_load_leg_permalink)) } },
        include: { load: true },
      });
      expect(stored).toHaveLength(legResults.filter((r) => r.status === 200).length);
      for (const leg of stored) expect(leg.load.permalink).toBe(load.native_system_load_permalink);
    },
  ],
];

const httpClient =
  (base: string, apiKey: string): Post =>
  async (path, body) => {
    const res = await fetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: await res.json() };
  };

// Like every test, this file runs on the run's database (CI runs the suite on both): no skipped tests.
const describePostgres = process.env.DATABASE_URL ? describe : () => {};
const describePglite = process.env.DATABASE_URL ? () => {} : describe;

describePostgres('two service processes on one PostgreSQL database', { timeout: 240_000 }, () => {
  let target: Target;
  let servers: ServerProcess[] = [];
  let instances: Instances;

  beforeAll(async () => {
    target = await postgresTarget();
    const { tenant, apiKey } = await target.withDatabase((db) => createTenant(db, { slug: uniqueSlug(), name: 'Two instances' }));
    // One after the other: each start applies pending migrations under Prisma's advisory lock.
    servers = [];
    const bases: string[] = [];
    for (let i = 0; i < 2; i++) {
      const server = startServer(target.env);
      servers.push(server);
      bases.push(await server.started());
    }
    expect(new Set(bases).size).toBe(2);
    await target.withDatabase(async (db) => {
      instances = { clients: bases.map((base) => httpClient(base, apiKey)), db, tenant };
    });
  }, 240_000);

  afterAll(async () => {
    const codes = await Promise.all(servers.map((s) => s.stop()));
    await target?.cleanup();
    expect(codes).toEqual(servers.map(() => 0));
  }, 60_000);

  test.for(scenarios)('%s', async ([, scenario]) => scenario(instances));
});

describePglite('two app instances in one process on one PGlite database (PGlite admits one process)', () => {
  let first: TestApp;
  let second: TestApp;
  let instances: Instances;

  beforeAll(async () => {
    first = await createTestApp();
    second = await createTestApp({ database: first.database });
    const tenant = await first.createTenant();
    const clients = [first, second].map((app) => {
      const api = apiFor(app, tenant.apiKey);
      return (path: string, body: unknown) => api.post(path, body);
    });
    instances = { clients, db: first.database.db, tenant };
  }, 120_000);

  afterAll(async () => {
    await second?.close();
    await first?.close();
  });

  test.for(scenarios)('%s', async ([, scenario]) => scenario(instances));
});
