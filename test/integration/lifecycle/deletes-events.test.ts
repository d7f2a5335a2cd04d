/**
 * Deletes' change events (`carrier.deleted`, `load.deleted`, `leg.deleted`, `stop.deleted`: one per
 * record, the cascade's included), their delivery to subscriptions and webhooks, the purge after
 * `DELETED_RETENTION_DAYS`, and a delete racing upserts of the same permalink (truly parallel on
 * PostgreSQL; serialised on PGlite, where the same answers must hold).
 */
import { recordSpecOf } from '../../../src/domain/registry.js';
import { onPostgres } from '../../setup/database.js';
import { underHeldLegWrite } from '../../helpers/held-write.js';
import { bulkRestPath, restPath } from '../../../src/domain/declaration/record.js';
import { gqlData } from '../../factories/graphql.js';
import { carrierBody, loadBody, loadLegBody, loadUpdateBody, routes, seed, seedLoadTree, stopBody } from '../../factories/records.js';
import { eventMaintenanceOf } from '../../helpers/maintenance.js';
import { listen } from '../../helpers/server.js';
import { subscribeSse } from '../../helpers/sse.js';
import { createEndpoint, describe, expect, test } from '../webhooks/setup.js';

const del = {
  carrier: restPath(recordSpecOf.carrier, 'delete'),
  load: restPath(recordSpecOf.load, 'delete'),
  load_leg: restPath(recordSpecOf.load_leg, 'delete'),
  stop: restPath(recordSpecOf.stop, 'delete'),
};
const bulkDeleteLoads = bulkRestPath(recordSpecOf.load, 'delete');

const deletedTypes = ['carrier.deleted', 'load.deleted', 'leg.deleted', 'stop.deleted'];
const eventsQuery = `query ($types: [String!]) { loadEvents(first: 100, filter: { types: $types }) { edges { node { type loadPermalink data occurredAt } } } }`;
const deletedEvents = async (api: Parameters<typeof gqlData>[0]) =>
  ((await gqlData(api, eventsQuery, { types: deletedTypes })).loadEvents.edges as { node: any }[]).map((e) => e.node);

