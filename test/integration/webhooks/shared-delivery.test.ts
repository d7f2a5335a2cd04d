/**
 * Two app instances on one database share the delivery work without sending anything twice: on
 * PostgreSQL each has its own connection pool (really in parallel, FOR UPDATE SKIP LOCKED decides);
 * on PGlite they share the embedded database.
 */
import { vi } from 'vitest';
import { type apiFor, secondInstance as anotherInstance, type TestApp } from '../../helpers/app.js';
import { loadBody, loadUpdateBody, routes, seed } from '../../factories/records.js';
import { createEndpoint, describe, expect, test, webhookEnv } from './setup.js';
import type { WebhookReceiver } from '../../helpers/webhook-receiver.js';
import { claimSql, createWebhookWorker, dueTenantsSql } from '../../../src/domain/webhook/worker.js';
import type { Database } from '../../../src/db/database.js';

/** A second instance with the webhook settings of this file's app. */
const secondInstance = (testApp: TestApp, env: Record<string, string> = {}) => anotherInstance(testApp, { ...webhookEnv, ...env });

async function seedEvents(api: ReturnType<typeof apiFor>, tenant: { slug: string }, loads: number) {
  const permalinks: string[] = [];
  for (let i = 0; i < loads; i++) {
    const load = await seed(api, routes.load, loadBody(tenant));
    permalinks.push(load.native_system_load_permalink as string);
    await Promise.all([seed(api, routes.load_update, loadUpdateBody(tenant, load)), seed(api, routes.load, { ...load, bol_number: `B-${i}` })]);
  }
  return permalinks;
}

async function expectEachOnceInOrder(testApp: TestApp, receiver: WebhookReceiver, expected: number) {
  const ids = receiver.received.map((r) => `${r.path} ${r.webhookHeaders['webhook-id']}`);
  expect(ids).toHaveLength(expected);
  expect(new Set(ids).size).toBe(expected);
  // Per endpoint and load, events arrive in their order: their seq (commit order), which the message id (the
  // event's id, taken at insert) need not follow when two writes of one load commit in the other order.
  const seqs = new Map(
    (await testApp.app.services.db.sql.query<{ id: string; seq: string }>('SELECT id::text, seq::text FROM load_events', [])).map((e) => [e.id, Number(e.seq)]),
  );
  const last = new Map<string, number>();
  for (const r of receiver.received) {
    const key = `${r.path} ${r.json.data.load?.permalink ?? r.json.data.loadPermalink}`;
    const seq = seqs.get(r.webhookHeaders['webhook-id']!.slice('msg_'.length))!;
    expect(seq).toBeGreaterThan(last.get(key) ?? 0);
    last.set(key, seq);
  }
}

const attemptsCounted = async (app: TestApp, slug: string) => {
  const text = await (await app.fetch('/metrics')).text();
  const line = text.split('\n').find((l) => l.startsWith(`webhook_delivery_attempts_total{tenant="${slug}",outcome="success"} `));
  return Number(line?.split(' ')[1] ?? 0);
};

describe('two instances sharing delivery', { timeout: 300_000 }, () => {
  test('draining on both instances at once sends every delivery exactly once, in order per load', async ({ testApp, api, tenant, receiver }) => {
    const other = await secondInstance(testApp);
    try {
      receiver.respond = () => ({ status: 200, delayMs: 20 });
      await createEndpoint(api, `${receiver.url}/a`, ['load.created', 'load.changed', 'load_update.received']);
      await createEndpoint(api, `${receiver.url}/b`, ['load.created', 'load.changed', 'load_update.received']);
      await seedEvents(api, tenant, 8);
      await Promise.all([testApp.app.webhooks.drain(), other.app.app.webhooks.drain(), testApp.app.webhooks.drain(), other.app.app.webhooks.drain()]);
      await expectEachOnceInOrder(testApp, receiver, 2 * 8 * 3);
      // The two instances' attempt counters add up to the deliveries: nothing was sent twice.
      expect((await attemptsCounted(testApp, tenant.slug)) + (await attemptsCounted(other.app, tenant.slug))).toBe(48);
    } finally {
      await other.close();
    }
  });

  test('running workers on both instances deliver everything once and stop cleanly', async ({ testApp, api, tenant, receiver }) => {
    const env = { WEBHOOK_POLL_INTERVAL_MS: '20' };
    const one = await secondInstance(testApp, env);
    const two = await secondInstance(testApp, env);
    try {
      await createEndpoint(api, receiver.url, ['load.created', 'load.changed', 'load_update.received']);
      one.app.app.webhooks.start();
      two.app.app.webhooks.start();
      await seedEvents(api, tenant, 6);
      await vi.waitFor(() => expect(receiver.received.length).toBeGreaterThanOrEqual(18), { timeout: 180_000, interval: 50 });
      await Promise.all([one.app.app.webhooks.stop(), two.app.app.webhooks.stop()]);
      await expectEachOnceInOrder(testApp, receiver, 18);
    } finally {
      await one.close();
      await two.close();
    }
  });

  test('a delivery queued while the worker was starting to listen is sent at once, not at its next poll', async ({ testApp, api, tenant, receiver }) => {
    await createEndpoint(api, receiver.url, ['load.created']);
    const { db, clock, logger, config } = testApp.app.services;
    // The worker's LISTEN is held until the delivery is queued and its notification sent (heard by no one).
    let open!: () => void;
    const listening = new Promise<void>((resolve) => (open = resolve));
    const held: Database = { ...db, listen: async (...args) => listening.then(() => db.listen(...args)) };
    const settings = { ...config.webhooks, pollIntervalMs: 60_000, retentionMs: config.events.retentionMs };
    const worker = createWebhookWorker({ db: held, clock, logger, settings });
    worker.start();
    try {
      const load = await seed(api, routes.load, loadBody(tenant));
      await testApp.app.services.sequencer.idle();
      open();
      // Its first look over every tenant comes once it listens: long before the next poll, a minute on.
      await vi.waitFor(() => expect(receiver.received).toHaveLength(1), { timeout: 30_000, interval: 20 });
      expect(receiver.received[0]!.json.data.load.permalink).toBe(load.native_system_load_permalink);
    } finally {
      open();
      await worker.stop();
    }
  });

  test("a pass's notification wakes a running worker for that tenant alone: no look over every tenant between its polls", async ({
    testApp,
    api,
    tenant,
    receiver,
  }) => {
    // Polls a minute apart: within the test only the start's look over every tenant is one.
    const worker = await secondInstance(testApp, { WEBHOOK_POLL_INTERVAL_MS: '60000' });
    const statements: string[] = [];
    const stop = worker.app.database.db.onStatement((sql) => statements.push(sql));
    try {
      await createEndpoint(api, receiver.url, ['load.created']);
      worker.app.app.webhooks.start();
      await vi.waitFor(() => expect(statements).toContain(dueTenantsSql), { timeout: 60_000, interval: 20 });
      const load = await seed(api, routes.load, loadBody(tenant));
      await vi.waitFor(() => expect(receiver.received).toHaveLength(1), { timeout: 60_000, interval: 20 });
      expect(receiver.received[0]!.json.data.load.permalink).toBe(load.native_system_load_permalink);
      expect(
        statements.filter((sql) => sql === dueTenantsSql),
        'the start looked over every tenant; the notification did not',
      ).toHaveLength(1);
      expect(statements, "the notification's tenant was claimed for").toContain(claimSql);
      await worker.app.app.webhooks.stop();
    } finally {
      stop();
      await worker.close();
    }
  });
});
