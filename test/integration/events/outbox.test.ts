/**
 * The change-event outbox (load_events): every write that changes something records its events in
 * the same transaction, through the database triggers; skipped and duplicate writes record nothing;
 * seq is per tenant and strictly increasing.
 */
import { setStatusMapping } from '../../../src/domain/status-mapping/service.js';
import { describe, expect, test } from '../../fixtures.js';
import { carrierBody, fullBodies, loadBody, loadLegBody, loadUpdateBody, routes, seed, stopBody } from '../../factories/records.js';
import type { TestApp } from '../../helpers/app.js';
import { createEventSequencer } from '../../../src/domain/events/sequencer.js';
import { editLoad } from '../../../src/domain/load/edit.js';
import { readLoadEvents } from '../../../src/domain/events/service.js';
import { createLogger } from '../../../src/logger.js';

/** The tenant's numbered events after `afterSeq`, once the numbering passes the app's writes started have ended. */
async function eventsOf(testApp: TestApp, tenantId: string, afterSeq = 0n) {
  await testApp.app.services.sequencer.idle();
  const rows = await testApp.database.db.prisma.loadEvent.findMany({ where: { tenantId, seq: { gt: afterSeq } }, orderBy: { seq: 'asc' } });
  return rows.map((row) => ({ seq: row.seq, type: row.type, loadPermalink: row.loadPermalink, data: row.data as any }));
}
const lastSeq = async (testApp: TestApp, tenantId: string) =>
  (await testApp.app.services.sequencer.idle(), await testApp.database.db.prisma.loadEvent.aggregate({ where: { tenantId }, _max: { seq: true } }))._max.seq ??
  0n;

type Body = Record<string, unknown>;

/** The body with every field but `keep` given another valid value, and one more unknown field (→ extra). */
function changeEvery(body: Body, keep: string[]): Body {
  const changed = Object.entries(body).map(([field, value]) => {
    if (keep.includes(field)) return [field, value];
    if (typeof value === 'number') return [field, value + 1];
    if (typeof value !== 'string') return [field, value];
    if (/^\d{4}-\d\d-\d\dT/.test(value)) return [field, new Date(Date.parse(value) + 3_600_000).toISOString()];
    if (value.includes('@')) return [field, `other.${value}`];
    if (field.endsWith('_permalink')) return [field, `X${value}`];
    return [field, `${value}2`];
  });
  return { ...Object.fromEntries(changed), custom_note: 'changed' };
}

/** The fields whose values differ between two payload snapshots, as changedFields names them (sorted, bookkeeping left out). */
const snapshotDiff = (before: Body, after: Body, leaveOut: string[] = []) =>
  Object.keys(after)
    .filter((key) => !['changedAt', 'createdAt', ...leaveOut].includes(key) && JSON.stringify(after[key]) !== JSON.stringify(before[key]))
    .sort();