describe('change events', { timeout: 120_000 }, () => {
  test('a load delete records load.deleted and one leg.deleted / stop.deleted per cascaded record, with permalink, loadPermalink and deletedAt', async ({
    api,
    tenant,
  }) => {
    const { load, leg, stop } = await seedLoadTree(api, tenant);
    const leg2 = await seed(api, routes.load_leg, loadLegBody(tenant, load, { load_leg_sequence: 2 }));
    const stop2 = await seed(api, routes.stop, stopBody(tenant, leg2));
    expect(await deletedEvents(api)).toEqual([]);
    await api.post(del.load, { native_system_load_permalink: load.native_system_load_permalink });
    const events = await deletedEvents(api);
    const lp = load.native_system_load_permalink;
    const byType = (type: string) =>
      events
        .filter((e) => e.type === type)
        .map((e) => e.data.permalink)
        .sort();
    expect(byType('load.deleted')).toEqual([lp]);
    expect(byType('leg.deleted')).toEqual([leg.native_system_load_leg_permalink, leg2.native_system_load_leg_permalink].sort());
    expect(byType('stop.deleted')).toEqual([stop.native_system_stop_permalink, stop2.native_system_stop_permalink].sort());
    for (const event of events) {
      expect(event.loadPermalink).toBe(lp);
      expect(Object.keys(event.data).sort()).toEqual(['deletedAt', 'loadPermalink', 'permalink']);
      expect(event.data).toMatchObject({ loadPermalink: lp, deletedAt: event.occurredAt });
    }
    // Deleting again (already deleted) records nothing; neither does a skipped delete.
    await api.post(del.load, { native_system_load_permalink: lp });
    expect(await deletedEvents(api)).toHaveLength(5);
    // No *.changed event for the tombstones.
    const changed = await gqlData(api, eventsQuery, { types: ['load.changed', 'leg.changed', 'stop.changed'] });
    expect(changed.loadEvents.edges.filter((e: any) => e.node.occurredAt === events[0].occurredAt)).toEqual([]);
  });

  test('carrier.deleted has no load; a leg delete records leg.deleted and its stops; a skipped delete records nothing', async ({ api, tenant }) => {
    const { carrier, leg, stop } = await seedLoadTree(api, tenant);
    await api.post(`${del.load_leg}?sync_run_time=2020-01-01T00:00:00Z`, { native_system_load_leg_permalink: leg.native_system_load_leg_permalink });
    expect(await deletedEvents(api)).toEqual([]);
    await api.post(del.carrier, { native_system_carrier_permalink: carrier.native_system_carrier_permalink });
    await api.post(del.load_leg, { native_system_load_leg_permalink: leg.native_system_load_leg_permalink });
    const events = await deletedEvents(api);
    expect(events.map((e) => [e.type, e.data.permalink])).toEqual([
      ['carrier.deleted', carrier.native_system_carrier_permalink],
      ...[
        ['leg.deleted', leg.native_system_load_leg_permalink],
        ['stop.deleted', stop.native_system_stop_permalink],
      ].sort((a, b) => (a[0]! < b[0]! ? -1 : 1)),
    ]);
    expect(events[0]).toMatchObject({ loadPermalink: null, data: { permalink: carrier.native_system_carrier_permalink } });
    expect(Object.keys(events[0].data).sort()).toEqual(['deletedAt', 'permalink']);
  });

  test('a live subscriber receives the deleted events', async ({ testApp, api, tenant }) => {
    const { load, stop } = await seedLoadTree(api, tenant);
    const server = await listen(testApp);
    try {
      const sub = await subscribeSse(
        server.base,
        tenant.apiKey,
        `subscription ($filter: LoadEventFilter) { loadEvents(filter: $filter) { type loadPermalink data } }`,
        { filter: { types: ['stop.deleted'] } },
      );
      expect(sub.status).toBe(200);
      await sub.keepAlive();
      await api.post(del.stop, { native_system_stop_permalink: stop.native_system_stop_permalink });
      const { data } = await sub.next();
      expect(data.loadEvents).toMatchObject({
        type: 'stop.deleted',
        loadPermalink: load.native_system_load_permalink,
        data: { permalink: stop.native_system_stop_permalink },
      });
      await sub.close();
    } finally {
      await server.close();
    }
  });

  test('webhooks deliver them to an endpoint subscribed to the types', async ({ testApp, api, tenant, receiver }) => {
    await createEndpoint(api, `${receiver.url}/hooks`, ['load.deleted', 'leg.deleted']);
    const { load, leg } = await seedLoadTree(api, tenant);
    await api.post(bulkDeleteLoads, { records: [{ native_system_load_permalink: load.native_system_load_permalink }] });
    await testApp.app.webhooks.drain();
    expect(receiver.received.map((hook) => [hook.json.type, hook.json.data.permalink]).sort()).toEqual([
      ['leg.deleted', leg.native_system_load_leg_permalink],
      ['load.deleted', load.native_system_load_permalink],
    ]);
  });
});

