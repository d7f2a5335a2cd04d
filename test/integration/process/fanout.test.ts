/**
 * Fan-out across instances: a write on one instance reaches a subscriber on another, through
 * PostgreSQL LISTEN/NOTIFY. On PostgreSQL: two real server processes on one database, over real
 * HTTP. On PGlite (one process per database): two app instances in one process sharing the
 * database, each with its own listener and port.
 */
import { afterAll, beforeAll } from 'vitest';
import { describe, expect, test } from '../../fixtures.js';
import { createTenant } from '../../../src/domain/tenant/service.js';
import { loadBody, routes } from '../../factories/records.js';
import { createTestApp, uniqueSlug } from '../../helpers/app.js';
import { listen } from '../../helpers/server.js';
import { subscribeSse } from '../../helpers/sse.js';
import { onPostgres } from '../../setup/database.js';
import { postgresTarget, type Target } from '../cli/targets.js';
import { startServer, type ServerProcess } from './server-process.js';

const subscription = `subscription { loadEvents { cursor type loadPermalink } }`;

interface Instance {
  base: string;
  stop(): Promise<unknown>;
}

const post = (base: string, apiKey: string, body: unknown) =>
  fetch(`${base}${routes.load}`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': apiKey }, body: JSON.stringify(body) });

describe('fan-out across instances', { timeout: 240_000 }, () => {
  let target: Target | undefined;
  let instances: Instance[] = [];
  let tenant: { slug: string; apiKey: string };

  beforeAll(async () => {
    if (onPostgres()) {
      target = await postgresTarget();
      const { tenant: created, apiKey } = await target.withDatabase((db) => createTenant(db, { slug: uniqueSlug(), name: 'Fan-out' }));
      tenant = { slug: created.slug, apiKey };
      // One after the other: each start applies pending migrations under Prisma's advisory lock.
      const servers: ServerProcess[] = [];
      instances = [];
      for (let i = 0; i < 2; i++) {
        const server = startServer(target.env);
        servers.push(server);
        instances.push({ base: await server.started(), stop: () => server.stop() });
      }
    } else {
      const first = await createTestApp();
      const second = await createTestApp({ database: { ...first.database, drop: async () => {} } });
      const created = await first.createTenant();
      tenant = created;
      instances = await Promise.all(
        [second, first].map(async (app) => {
          const server = await listen(app);
          return { base: server.base, stop: async () => (await server.close(), await app.close()) };
        }),
      );
    }
  }, 240_000);

  afterAll(async () => {
    for (const instance of instances) await instance.stop();
    await target?.cleanup();
  });

  test('a load written on one instance reaches subscribers on both', async () => {
    const [a, b] = instances as [Instance, Instance];
    const onA = await subscribeSse(a.base, tenant.apiKey, subscription);
    const onB = await subscribeSse(b.base, tenant.apiKey, subscription);
    await Promise.all([onA.keepAlive(), onB.keepAlive()]);
    const body = loadBody(tenant);
    const res = await post(b.base, tenant.apiKey, body);
    expect(res.status).toBe(200);
    for (const sub of [onA, onB]) {
      expect((await sub.next()).data.loadEvents).toEqual({ cursor: '1', type: 'load.created', loadPermalink: body.native_system_load_permalink });
    }
    // And the other way round.
    const second = loadBody(tenant);
    expect((await post(a.base, tenant.apiKey, second)).status).toBe(200);
    for (const sub of [onA, onB]) expect((await sub.next()).data.loadEvents).toMatchObject({ cursor: '2', loadPermalink: second.native_system_load_permalink });
    await Promise.all([onA.close(), onB.close()]);
  });
});
