/**
 * Webhook delivery end to end over real HTTP: events recorded by ingestion reach a receiver on
 * 127.0.0.1, signed per Standard Webhooks (checked with the `standardwebhooks` package), retried on
 * the schedule, in order per load; endpoints that fail for 5 days are disabled.
 */
import { Webhook } from 'standardwebhooks';
import { loadBody, loadUpdateBody, routes, seed, seedLoadTree, stopBody } from '../../factories/records.js';
import { createEndpoint, describe, endpointWithDeliveries, expect, test } from './setup.js';

const second = 1000;
const minute = 60 * second;
const hour = 60 * minute;

describe('webhook delivery', { timeout: 300_000 }, () => {
  test('a new load reaches the endpoint once, signed per Standard Webhooks, with body {type, timestamp, data}', async ({ testApp, api, tenant, receiver }) => {
    const { id, secret } = await createEndpoint(api, `${receiver.url}/hooks`, ['load.created']);
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]+=*$/);
    const load = await seed(api, routes.load, loadBody(tenant));
    await testApp.app.webhooks.drain();

    expect(receiver.received).toHaveLength(1);
    const [hook] = receiver.received;
    expect(hook!.path).toBe('/hooks');
    expect(hook!.headers['content-type']).toBe('application/json');
    // A receiver no one here wrote accepts the signature and returns the payload.
    const payload = new Webhook(secret).verify(hook!.body, hook!.webhookHeaders) as any;
    expect(payload).toEqual(hook!.json);
    expect(Object.keys(payload).sort()).toEqual(['data', 'timestamp', 'type']);
    expect(payload.type).toBe('load.created');
    expect(payload.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    expect(payload.data.load).toMatchObject({ permalink: load.native_system_load_permalink, bolNumber: load.bol_number });
    expect(hook!.webhookHeaders['webhook-id']).toMatch(/^msg_\d+$/);
    expect(Math.abs(Number(hook!.webhookHeaders['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(60);
    // A wrong secret or a changed body fails verification.
    expect(() => new Webhook(`whsec_${Buffer.from('another secret of 32 bytes......').toString('base64')}`).verify(hook!.body, hook!.webhookHeaders)).toThrow();
    expect(() => new Webhook(secret).verify(hook!.body.replace('load.created', 'load.changed'), hook!.webhookHeaders)).toThrow();

    const endpoint = await endpointWithDeliveries(api, id);
    expect(endpoint.failingSince).toBeNull();
    expect(endpoint.deliveries).toHaveLength(1);
    expect(endpoint.deliveries[0]).toMatchObject({
      webhookId: hook!.webhookHeaders['webhook-id'],
      eventType: 'load.created',
      loadPermalink: load.native_system_load_permalink,
      state: 'SUCCEEDED',
      attemptCount: 1,
      nextAttemptAt: null,
      replay: false,
      payload,
    });
    expect(endpoint.deliveries[0].attempts).toEqual([{ attemptedAt: expect.any(String), httpStatus: 204, error: null, durationMs: expect.any(Number) }]);
    // Nothing is left to send.
    await testApp.app.webhooks.drain();
    expect(receiver.received).toHaveLength(1);
  });

  test('only subscribed event types are queued; a stop arrival is delivered as stop.arrived', async ({ testApp, api, tenant, receiver }) => {
    await createEndpoint(api, receiver.url, ['stop.arrived']);
    const { leg } = await seedLoadTree(api, tenant);
    await testApp.app.webhooks.drain();
    expect(receiver.received).toEqual([]);
    const stop = await seed(api, routes.stop, stopBody(tenant, leg, { arrived_at: '2026-11-23T08:00:00Z' }));
    await testApp.app.webhooks.drain();
    expect(receiver.received.map((r) => r.json.type)).toEqual(['stop.arrived']);
    expect(receiver.received[0]!.json.data.stop.permalink).toBe(stop.native_system_stop_permalink);
  });

  test('a failing endpoint is retried after 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, then the delivery is FAILED', async ({
    testApp,
    api,
    tenant,
    receiver,
  }) => {
    receiver.respond = () => 500;
    const { id } = await createEndpoint(api, receiver.url, ['load.created']);
    await seed(api, routes.load, loadBody(tenant));
    await testApp.app.webhooks.drain();
    expect(receiver.received).toHaveLength(1);
    const schedule = [5 * second, 5 * minute, 30 * minute, 2 * hour, 5 * hour, 10 * hour, 10 * hour];
    for (const [i, delay] of schedule.entries()) {
      // A minute before the next attempt is due, nothing is sent (the test clock also runs in real
      // time, so the 5 s step gets no such check on a loaded machine).
      if (delay > minute) {
        testApp.clock.advance(delay - minute);
        await testApp.app.webhooks.drain();
        expect(receiver.received).toHaveLength(i + 1);
        testApp.clock.advance(minute);
      } else testApp.clock.advance(delay);
      await testApp.app.webhooks.drain();
      expect(receiver.received).toHaveLength(i + 2);
    }
    // Every attempt carried the same message id; the delivery is FAILED and never sent again.
    expect(new Set(receiver.received.map((r) => r.webhookHeaders['webhook-id'])).size).toBe(1);
    testApp.clock.advance(24 * hour);
    await testApp.app.webhooks.drain();
    expect(receiver.received).toHaveLength(8);
    const endpoint = await endpointWithDeliveries(api, id);
    const [delivery] = endpoint.deliveries;
    expect(delivery).toMatchObject({ state: 'FAILED', attemptCount: 8, nextAttemptAt: null, completedAt: expect.any(String) });
    expect(delivery.attempts).toHaveLength(8);
    expect(delivery.attempts.every((a: any) => a.httpStatus === 500 && a.error === 'HTTP 500')).toBe(true);
    const gaps = delivery.attempts.slice(1).map((a: any, i: number) => Date.parse(a.attemptedAt) - Date.parse(delivery.attempts[i].attemptedAt));
    gaps.forEach((gap: number, i: number) => expect(gap).toBeGreaterThanOrEqual(schedule[i]!));
    // About 27.6 hours of failures: not yet disabled, but it says since when it fails.
    expect(endpoint).toMatchObject({ enabled: true, failingSince: delivery.attempts[0].attemptedAt });
  });

  test('no answer within the time limit, a redirect and a refused connection are failed attempts with their reasons', async ({
    testApp,
    api,
    tenant,
    receiver,
  }) => {
    receiver.respond = (request) => (request.path === '/slow' ? 'hang' : { status: 302, headers: { location: `${receiver.url}/elsewhere` } });
    const slow = await createEndpoint(api, `${receiver.url}/slow`, ['load.created']);
    const moved = await createEndpoint(api, `${receiver.url}/moved`, ['load.created']);
    const closed = await createEndpoint(api, 'http://127.0.0.1:9/closed', ['load.created']);
    await seed(api, routes.load, loadBody(tenant));
    await testApp.app.webhooks.drain();
    // The redirect was not followed. (While the slow attempt waits out its 15 s, drain() also sends
    // the retries that fall due meanwhile, so /moved may have been tried twice.)
    expect(new Set(receiver.received.map((r) => r.path))).toEqual(new Set(['/moved', '/slow']));
    const attemptOf = async (id: string) => (await endpointWithDeliveries(api, id)).deliveries[0];
    const [s, m, c] = [await attemptOf(slow.id), await attemptOf(moved.id), await attemptOf(closed.id)];
    expect(s).toMatchObject({ state: 'PENDING' });
    expect(s.attempts[0]).toMatchObject({ httpStatus: null, error: 'no answer within 15 s' });
    expect(m.attempts[0]).toMatchObject({ httpStatus: 302, error: 'HTTP 302: redirects are not followed' });
    expect(c.attempts[0]).toMatchObject({ httpStatus: null, error: expect.stringMatching(/ECONNREFUSED/) });
    // The retry is due at least 5 s after the failure.
    expect(Date.parse(s.nextAttemptAt) - Date.parse(s.attempts[0].attemptedAt)).toBeGreaterThanOrEqual(5 * second);
  });

  test('deliveries of one load arrive in event order even when one must be retried; other loads are not held up', async ({
    testApp,
    api,
    tenant,
    receiver,
  }) => {
    const { id } = await createEndpoint(api, receiver.url, ['load.created', 'load.changed', 'load_update.received']);
    const [aBody, bBody] = [loadBody(tenant), loadBody(tenant)];
    // Load A's first event fails until the test lets it through (set before any write: a delivery may
    // start as soon as its event commits, before drain()).
    let failA = true;
    receiver.respond = (request) =>
      failA && request.json.type === 'load.created' && request.json.data.load.permalink === aBody.native_system_load_permalink ? 503 : 200;
    const a = await seed(api, routes.load, aBody);
    const b = await seed(api, routes.load, bBody);
    await seed(api, routes.load, { ...a, bol_number: 'A-2' });
    await seed(api, routes.load_update, loadUpdateBody(tenant, a));
    await seed(api, routes.load, { ...b, bol_number: 'B-2' });
    await testApp.app.webhooks.drain();
    const permalinkOf = (r: (typeof receiver.received)[number]) => r.json.data.load?.permalink ?? r.json.data.loadPermalink;
    const seen = () => receiver.received.map((r) => `${permalinkOf(r) === a.native_system_load_permalink ? 'A' : 'B'}:${r.json.type}`);
    // A's later events wait for its first; B's go through, in order.
    expect(seen().filter((e) => e !== 'A:load.created')).toEqual(['B:load.created', 'B:load.changed']);
    failA = false;
    testApp.clock.advance(6 * minute);
    await testApp.app.webhooks.drain();
    // A: its first event (tried until it succeeded), then the rest in event order.
    const forA = seen().filter((e) => e.startsWith('A'));
    expect(forA.filter((e, i) => !(e === 'A:load.created' && forA[i + 1] === 'A:load.created'))).toEqual([
      'A:load.created',
      'A:load.changed',
      'A:load_update.received',
    ]);
    const deliveries = (await endpointWithDeliveries(api, id)).deliveries;
    expect(deliveries.map((d: any) => d.state)).toEqual(Array(5).fill('SUCCEEDED'));
  });

  test('an endpoint whose attempts fail for 5 days is disabled, says so in webhookEndpoints and ingestHealth, and can be re-enabled', async ({
    testApp,
    api,
    tenant,
    receiver,
  }) => {
    receiver.respond = () => 500;
    const { id } = await createEndpoint(api, receiver.url, ['load.created', 'load.changed']);
    const load = await seed(api, routes.load, loadBody(tenant));
    await testApp.app.webhooks.drain();
    const health = async () =>
      (await api.graphql('{ ingestHealth { webhookEndpoints { id enabled failingSince disabledAt disabledReason } } }')).body.data.ingestHealth
        .webhookEndpoints;
    expect(await health()).toEqual([{ id, enabled: true, failingSince: expect.any(String), disabledAt: null, disabledReason: null }]);
    // Four days later a new event still fails: failing, not disabled.
    testApp.clock.advance(4 * 24 * hour);
    await seed(api, routes.load, { ...load, bol_number: 'day-4' });
    await testApp.app.webhooks.drain();
    expect((await endpointWithDeliveries(api, id)).enabled).toBe(true);
    // Past 5 days of failures, the next failed attempt disables it.
    testApp.clock.advance(24 * hour + minute);
    await testApp.app.webhooks.drain();
    const disabled = await endpointWithDeliveries(api, id);
    expect(disabled).toMatchObject({ enabled: false, disabledAt: expect.any(String), disabledReason: expect.stringMatching(/failed for 5 days/) });
    expect(await health()).toEqual([
      { id, enabled: false, failingSince: disabled.failingSince, disabledAt: disabled.disabledAt, disabledReason: disabled.disabledReason },
    ]);
    // Disabled: nothing new is queued or sent.
    const sent = receiver.received.length;
    await seed(api, routes.load, { ...load, bol_number: 'while-disabled' });
    testApp.clock.advance(24 * hour);
    await testApp.app.webhooks.drain();
    expect(receiver.received).toHaveLength(sent);
    expect((await endpointWithDeliveries(api, id)).deliveries.some((d: any) => d.payload.data.load?.bolNumber === 'while-disabled')).toBe(false);
    // Re-enabled: the failure run starts over and queued deliveries resume.
    receiver.respond = () => 200;
    const res = await api.graphql(
      `mutation($id: ID!) { updateWebhookEndpoint(id: $id, input: {enabled: true}) { enabled failingSince disabledAt disabledReason } }`,
      { id },
    );
    expect(res.body.data.updateWebhookEndpoint).toEqual({ enabled: true, failingSince: null, disabledAt: null, disabledReason: null });
    await testApp.app.webhooks.drain();
    expect(receiver.received.length).toBeGreaterThan(sent);
    expect(receiver.received.at(-1)!.json.data.load.bolNumber).toBe('day-4');
    expect(await health()).toEqual([]);
  });
});
