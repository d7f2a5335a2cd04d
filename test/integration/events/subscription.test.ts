/**
 * `subscription { loadEvents }` end to end over real HTTP: a listening server, an SSE client (fetch
 * with `Accept: text/event-stream`, as Yoga serves graphql-sse), writes through REST.
 */
import { describe, expect, test } from '../../fixtures.js';
import { loadBody, routes, seed } from '../../factories/records.js';
import { apiFor, createTestApp } from '../../helpers/app.js';
import { listen } from '../../helpers/server.js';
import { subscribeSse } from '../../helpers/sse.js';

const subscription = /* GraphQL */ `subscription ($after: String, $filter: LoadEventFilter) {
  loadEvents(after: $after, filter: $filter) { cursor type loadPermalink data occurredAt }
}`;

// The file's first test also waits for the app's database to be created and migrated.
describe('loadEvents subscription over SSE', { timeout: 120_000 }, () => {
  test('a write reaches a live subscriber; keep-alive comments flow while idle', async ({ testApp, api, tenant }) => {
    const server = await listen(testApp);
    try {
      const sub = await subscribeSse(server.base, tenant.apiKey, subscription);
      expect(sub.status).toBe(200);
      // Without `after`: only what commits from now on.
      await sub.keepAlive();
      const load = await seed(api, routes.load, loadBody(tenant));
      const { data } = await sub.next();
      expect(data.loadEvents).toMatchObject({ type: 'load.created', loadPermalink: load.native_system_load_permalink, data: { load: { status: 'Booked' } } });
      await sub.keepAlive();
      await sub.close();
    } finally {
      await server.close();
    }
  });

  test('resuming after a cursor replays what was missed, then goes live, with no gap or duplicate', async ({ testApp, api, tenant }) => {
    const server = await listen(testApp);
    try {
      const before = Array.from({ length: 5 }, () => loadBody(tenant));
      for (const body of before) await seed(api, routes.load, body);
      // The dashboard saw the first two events, then reconnects while writes keep coming.
      const sub = await subscribeSse(server.base, tenant.apiKey, subscription, { after: '2' });
      const during = Array.from({ length: 15 }, () => loadBody(tenant));
      const writes = Promise.all(during.map((body) => api.post(routes.load, body)));
      const received: { cursor: string; loadPermalink: string }[] = [];
      for (let i = 0; i < 3 + during.length; i++) received.push((await sub.next()).data.loadEvents);
      await writes;
      expect(received.map((e) => e.cursor)).toEqual(Array.from({ length: 18 }, (_, i) => String(i + 3)));
      expect(new Set(received.map((e) => e.loadPermalink))).toEqual(new Set([...before.slice(2), ...during].map((b) => b.native_system_load_permalink)));
      await sub.close();
    } finally {
      await server.close();
    }
  });

  test('is tenant-scoped and filtered by types and load permalinks', async ({ testApp, api, tenant, otherApi, otherTenant }) => {
    const server = await listen(testApp);
    try {
      const watched = await seed(api, routes.load, loadBody(tenant));
      const permalink = watched.native_system_load_permalink as string;
      const sub = await subscribeSse(server.base, tenant.apiKey, subscription, {
        filter: { types: ['load.changed'], loadPermalinks: [permalink] },
      });
      const all = await subscribeSse(server.base, tenant.apiKey, subscription);
      await sub.keepAlive();
      await seed(otherApi, routes.load, loadBody(otherTenant));
      await seed(api, routes.load, loadBody(tenant));
      await seed(api, routes.load, { ...watched, bol_number: 'BOL-CHANGED' });
      expect((await sub.next()).data.loadEvents).toMatchObject({ type: 'load.changed', loadPermalink: permalink, data: { changedFields: ['bolNumber'] } });
      // The unfiltered one sees only its own tenant: the other load's creation, then the change.
      expect((await all.next()).data.loadEvents.type).toBe('load.created');
      expect((await all.next()).data.loadEvents).toMatchObject({ type: 'load.changed', loadPermalink: permalink });
      expect(all.messages.some((m) => m.data.includes(otherTenant.slug))).toBe(false);
      await Promise.all([sub.close(), all.close()]);
    } finally {
      await server.close();
    }
  });

  test('a NUL character in a subscription argument is validation_failed, not a database error', async ({ testApp, tenant }) => {
    const server = await listen(testApp);
    try {
      const sub = await subscribeSse(server.base, tenant.apiKey, subscription, { filter: { loadPermalinks: ['L1\u0000x'] } });
      const refused = await sub.next();
      expect(refused.errors[0].extensions).toMatchObject({ code: 'validation_failed' });
      await sub.ended;
    } finally {
      await server.close();
    }
  });

  test('an unknown event type or a malformed cursor is validation_failed', async ({ api }) => {
    const res = await api.graphql(`query { loadEvents(filter: { types: ["load.exploded"] }) { edges { cursor } } }`);
    expect(res.body.errors[0].extensions).toMatchObject({ code: 'validation_failed', details: [{ field: 'filter.types' }] });
    const bad = await api.graphql(`query { loadEvents(after: "abc") { edges { cursor } } }`);
    expect(bad.body.errors[0].extensions).toMatchObject({ code: 'validation_failed', details: [{ field: 'after' }] });
  });
});

describe('subscriptions per tenant', { timeout: 120_000 }, () => {
  test('beyond EVENTS_MAX_SUBSCRIPTIONS_PER_TENANT a subscription is refused with rate_limited; a closed one frees its place', async () => {
    const testApp = await createTestApp({ env: { EVENTS_MAX_SUBSCRIPTIONS_PER_TENANT: '2' } });
    const server = await listen(testApp);
    try {
      const tenant = await testApp.createTenant();
      const other = await testApp.createTenant();
      const first = await subscribeSse(server.base, tenant.apiKey, subscription);
      const second = await subscribeSse(server.base, tenant.apiKey, subscription);
      await Promise.all([first.keepAlive(), second.keepAlive()]);
      const third = await subscribeSse(server.base, tenant.apiKey, subscription);
      const refused = await third.next();
      expect(refused.errors[0].extensions).toMatchObject({ code: 'rate_limited' });
      await third.ended;
      // Another tenant has its own places.
      const others = await subscribeSse(server.base, other.apiKey, subscription);
      await others.keepAlive();
      await first.close();
      await expect.poll(() => testApp.app.services.events.openSubscriptions(tenant.id)).toBe(1);
      const again = await subscribeSse(server.base, tenant.apiKey, subscription);
      await again.keepAlive();
      await seed(apiFor(testApp, tenant.apiKey), routes.load, loadBody(tenant));
      expect((await again.next()).data.loadEvents.type).toBe('load.created');
      await Promise.all([second.close(), others.close(), again.close()]);
    } finally {
      await server.close();
      await testApp.close();
    }
  });
});