describe('purge after DELETED_RETENTION_DAYS', { timeout: 120_000 }, () => {
  test('tombstones older than the retention go with what hangs under them; younger ones and live records stay', async ({ api, tenant, testApp }) => {
    const db = testApp.database.db.prisma;
    const old = await seedLoadTree(api, tenant);
    const update = await seed(api, routes.load_update, loadUpdateBody(tenant, old.load));
    const liveTree = await seedLoadTree(api, tenant);
    // A leg of a live load, deleted; a load update of the live load names it.
    const deadLeg = await seed(api, routes.load_leg, loadLegBody(tenant, liveTree.load, { load_leg_sequence: 2 }));
    const deadStop = await seed(api, routes.stop, stopBody(tenant, deadLeg));
    const liveUpdate = await seed(
      api,
      routes.load_update,
      loadUpdateBody(tenant, liveTree.load, { native_system_load_leg_permalink: deadLeg.native_system_load_leg_permalink }),
    );
    // A deleted carrier a live leg still names.
    const usedCarrier = await seed(api, routes.carrier, carrierBody(tenant));
    const namedLeg = await seed(
      api,
      routes.load_leg,
      loadLegBody(tenant, liveTree.load, { load_leg_sequence: 3, native_system_carrier_permalink: usedCarrier.native_system_carrier_permalink }),
    );
    await api.post(del.load, { native_system_load_permalink: old.load.native_system_load_permalink });
    await api.post(del.load_leg, { native_system_load_leg_permalink: deadLeg.native_system_load_leg_permalink });
    await api.post(del.carrier, { native_system_carrier_permalink: usedCarrier.native_system_carrier_permalink });
    testApp.clock.advance(20 * 86_400_000);
    const young = await seedLoadTree(api, tenant);
    await api.post(del.load, { native_system_load_permalink: young.load.native_system_load_permalink });
    testApp.clock.advance(11 * 86_400_000);

    // Without a retention nothing is purged.
    await eventMaintenanceOf(testApp, { retentionMs: 3650 * 86_400_000 }).runOnce();
    expect(await db.load.count({ where: { tenantId: tenant.id } })).toBe(3);
    await eventMaintenanceOf(testApp, { retentionMs: 3650 * 86_400_000, deletedRetentionMs: 30 * 86_400_000 }).runOnce();

    const permalinks = async (model: 'load' | 'loadLeg' | 'stop' | 'carrier' | 'loadUpdate') =>
      ((await (db[model] as any).findMany({ where: { tenantId: tenant.id }, select: { permalink: true } })) as { permalink: string }[])
        .map((r) => r.permalink)
        .sort();
    expect(await permalinks('load')).toEqual([liveTree.load.native_system_load_permalink, young.load.native_system_load_permalink].sort());
    expect(await permalinks('loadLeg')).toEqual(
      [liveTree.leg.native_system_load_leg_permalink, namedLeg.native_system_load_leg_permalink, young.leg.native_system_load_leg_permalink].sort(),
    );
    expect(await permalinks('stop')).toEqual([liveTree.stop.native_system_stop_permalink, young.stop.native_system_stop_permalink].sort());
    expect(await permalinks('stop')).not.toContain(deadStop.native_system_stop_permalink);
    expect(await permalinks('loadUpdate')).toEqual([liveUpdate.native_system_load_update_permalink]);
    expect(await permalinks('loadUpdate')).not.toContain(update.native_system_load_update_permalink);
    expect(await permalinks('carrier')).toEqual(
      [old.carrier.native_system_carrier_permalink, liveTree.carrier.native_system_carrier_permalink, young.carrier.native_system_carrier_permalink].sort(),
    );
    expect((await db.loadUpdate.findFirstOrThrow({ where: { permalink: liveUpdate.native_system_load_update_permalink as string } })).legId).toBeNull();
    expect((await db.loadLeg.findFirstOrThrow({ where: { permalink: namedLeg.native_system_load_leg_permalink as string } })).carrierId).toBeNull();
    expect(await db.phaseChange.count({ where: { tenantId: tenant.id } })).toBe(2);
    // The purged load's permalink is new again.
    const reborn = await api.post(routes.load, old.load);
    expect(reborn.body.message).toMatch(/created/);
  });
});