// The file's first test also waits for the app's database to be created and migrated.
describe('load events', { timeout: 120_000 }, () => {
  test('a new load records load.created with the load; an update records load.changed naming the changed fields and load.phase_changed', async ({
    testApp,
    api,
    tenant,
  }) => {
    await setStatusMapping(testApp.database.db, tenant.id, 'In Transit', 'IN_TRANSIT');
    const load = await seed(api, routes.load, loadBody(tenant));
    const permalink = load.native_system_load_permalink as string;
    await seed(api, routes.load, { ...load, native_system_load_status: 'In Transit', bol_number: 'BOL-NEW' });
    const events = await eventsOf(testApp, tenant.id);
    expect(events.map((e) => e.type)).toEqual(['load.created', 'load.changed', 'load.phase_changed']);
    expect(events.map((e) => e.seq)).toEqual([1n, 2n, 3n]);
    expect(events.every((e) => e.loadPermalink === permalink)).toBe(true);
    expect(events[0]!.data.load).toMatchObject({ permalink, status: 'Booked', phase: 'UNMAPPED', bolNumber: load.bol_number });
    expect(events[1]!.data).toMatchObject({ changedFields: ['bolNumber', 'status'], load: { bolNumber: 'BOL-NEW', phase: 'IN_TRANSIT' } });
    expect(events[2]!.data).toMatchObject({ loadPermalink: permalink, from: 'UNMAPPED', to: 'IN_TRANSIT', status: 'In Transit' });
  });

  test('a skipped upsert, a duplicate load update and an upsert that changes nothing record no event', async ({ testApp, api, tenant }) => {
    const load = await seed(api, routes.load, loadBody(tenant));
    const update = await seed(api, routes.load_update, loadUpdateBody(tenant, load));
    await api.post(`${routes.load}?sync_run_time=2026-11-23T10:00:00Z`, load);
    const before = await lastSeq(testApp, tenant.id);
    expect((await api.post(`${routes.load}?sync_run_time=2026-11-23T09:00:00Z`, { ...load, bol_number: 'X' })).body.status).toBe('skipped');
    expect((await api.post(routes.load_update, update)).body.status).toBe('duplicate');
    expect((await api.post(routes.load, load)).body.status).toBe('processed');
    expect(await eventsOf(testApp, tenant.id, before)).toEqual([]);
  });

  test('legs, stops and load updates record leg.changed, stop.changed, stop.arrived, stop.departed and load_update.received', async ({
    testApp,
    api,
    tenant,
  }) => {
    const carrier = await seed(api, routes.carrier, carrierBody(tenant));
    const load = await seed(api, routes.load, loadBody(tenant));
    const permalink = load.native_system_load_permalink;
    const start = await lastSeq(testApp, tenant.id);
    const leg = await seed(api, routes.load_leg, loadLegBody(tenant, load));
    await seed(api, routes.load_leg, { ...leg, native_system_carrier_permalink: carrier.native_system_carrier_permalink, driver_name: 'Sam' });
    const stop = await seed(api, routes.stop, stopBody(tenant, leg));
    await seed(api, routes.stop, { ...stop, arrived_at: '2026-11-23T09:00:00Z' });
    await seed(api, routes.stop, { ...stop, arrived_at: '2026-11-23T09:00:00Z', departed_at: '2026-11-23T10:00:00Z', location_name: 'Dock 4' });
    await seed(api, routes.load_update, loadUpdateBody(tenant, load, { update_type: 'gps_ping', latitude: 41.88, longitude: -87.63 }));
    const events = await eventsOf(testApp, tenant.id, start);
    expect(events.map((e) => e.type)).toEqual([
      'leg.changed',
      'leg.changed',
      'stop.changed',
      'stop.arrived',
      'stop.changed',
      'stop.departed',
      'load_update.received',
    ]);
    expect(events.every((e) => e.loadPermalink === permalink)).toBe(true);
    expect(events[0]!.data).toMatchObject({
      loadPermalink: permalink,
      created: true,
      leg: { permalink: leg.native_system_load_leg_permalink, carrierPermalink: null },
    });
    expect(events[1]!.data).toMatchObject({
      created: false,
      changedFields: ['carrierPermalink', 'driverName'],
      leg: { carrierPermalink: carrier.native_system_carrier_permalink },
    });
    expect(events[2]!.data).toMatchObject({
      created: true,
      stop: { permalink: stop.native_system_stop_permalink, legPermalink: leg.native_system_load_leg_permalink, city: 'Chicago' },
    });
    expect(events[3]!.data).toMatchObject({ arrivedAt: '2026-11-23T09:00:00.000Z', stop: { permalink: stop.native_system_stop_permalink } });
    expect(events[4]!.data).toMatchObject({ created: false, changedFields: ['locationName'] });
    expect(events[5]!.data).toMatchObject({ departedAt: '2026-11-23T10:00:00.000Z' });
    expect(events[6]!.data).toMatchObject({ loadPermalink: permalink, update: { type: 'gps_ping', latitude: 41.88, longitude: -87.63 } });
  });

  test('a new record and a changed one have the same snapshot (the insert and the update triggers build theirs apart)', async ({ testApp, api, tenant }) => {
    const carrier = await seed(api, routes.carrier, carrierBody(tenant));
    const start = await lastSeq(testApp, tenant.id);
    const load = await seed(api, routes.load, fullBodies.load(tenant));
    const leg = await seed(api, routes.load_leg, fullBodies.load_leg(tenant, load, carrier));
    const stop = await seed(api, routes.stop, { ...fullBodies.stop(tenant, leg), arrived_at: null, departed_at: null });
    await seed(api, routes.load, { ...load, bol_number: 'BOL-CHANGED' });
    await seed(api, routes.load_leg, { ...leg, driver_name: 'Changed Driver' });
    await seed(api, routes.stop, { ...stop, location_name: 'Changed Dock' });
    const events = await eventsOf(testApp, tenant.id, start);
    const snapshots = (type: string, key: string) => events.filter((e) => e.type === type).map((e) => e.data[key] as Body);
    for (const [type, key, field, value] of [
      ['load.created', 'load', 'bolNumber', 'BOL-CHANGED'],
      ['leg.changed', 'leg', 'driverName', 'Changed Driver'],
      ['stop.changed', 'stop', 'locationName', 'Changed Dock'],
    ] as const) {
      const [created, changed] = type === 'load.created' ? [snapshots(type, key)[0]!, snapshots('load.changed', key)[0]!] : snapshots(type, key);
      expect(Object.keys(changed!).sort(), type).toEqual(Object.keys(created!).sort());
      expect({ ...created, [field]: value, changedAt: changed!.changedAt }, type).toEqual(changed);
    }
    const [createdLeg, createdStop] = [events.find((e) => e.type === 'leg.changed')!, events.find((e) => e.type === 'stop.changed')!];
    expect(createdLeg.data.changedFields, 'a new leg names every field').toEqual(snapshotDiff({}, createdLeg.data.leg as Body));
    expect(createdStop.data.changedFields, 'a new stop names every field').toEqual(snapshotDiff({}, createdStop.data.stop as Body));

    // A new stop that has arrived and departed already: its three events, in order.
    const before = await lastSeq(testApp, tenant.id);
    const done = await seed(api, routes.stop, { ...stopBody(tenant, leg), arrived_at: '2026-11-23T09:00:00Z', departed_at: '2026-11-23T10:00:00Z' });
    const three = await eventsOf(testApp, tenant.id, before);
    expect(three.map((e) => [e.type, e.data.stop.permalink, e.loadPermalink])).toEqual(
      ['stop.changed', 'stop.arrived', 'stop.departed'].map((type) => [type, done.native_system_stop_permalink, load.native_system_load_permalink]),
    );
    expect([three[1]!.data.arrivedAt, three[2]!.data.departedAt]).toEqual(['2026-11-23T09:00:00.000Z', '2026-11-23T10:00:00.000Z']);
  });

  test('a bulk of load updates records one load_update.received per stored update, in the order they were stored, with the whole update; duplicates none', async ({
    testApp,
    api,
    tenant,
  }) => {
    const [loadA, loadB] = [await seed(api, routes.load, loadBody(tenant)), await seed(api, routes.load, loadBody(tenant))];
    const leg = await seed(api, routes.load_leg, loadLegBody(tenant, loadB));
    const known = await seed(api, routes.load_update, loadUpdateBody(tenant, loadA));
    const start = await lastSeq(testApp, tenant.id);
    const full = fullBodies.load_update(tenant, loadB, leg, { update_type: 'gps_ping', occurred_at: '2026-11-20T11:00:00Z', custom_note: 'kept in extra' });
    // The same fields in every record: one statement stores them all (records with other fields present go in another).
    const like = (load: Body): Body => ({
      ...full,
      ...loadUpdateBody(tenant, load),
      native_system_load_leg_permalink: null,
      occurred_at: '2026-11-20T12:00:00Z',
    });
    const again: Body = { ...like(loadA), native_system_load_update_permalink: known.native_system_load_update_permalink };
    const records = [full, like(loadA), again, like(loadB), like(loadA)];
    const res = await api.post('/api/v1/loadupdates/bulk_create', { records });
    expect(res.body.results.map((r: { status: string }) => r.status)).toEqual(['processed', 'processed', 'duplicate', 'processed', 'processed']);

    const events = await eventsOf(testApp, tenant.id, start);
    const stored = records.filter((r) => r !== again);
    // Rows are stored in the order of their load's permalink, then their own (db/record-statements.ts).
    const order = (r: Body) => `${r.native_system_load_permalink as string} ${r.native_system_load_update_permalink as string}`;
    expect(events.map((e) => [e.type, e.loadPermalink, e.data.update.permalink])).toEqual(
      [...stored]
        .sort((a, b) => (order(a) < order(b) ? -1 : 1))
        .map((r) => ['load_update.received', r.native_system_load_permalink, r.native_system_load_update_permalink]),
    );
    const createdAt = events.find((e) => e.data.update.permalink === full.native_system_load_update_permalink)!.data.update.createdAt;
    expect(events.find((e) => e.data.update.permalink === full.native_system_load_update_permalink)!.data).toEqual({
      loadPermalink: loadB.native_system_load_permalink,
      update: {
        permalink: full.native_system_load_update_permalink,
        type: 'gps_ping',
        occurredAt: '2026-11-20T11:00:00.000Z',
        legPermalink: leg.native_system_load_leg_permalink,
        status: 'In Transit',
        phase: expect.any(String),
        latitude: 41.88,
        longitude: -87.63,
        city: 'Chicago',
        state: 'IL',
        country: 'US',
        eta: '2026-11-24T10:00:00.000Z',
        message: 'On schedule',
        source: 'ELD',
        extra: { custom_note: 'kept in extra' },
        createdAt,
      },
    });
    expect(createdAt).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  });

  test('changedFields names exactly the fields whose values differ, for every field of loads, legs and stops', async ({ testApp, api, tenant }) => {
    const [carrierA, carrierB] = [await seed(api, routes.carrier, carrierBody(tenant)), await seed(api, routes.carrier, carrierBody(tenant))];
    const loadA = await seed(api, routes.load, fullBodies.load(tenant));
    const loadB = await seed(api, routes.load, fullBodies.load(tenant));
    const leg = await seed(api, routes.load_leg, fullBodies.load_leg(tenant, loadA, carrierA));
    const otherLeg = await seed(api, routes.load_leg, fullBodies.load_leg(tenant, loadB, carrierB));
    const stop = await seed(api, routes.stop, fullBodies.stop(tenant, leg));
    const start = await lastSeq(testApp, tenant.id);
    await seed(api, routes.load, changeEvery(loadA, ['native_system_load_permalink', 'company_permalink']));
    await seed(api, routes.load_leg, {
      ...changeEvery(leg, ['native_system_load_leg_permalink', 'company_permalink', 'native_system_load_id', 'native_system_load_permalink']),
      native_system_load_id: loadB.native_system_load_id,
      native_system_load_permalink: loadB.native_system_load_permalink,
      native_system_carrier_permalink: carrierB.native_system_carrier_permalink,
    });
    await seed(api, routes.stop, {
      ...changeEvery(stop, ['native_system_stop_permalink', 'company_permalink', 'native_system_load_leg_permalink', 'state', 'country']),
      native_system_load_leg_permalink: otherLeg.native_system_load_leg_permalink,
      stop_type: 'delivery',
      timezone: 'America/New_York',
      state: 'WI',
      country: 'CA',
    });
    const all = await eventsOf(testApp, tenant.id);
    const created = (type: string, key: string, permalink: unknown) => all.find((e) => e.type === type && e.data[key].permalink === permalink)!.data[key];
    const changed = await eventsOf(testApp, tenant.id, start);
    expect(changed.map((e) => e.type)).toEqual(['load.changed', 'leg.changed', 'stop.changed']);
    const [loadChange, legChange, stopChange] = changed.map((e) => e.data);
    // Every field but the permalink (and the load's phase, which has its own event) changed, and is named.
    expect(loadChange.changedFields).toEqual(snapshotDiff(created('load.created', 'load', loadA.native_system_load_permalink), loadChange.load, ['phase']));
    expect(loadChange.changedFields).toHaveLength(Object.keys(loadChange.load).length - 4);
    expect(legChange.changedFields).toEqual(snapshotDiff(created('leg.changed', 'leg', leg.native_system_load_leg_permalink), legChange.leg));
    expect(legChange.changedFields).toHaveLength(Object.keys(legChange.leg).length - 3);
    expect(stopChange.changedFields).toEqual(snapshotDiff(created('stop.changed', 'stop', stop.native_system_stop_permalink), stopChange.stop));
    expect(stopChange.changedFields).toHaveLength(Object.keys(stopChange.stop).length - 3);
  });

  test('a user edit (editLoad) records load.changed like an upsert', async ({ testApp, api, tenant }) => {
    const load = await seed(api, routes.load, loadBody(tenant));
    const start = await lastSeq(testApp, tenant.id);
    const res = await api.graphql(`mutation ($p: String!) { editLoad(permalink: $p, patch: { customerName: "Acme" }) { customerName } }`, {
      p: load.native_system_load_permalink,
    });
    expect(res.body.errors).toBeUndefined();
    const events = await eventsOf(testApp, tenant.id, start);
    expect(events.map((e) => [e.type, e.data.changedFields, e.data.load.customerName])).toEqual([['load.changed', ['customerName'], 'Acme']]);
  });

  test('re-phasing by a status mapping records load.phase_changed for each load', async ({ testApp, api, tenant }) => {
    const a = await seed(api, routes.load, loadBody(tenant, { native_system_load_status: 'At Dock' }));
    const b = await seed(api, routes.load, loadBody(tenant, { native_system_load_status: 'at dock ' }));
    const start = await lastSeq(testApp, tenant.id);
    const res = await api.graphql(`mutation { setStatusMapping(status: "At Dock", phase: AT_PICKUP) { phase } }`);
    expect(res.body.errors).toBeUndefined();
    const events = await eventsOf(testApp, tenant.id, start);
    expect(events.map((e) => [e.type, e.loadPermalink, e.data.to]).sort()).toEqual(
      [
        ['load.phase_changed', a.native_system_load_permalink, 'AT_PICKUP'],
        ['load.phase_changed', b.native_system_load_permalink, 'AT_PICKUP'],
      ].sort(),
    );
  });

  test('seq counts per tenant and stays gap-free and unique under concurrent writes', async ({ testApp, api, tenant, otherApi, otherTenant }) => {
    const loads = Array.from({ length: 30 }, () => loadBody(tenant));
    const others = Array.from({ length: 10 }, () => loadBody(otherTenant));
    const results = await Promise.all([...loads.map((l) => api.post(routes.load, l)), ...others.map((l) => otherApi.post(routes.load, l))]);
    expect(results.every((r) => r.body.status === 'processed')).toBe(true);
    const events = await eventsOf(testApp, tenant.id);
    expect(events.map((e) => e.seq)).toEqual(Array.from({ length: 30 }, (_, i) => BigInt(i + 1)));
    expect(new Set(events.map((e) => e.loadPermalink))).toEqual(new Set(loads.map((l) => l.native_system_load_permalink)));
    expect((await eventsOf(testApp, otherTenant.id)).map((e) => e.seq)).toEqual(Array.from({ length: 10 }, (_, i) => BigInt(i + 1)));
  });

  test('readers polling while writers commit and two instances number events never skip or repeat one', async ({ testApp, api, tenant }) => {
    // On PostgreSQL the writes, the numbering passes of "both instances" and the reads run truly in
    // parallel: a seq that became visible before a smaller one would make a reader skip it.
    const { db } = testApp.database;
    const otherInstance = createEventSequencer({ db, logger: createLogger('silent') });
    const total = 40;
    let writing = true;
    const read = async (sequencer: typeof otherInstance) => {
      const seen: bigint[] = [];
      let cursor = 0n;
      for (;;) {
        const done = !writing;
        await sequencer.sequence(tenant.id);
        const page = await readLoadEvents(db, tenant.id, cursor, 100);
        for (const event of page) seen.push(event.seq);
        cursor = page.at(-1)?.seq ?? cursor;
        if (done && !page.length) return seen;
        await new Promise((resolve) => setTimeout(resolve, 1)); // lets the writers' requests in (PGlite answers without yielding)
      }
    };
    const readers = [read(testApp.app.services.sequencer), read(otherInstance)];
    const writes = Array.from({ length: total }, () => api.post(routes.load, loadBody(tenant)));
    expect((await Promise.all(writes)).every((r) => r.body.status === 'processed')).toBe(true);
    writing = false;
    const expected = Array.from({ length: total }, (_, i) => BigInt(i + 1));
    for (const seen of await Promise.all(readers)) expect(seen).toEqual(expected);
  });

  // The write statement alone (editLoad's), as an instance that died before its sequencing pass left it.
  const editAlone = (testApp: TestApp, tenant: { id: string; slug: string }, permalink: string, sql = testApp.database.db.sql) =>
    editLoad({
      db: { ...testApp.database.db, sql },
      tenant: { id: tenant.id, slug: tenant.slug, name: tenant.slug, tmsUrlTemplate: null },
      permalink,
      patch: { bol_number: 'BY-HAND' },
      now: new Date(),
    });

  test('a write whose instance did not number its events is numbered by the next read or by the sweep', async ({ testApp, api, tenant }) => {
    const load = await seed(api, routes.load, loadBody(tenant));
    const start = await lastSeq(testApp, tenant.id);
    await editAlone(testApp, tenant, load.native_system_load_permalink as string);
    // Recorded in the write's transaction, not numbered yet: invisible to readers of `seq > cursor`.
    expect(await testApp.database.db.prisma.loadEvent.count({ where: { tenantId: tenant.id, seq: null } })).toBe(1);
    expect(await eventsOf(testApp, tenant.id, start)).toEqual([]);
    expect(await testApp.app.services.sequencer.sweep()).toBe(1);
    const events = await eventsOf(testApp, tenant.id, start);
    expect(events.map((e) => [e.seq, e.type, e.loadPermalink])).toEqual([[start + 1n, 'load.changed', load.native_system_load_permalink]]);
    expect(await testApp.app.services.sequencer.sweep()).toBe(0);
  });

  test('a write that rolls back leaves no event', async ({ testApp, api, tenant }) => {
    const load = await seed(api, routes.load, loadBody(tenant));
    const start = await lastSeq(testApp, tenant.id);
    // A rehearsal's transaction always rolls back (a dry run's).
    await testApp.database.db.rehearse((sql) => editAlone(testApp, tenant, load.native_system_load_permalink as string, sql));
    expect(await testApp.database.db.prisma.loadEvent.count({ where: { tenantId: tenant.id, seq: null } })).toBe(0);
    expect(await eventsOf(testApp, tenant.id, start)).toEqual([]);
    expect(await testApp.database.db.prisma.load.count({ where: { tenantId: tenant.id, bolNumber: 'BY-HAND' } })).toBe(0);
  });
});
