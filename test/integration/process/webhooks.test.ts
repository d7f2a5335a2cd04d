/**
 * `npm start` runs the webhook delivery worker: a load posted to the server process reaches a
 * receiver on 127.0.0.1, signed, without any test hook; SIGTERM still exits 0. A write committed
 * without its numbering pass (as when an instance is killed between the two) is numbered and
 * delivered by the next start, with no request and no maintenance tick.
 */
import { vi } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { describe, expect, test } from '../../fixtures.js';
import { migrate } from '../../../src/db/migrate.js';
import { createTenant } from '../../../src/domain/tenant/service.js';
import { editLoad } from '../../../src/domain/load/edit.js';
import { loadBody, routes } from '../../factories/records.js';
import { uniqueSlug } from '../../helpers/app.js';
import { startReceiver } from '../../helpers/webhook-receiver.js';
import { targets } from '../cli/targets.js';
import { startServer } from './server-process.js';

/** Creates a webhook endpoint for one event type over the server's GraphQL; the answer carries its secret. */
const createEndpoint = (base: string, headers: Record<string, string>, url: string, eventType: string) =>
  fetch(`${base}/graphql`, {
    method: 'POST',
    headers,
    body: JSON.stringify({
      query: `mutation($url: String!, $types: [String!]!) { createWebhookEndpoint(input: {url: $url, eventTypes: $types}) { secret } }`,
      variables: { url, types: [eventType] },
    }),
  });

describe.each(targets)('webhooks from the server process ($name)', { timeout: 240_000 }, ({ create }) => {
  test('a posted load is delivered to the endpoint created over GraphQL, with a valid signature', async () => {
    const target = await create();
    const receiver = await startReceiver();
    try {
      const slug = uniqueSlug();
      const { apiKey } = await target.withDatabase(async (db) => {
        await migrate(db.adapterFactory);
        return createTenant(db, { slug, name: 'Webhook process test' });
      });
      const server = startServer({ ...target.env, WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_POLL_INTERVAL_MS: '100' });
      try {
        const base = await server.started();
        const headers = { 'content-type': 'application/json', 'x-api-key': apiKey };
        const created = await createEndpoint(base, headers, `${receiver.url}/process`, 'load.created');
        const { secret } = (await created.json()).data.createWebhookEndpoint;
        const load = loadBody({ slug });
        const posted = await fetch(`${base}${routes.load}`, { method: 'POST', headers, body: JSON.stringify(load) });
        expect(posted.status).toBe(200);
        await vi.waitFor(() => expect(receiver.received).toHaveLength(1), { timeout: 60_000, interval: 100 });
        const [hook] = receiver.received;
        const payload = new Webhook(secret).verify(hook!.body, hook!.webhookHeaders) as any;
        expect(payload).toMatchObject({ type: 'load.created', data: { load: { permalink: load.native_system_load_permalink } } });
      } finally {
        expect(await server.stop()).toBe(0);
      }
    } finally {
      await receiver.close();
      await target.cleanup();
    }
  });

  test('a write committed without its numbering pass is numbered and delivered by the next start', async () => {
    const target = await create();
    const receiver = await startReceiver();
    // Only the start-up can number it: the maintenance's first tick is an hour away.
    const env = { ...target.env, WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', WEBHOOK_POLL_INTERVAL_MS: '100', EVENTS_MAINTENANCE_INTERVAL_MS: '3600000' };
    try {
      const slug = uniqueSlug();
      const { apiKey, tenant } = await target.withDatabase(async (db) => {
        await migrate(db.adapterFactory);
        return createTenant(db, { slug, name: 'Numbered at start-up' });
      });
      const headers = { 'content-type': 'application/json', 'x-api-key': apiKey };
      const load = loadBody({ slug });
      const first = startServer(env);
      try {
        const base = await first.started();
        const created = await createEndpoint(base, headers, `${receiver.url}/restart`, 'load.changed');
        expect(created.status).toBe(200);
        expect((await fetch(`${base}${routes.load}`, { method: 'POST', headers, body: JSON.stringify(load) })).status).toBe(200);
      } finally {
        expect(await first.stop()).toBe(0);
      }
      // The write of an instance that died after its commit: its event recorded, no pass run.
      const unnumbered = await target.withDatabase(async (db) => {
        await editLoad({ db, tenant, permalink: load.native_system_load_permalink as string, patch: { bol_number: 'AFTER-CRASH' }, now: new Date() });
        return db.prisma.loadEvent.count({ where: { tenantId: tenant.id, seq: null } });
      });
      expect(unnumbered).toBe(1);
      expect(receiver.received).toEqual([]);
      const second = startServer(env);
      try {
        await second.started();
        await vi.waitFor(() => expect(receiver.received).toHaveLength(1), { timeout: 60_000, interval: 100 });
        expect(JSON.parse(receiver.received[0]!.body)).toMatchObject({
          type: 'load.changed',
          data: { changedFields: ['bolNumber'], load: { bolNumber: 'AFTER-CRASH' } },
        });
      } finally {
        expect(await second.stop()).toBe(0);
      }
    } finally {
      await receiver.close();
      await target.cleanup();
    }
  });
});