describe('a delete racing upserts of the same permalink', { timeout: 120_000 }, () => {
  for (const newest of ['upsert', 'delete'] as const) {
    test(`freshness decides (the newest is an ${newest}); never a half-cascade`, async ({ api, tenant, testApp }) => {
      const load = loadBody(tenant);
      const lp = load.native_system_load_permalink as string;
      await seed(api, `${routes.load}?sync_run_time=2026-03-01T00:00:00Z`, load);
      const legs = [];
      for (let i = 1; i <= 4; i++) {
        const leg = await seed(api, `${routes.load_leg}?sync_run_time=2026-03-01T00:00:00Z`, loadLegBody(tenant, load, { load_leg_sequence: i }));
        legs.push(leg);
        for (let s = 1; s <= 3; s++) await seed(api, `${routes.stop}?sync_run_time=2026-03-01T00:00:00Z`, stopBody(tenant, leg, { stop_sequence: s }));
      }
      // Hours 1..24: the newest (24) is an upsert or a delete; the rest alternate.
      const hours = Array.from({ length: 24 }, (_, i) => i + 1);
      const kindOf = (h: number) => (h === 24 ? newest : h % 2 ? 'delete' : 'upsert');
      const at = (h: number) => `?sync_run_time=2026-03-0${h === 24 ? 2 : 1}T${String(h % 24).padStart(2, '0')}:00:00Z`;
      const order = [...hours].sort(() => Math.random() - 0.5);
      const results = await Promise.all(
        order.map((h) =>
          kindOf(h) === 'delete'
            ? api.post(`${del.load}${at(h)}`, { native_system_load_permalink: lp })
            : api.post(`${routes.load}${at(h)}`, { ...load, bol_number: `BOL-${h}` }),
        ),
      );
      expect(results.map((r) => r.status)).toEqual(Array(24).fill(200));
      expect(results[order.indexOf(24)]!.body.status).toBe('processed');
      const db = testApp.database.db.prisma;
      const stored = await db.load.findFirstOrThrow({ where: { permalink: lp }, include: { legs: { include: { stops: true } } } });
      expect(stored.freshAt.toISOString()).toBe('2026-03-02T00:00:00.000Z');
      if (newest === 'delete') expect(stored.deletedAt).toBeInstanceOf(Date);
      else expect(stored).toMatchObject({ deletedAt: null, bolNumber: 'BOL-24' });
      // The cascade is whole or absent: every leg and stop deleted together, or none of them.
      const children = stored.legs.flatMap((leg) => [leg, ...leg.stops]);
      expect(children).toHaveLength(16);
      const deletedChildren = children.filter((c) => c.deletedAt !== null);
      expect([0, 16]).toContain(deletedChildren.length);
      for (const leg of stored.legs) for (const stop of leg.stops) expect(stop.deletedAt).toEqual(leg.deletedAt);
      // Some delete was applied before the newest write exactly when the children are deleted.
      const applied = results.filter((r, i) => kindOf(order[i]!) === 'delete' && /(?<!already) deleted\.$/.test(r.body.message as string));
      expect(deletedChildren.length > 0).toBe(applied.length > 0);
      // One load.deleted event per applied delete, and 16 cascade events at most once.
      const events = await deletedEvents(api);
      expect(events.filter((e) => e.type === 'load.deleted')).toHaveLength(applied.length);
      expect(events.filter((e) => e.type !== 'load.deleted')).toHaveLength(deletedChildren.length);
      const pool = testApp.database.db.poolStats();
      expect(pool.total > 1).toBe(testApp.database.db.kind === 'postgres');
    });
  }

  test('legs and stops written while their load is deleted end deleted with it or parent_not_found, never live under a tombstone', async ({
    api,
    tenant,
    testApp,
  }) => {
    const load = await seed(api, routes.load, loadBody(tenant));
    const legs = Array.from({ length: 12 }, (_, i) => loadLegBody(tenant, load, { load_leg_sequence: i + 1 }));
    const firstLeg = await seed(api, routes.load_leg, loadLegBody(tenant, load));
    const stops = Array.from({ length: 12 }, (_, i) => stopBody(tenant, firstLeg, { stop_sequence: i + 1 }));
    const [deleteResult, ...writes] = await Promise.all([
      api.post(del.load, { native_system_load_permalink: load.native_system_load_permalink }),
      ...legs.map((leg) => api.post(routes.load_leg, leg)),
      ...stops.map((stop) => api.post(routes.stop, stop)),
    ]);
    expect(deleteResult.body.message).toMatch(/(?<!already) deleted\.$/);
    for (const r of writes) {
      expect([200, 422], JSON.stringify(r.body)).toContain(r.status);
      if (r.status === 422) expect(r.body.error.code).toBe('parent_not_found');
    }
    const db = testApp.database.db.prisma;
    const storedLegs = await db.loadLeg.findMany({ where: { load: { permalink: load.native_system_load_permalink as string } }, include: { stops: true } });
    const live = storedLegs.flatMap((leg) => [leg, ...leg.stops]).filter((record) => record.deletedAt === null);
    expect(live.map((record) => record.permalink)).toEqual([]);
  });
});

describe('a delete and a child written under its record at the same time (PostgreSQL: truly parallel)', { timeout: 120_000 }, () => {
  // The delete locks its loads in one statement and cascades in the next: the cascade's statement starts
  // after the child's writer (who held its load's KEY SHARE lock) committed, so it sees the child.
  test.runIf(onPostgres())('a leg committed while its load’s delete waited for it is deleted with the load', async ({ api, tenant, testApp }) => {
    const { db } = testApp.database;
    const load = await seed(api, routes.load, loadBody(tenant));
    const leg = loadLegBody(tenant, load);
    // The leg's write, uncommitted, holds its load's KEY SHARE lock: committed once the delete waits for it.
    const deleted = await underHeldLegWrite(db, tenant.id, load.native_system_load_permalink as string, leg.native_system_load_leg_permalink as string, () =>
      api.post(del.load, { native_system_load_permalink: load.native_system_load_permalink }),
    );
    expect(deleted.status).toBe(200);
    const stored = await db.prisma.loadLeg.findFirstOrThrow({ where: { tenantId: tenant.id, permalink: leg.native_system_load_leg_permalink as string } });
    expect(stored.deletedAt).not.toBeNull();
  });
});
