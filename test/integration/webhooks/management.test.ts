/**
 * Managing webhook endpoints over GraphQL: create (secret once), list, update, delete, rotate the
 * secret (both sign for 24 h), replay; tenancy and the read-only admin key; private addresses
 * refused at creation and at delivery; /metrics.
 */
import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { apiFor, createTestApp } from '../../helpers/app.js';
import { loadBody, routes, seed } from '../../factories/records.js';
import { createEndpoint, describe, endpointFields, endpointWithDeliveries, errorCode, expect, test, webhookEnv } from './setup.js';

const hour = 3600_000;
const adminKey = 'admin-key-for-webhook-tests-0123456789';

const sign = (secret: string, id: string, ts: string, body: string) =>
  `v1,${createHmac('sha256', Buffer.from(secret.slice('whsec_'.length), 'base64'))
    .update(`${id}.${ts}.${body}`)
    .digest('base64')}`;

describe('webhook endpoints over GraphQL', { timeout: 300_000 }, () => {
  test('create returns the endpoint and its secret once; webhookEndpoints lists it without the secret; update and delete', async ({ api, receiver }) => {
    const { id, secret, endpoint } = await createEndpoint(api, receiver.url, ['load.created', 'load.created', 'stop.arrived'], 'Ops dashboard');
    expect(secret).toMatch(/^whsec_/);
    expect(endpoint).toMatchObject({
      url: receiver.url,
      description: 'Ops dashboard',
      eventTypes: ['load.created', 'stop.arrived'],
      enabled: true,
      failingSince: null,
    });
    const list = await api.graphql(`{ webhookEndpoints { ${endpointFields} } }`);
    expect(list.body.data.webhookEndpoints).toEqual([endpoint]);
    expect(JSON.stringify(list.body)).not.toContain(secret);

    const updated = await api.graphql(
      `mutation($id: ID!, $input: WebhookEndpointPatch!) { updateWebhookEndpoint(id: $id, input: $input) { url eventTypes description enabled disabledReason } }`,
      { id, input: { url: `${receiver.url}/v2`, eventTypes: ['load.changed'], description: null, enabled: false } },
    );
    expect(updated.body.data.updateWebhookEndpoint).toEqual({
      url: `${receiver.url}/v2`,
      eventTypes: ['load.changed'],
      description: null,
      enabled: false,
      disabledReason: 'Disabled by the tenant.',
    });
    const del = `mutation($id: ID!) { deleteWebhookEndpoint(id: $id) }`;
    expect((await api.graphql(del, { id })).body.data.deleteWebhookEndpoint).toBe(true);
    expect((await api.graphql(del, { id })).body.data.deleteWebhookEndpoint).toBe(false);
    expect((await api.graphql(`{ webhookEndpoints { id } }`)).body.data.webhookEndpoints).toEqual([]);
  });

  test('invalid input is validation_failed naming every offending field', async ({ api }) => {
    const res = await api.graphql(`mutation($input: WebhookEndpointInput!) { createWebhookEndpoint(input: $input) { secret } }`, {
      input: { url: 'ftp://example.com/x', eventTypes: ['load.created', 'load.exploded'], description: 'x'.repeat(501) },
    });
    expect(res.body.errors[0].extensions.code).toBe('validation_failed');
    expect(res.body.errors[0].extensions.details.map((d: any) => d.field).sort()).toEqual(['input.description', 'input.eventTypes', 'input.url']);
    const empty = await api.graphql(`mutation { createWebhookEndpoint(input: {url: "https://example.com", eventTypes: []}) { secret } }`);
    expect(empty.body.errors[0].extensions.details).toEqual([{ field: 'input.eventTypes', issue: 'must name at least one event type' }]);
    const creds = await api.graphql(`mutation { createWebhookEndpoint(input: {url: "https://user:pw@example.com", eventTypes: ["load.created"]}) { secret } }`);
    expect(creds.body.errors[0].extensions.details[0].field).toBe('input.url');
  });

  test("another tenant's endpoint is not found: no reading, changing, rotating, replaying or deleting it", async ({ api, otherApi, receiver }) => {
    const { id } = await createEndpoint(api, receiver.url, ['load.created']);
    expect((await otherApi.graphql(`{ webhookEndpoints { id } }`)).body.data.webhookEndpoints).toEqual([]);
    expect((await otherApi.graphql(`query($id: ID!) { webhookEndpoint(id: $id) { id } }`, { id })).body.data.webhookEndpoint).toBeNull();
    expect(await errorCode(otherApi, `mutation($id: ID!) { updateWebhookEndpoint(id: $id, input: {enabled: false}) { id } }`, { id })).toBe('not_found');
    expect(await errorCode(otherApi, `mutation($id: ID!) { rotateWebhookSecret(id: $id) { secret } }`, { id })).toBe('not_found');
    expect(await errorCode(otherApi, `mutation($id: ID!) { replayWebhookDeliveries(endpointId: $id, since: "2020-01-01T00:00:00Z") }`, { id })).toBe(
      'not_found',
    );
    expect((await otherApi.graphql(`mutation($id: ID!) { deleteWebhookEndpoint(id: $id) }`, { id })).body.data.deleteWebhookEndpoint).toBe(false);
    expect(await errorCode(otherApi, `mutation { rotateWebhookSecret(id: "not-a-uuid") { secret } }`)).toBe('not_found');
    expect((await api.graphql(`{ webhookEndpoints { id enabled } }`)).body.data.webhookEndpoints).toEqual([{ id, enabled: true }]);
  });

  test('rotation: the new secret is shown once; both secrets sign for 24 hours, then only the new one', async ({ testApp, api, tenant, receiver }) => {
    const { id, secret: oldSecret } = await createEndpoint(api, receiver.url, ['load.created', 'load.changed']);
    const rotated = await api.graphql(`mutation($id: ID!) { rotateWebhookSecret(id: $id) { secret endpoint { id previousSecretExpiresAt } } }`, { id });
    const { secret: newSecret, endpoint } = rotated.body.data.rotateWebhookSecret;
    expect(newSecret).toMatch(/^whsec_/);
    expect(newSecret).not.toBe(oldSecret);
    expect(Date.parse(endpoint.previousSecretExpiresAt) - Date.now()).toBeGreaterThan(23 * hour);

    const load = await seed(api, routes.load, loadBody(tenant));
    await testApp.app.webhooks.drain();
    const [during] = receiver.received;
    expect(during!.webhookHeaders['webhook-signature']!.split(' ')).toHaveLength(2);
    // A receiver still on the old secret, and one already on the new, both verify.
    expect(new Webhook(newSecret).verify(during!.body, during!.webhookHeaders)).toEqual(during!.json);
    expect(new Webhook(oldSecret).verify(during!.body, during!.webhookHeaders)).toEqual(during!.json);

    testApp.clock.advance(24 * hour + 1000);
    await seed(api, routes.load, { ...load, bol_number: 'after-rotation' });
    await testApp.app.webhooks.drain();
    const after = receiver.received[1]!;
    const { 'webhook-id': msgId, 'webhook-timestamp': ts, 'webhook-signature': signature } = after.webhookHeaders;
    // (The test clock is a day ahead, so standardwebhooks' 5-minute timestamp window would refuse it: check by hand.)
    expect(signature).toBe(sign(newSecret, msgId!, ts!, after.body));
    expect((await endpointWithDeliveries(api, id)).previousSecretExpiresAt).toBeNull();
  });

  test('replay queues the deliveries of a time window again, with the same webhook-id and body, in event order', async ({ testApp, api, tenant, receiver }) => {
    const { id } = await createEndpoint(api, receiver.url, ['load.created', 'load.changed']);
    const load = await seed(api, routes.load, loadBody(tenant));
    await seed(api, routes.load, { ...load, bol_number: 'second' });
    await testApp.app.webhooks.drain();
    testApp.clock.advance(hour);
    const since = new Date(Date.now() - 5 * 60_000).toISOString();
    const boundary = new Date(Date.now() + 30 * 60_000).toISOString();
    await seed(api, routes.load, { ...load, bol_number: 'later' });
    await testApp.app.webhooks.drain();
    expect(receiver.received).toHaveLength(3);

    const replay = `mutation($id: ID!, $since: DateTime!, $until: DateTime) { replayWebhookDeliveries(endpointId: $id, since: $since, until: $until) }`;
    expect((await api.graphql(replay, { id, since, until: boundary })).body.data.replayWebhookDeliveries).toBe(2);
    await testApp.app.webhooks.drain();
    const first = receiver.received.slice(0, 2);
    const replayed = receiver.received.slice(3);
    expect(replayed.map((r) => r.webhookHeaders['webhook-id'])).toEqual(first.map((r) => r.webhookHeaders['webhook-id']));
    expect(replayed.map((r) => r.body)).toEqual(first.map((r) => r.body));
    const deliveries = (await endpointWithDeliveries(api, id)).deliveries;
    expect(deliveries.filter((d: any) => d.replay)).toHaveLength(2);
    expect(deliveries.every((d: any) => d.state === 'SUCCEEDED')).toBe(true);
    // until defaults to now; an empty window is refused.
    expect((await api.graphql(replay, { id, since })).body.data.replayWebhookDeliveries).toBe(3);
    expect(await errorCode(api, replay, { id, since: boundary, until: since })).toBe('validation_failed');
  });

  test('the admin key reads endpoints and deliveries of the X-Tenant tenant but cannot change them', async ({ testApp, api, tenant, receiver }) => {
    const app = await createTestApp({ database: testApp.database, env: { ...webhookEnv, ADMIN_API_KEY: adminKey } });
    try {
      const { id } = await createEndpoint(api, receiver.url, ['load.created']);
      await seed(api, routes.load, loadBody(tenant));
      await testApp.app.webhooks.drain();
      const admin = apiFor(app, adminKey);
      const asAdmin = { 'x-tenant': tenant.slug };
      const read = await endpointWithDeliveries(admin, id, 10, asAdmin);
      expect(read.deliveries).toHaveLength(1);
      expect(read.deliveries[0].attempts[0].httpStatus).toBe(204);
      expect((await admin.graphql(`{ webhookEndpoints { id } }`, undefined, asAdmin)).body.data.webhookEndpoints).toEqual([{ id }]);
      const writes: [string, Record<string, unknown>][] = [
        [`mutation { createWebhookEndpoint(input: {url: "${receiver.url}", eventTypes: ["load.created"]}) { secret } }`, {}],
        [`mutation($id: ID!) { updateWebhookEndpoint(id: $id, input: {enabled: false}) { id } }`, { id }],
        [`mutation($id: ID!) { deleteWebhookEndpoint(id: $id) }`, { id }],
        [`mutation($id: ID!) { rotateWebhookSecret(id: $id) { secret } }`, { id }],
        [`mutation($id: ID!) { replayWebhookDeliveries(endpointId: $id, since: "2020-01-01T00:00:00Z") }`, { id }],
      ];
      for (const [query, variables] of writes) expect(await errorCode(admin, query, variables, asAdmin)).toBe('forbidden');
      expect((await api.graphql(`{ webhookEndpoints { id enabled } }`)).body.data.webhookEndpoints).toEqual([{ id, enabled: true }]);
    } finally {
      await app.close();
    }
  });

  test('private, loopback and link-local addresses are refused at creation and at delivery unless allowed', async ({ testApp, api, tenant, receiver }) => {
    const strict = await createTestApp({ database: testApp.database });
    try {
      const strictApi = apiFor(strict, tenant.apiKey);
      const refused = [
        'http://127.0.0.1/x',
        'http://localhost:8080/x',
        'http://169.254.169.254/latest/meta-data',
        'http://10.1.2.3/',
        'http://192.168.0.10/',
        'http://172.16.5.4/',
        'http://100.64.0.1/',
        'http://0.0.0.0/',
        'http://[::1]/',
        'http://[fe80::1]/',
        'http://[fd00::1]/',
        'http://[::ffff:127.0.0.1]/',
        'https://[::ffff:a9fe:a9fe]/',
      ];
      for (const url of refused) {
        const res = await strictApi.graphql(`mutation($url: String!) { createWebhookEndpoint(input: {url: $url, eventTypes: ["load.created"]}) { secret } }`, {
          url,
        });
        expect(res.body.errors?.[0]?.extensions, url).toMatchObject({ code: 'validation_failed', details: [{ field: 'input.url' }] });
      }
      // Public addresses are accepted (no connection is made at creation).
      await createEndpoint(strictApi, 'https://93.184.215.14/hooks', ['stop.arrived']);
      // Changing the URL is checked the same way.
      const { id } = await createEndpoint(strictApi, 'https://[2606:4700:4700::1111]/hooks', ['stop.arrived']);
      expect(await errorCode(strictApi, `mutation($id: ID!) { updateWebhookEndpoint(id: $id, input: {url: "http://127.0.0.1/"}) { id } }`, { id })).toBe(
        'validation_failed',
      );

      // Saved while private networks were allowed, refused by a strict instance when it connects:
      // by IP literal and by a name that resolves to loopback.
      const literal = await createEndpoint(api, `${receiver.url}/literal`, ['load.created']);
      const named = await createEndpoint(api, `http://localhost:${receiver.port}/named`, ['load.created']);
      await seed(api, routes.load, loadBody(tenant));
      // The write's deliveries are queued by the numbering pass of the instance that wrote it.
      await testApp.app.services.sequencer.idle();
      await strict.app.webhooks.drain();
      expect(receiver.received).toEqual([]);
      for (const { id: endpointId } of [literal, named]) {
        const [delivery] = (await endpointWithDeliveries(api, endpointId)).deliveries;
        expect(delivery.attempts[0]).toMatchObject({ httpStatus: null, error: expect.stringMatching(/private, loopback, link-local or reserved/) });
      }
    } finally {
      await strict.close();
    }
  });

  test('/metrics counts attempts and deliveries by outcome and reports the queue', async ({ testApp, api, tenant, receiver }) => {
    receiver.respond = (request) => (request.path === '/down' ? 500 : 200);
    await createEndpoint(api, `${receiver.url}/up`, ['load.created']);
    await createEndpoint(api, `${receiver.url}/down`, ['load.created']);
    await seed(api, routes.load, loadBody(tenant));
    // Queued by the write's numbering pass, which its answer does not wait for.
    await testApp.app.services.sequencer.idle();
    const metrics = async () => (await testApp.fetch('/metrics')).text();
    const value = (text: string, series: string) =>
      Number(
        text
          .split('\n')
          .find((l) => l.startsWith(`${series} `))
          ?.split(' ')[1] ?? NaN,
      );
    // Queued and due before the worker runs.
    testApp.clock.advance(10_000);
    const before = await metrics();
    expect(value(before, 'webhook_queue_due')).toBeGreaterThanOrEqual(2);
    expect(value(before, 'webhook_queue_age_seconds')).toBeGreaterThanOrEqual(10);
    await testApp.app.webhooks.drain();
    const after = await metrics();
    expect(value(after, `webhook_delivery_attempts_total{tenant="${tenant.slug}",outcome="success"}`)).toBe(1);
    // (A slow machine may already have sent the failing one's 5 s retry within the same drain.)
    expect(value(after, `webhook_delivery_attempts_total{tenant="${tenant.slug}",outcome="failure"}`)).toBeGreaterThanOrEqual(1);
    expect(value(after, `webhook_deliveries_total{tenant="${tenant.slug}",outcome="succeeded"}`)).toBe(1);
    expect(after).toContain('# TYPE webhook_queue_age_seconds gauge');
  });

  test('finished deliveries are deleted after the events retention; pending ones stay', async ({ testApp, api, tenant, receiver }) => {
    receiver.respond = (request) => (request.path === '/down' ? 500 : 200);
    const up = await createEndpoint(api, `${receiver.url}/up`, ['load.created']);
    const down = await createEndpoint(api, `${receiver.url}/down`, ['load.created']);
    await seed(api, routes.load, loadBody(tenant));
    await testApp.app.webhooks.drain();
    testApp.clock.advance(6 * 24 * hour);
    await testApp.app.webhooks.prune();
    expect((await endpointWithDeliveries(api, up.id)).deliveries).toHaveLength(1);
    testApp.clock.advance(24 * hour + 60_000);
    expect(await testApp.app.webhooks.prune()).toBeGreaterThanOrEqual(1);
    expect((await endpointWithDeliveries(api, up.id)).deliveries).toEqual([]);
    expect((await endpointWithDeliveries(api, down.id)).deliveries).toMatchObject([{ state: 'PENDING', attemptCount: 1 }]);
  });
});
