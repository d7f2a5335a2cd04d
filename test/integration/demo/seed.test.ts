/**
 * `seedDemoData` (behind `npm run seed`) through the real app: every record it posts passes the field
 * rules, the data set covers what issue #11 asks for, and a second run is harmless.
 */
import { demoStatuses, exampleRequest, seedDemoData, type DemoRequest } from '../../../src/demo/seed.js';
import { recordKinds, recordSpecOf, recordSpecs } from '../../../src/domain/registry.js';
import { restPath } from '../../../src/domain/declaration/record.js';
import { apiFor } from '../../helpers/app.js';
import { describe, expect, test } from '../../fixtures.js';

const snapshot = `{
  statusMappings { status phase }
  carriers(first: 100) { totalCount edges { node { permalink name } } }
  loads(first: 100) {
    totalCount
    edges { node {
      permalink status phase
      history { outcome changed body }
      legs { permalink carrier { permalink } stops { permalink type sequence latitude longitude appointmentStart arrivedAt departedAt } }
      updates(first: 10) { permalink type latitude longitude occurredAt phase eta }
    } }
  }
}`;

// About 270 requests in-process: a generous timeout on a shared machine (no timing assertions).
describe('demo seed', { timeout: 180_000 }, () => {
  test('fills a tenant with carriers, loads in every phase, legs, stops, updates and a status mapping; twice is safe', async ({ testApp, tenant }) => {
    const api = apiFor(testApp, tenant.apiKey);
    // The paths the seed posted to and the app answered 200.
    const accepted = new Set<string>();
    const send = async (path: string, init: RequestInit) => {
      const res = await testApp.fetch(path, init);
      if (res.status === 200) accepted.add(path);
      return res;
    };

    const first = await seedDemoData(send, tenant.apiKey);
    expect(first.mappings).toBe(demoStatuses.length);
    expect(Object.keys(first.outcomes)).toEqual(['processed']);
    // Every record kind the service knows, posted on its own route (a kind added later is seeded too).
    expect(recordKinds.filter((kind) => !accepted.has(restPath(recordSpecOf[kind])))).toEqual([]);

    const res = await api.graphql(snapshot);
    expect(res.body.errors).toBeUndefined();
    const data = res.body.data;
    // A stop dropped from a route: deleted, so only a by-permalink read with includeDeleted shows it.
    const dropped = `S1001-dropped-${tenant.slug}`;
    const tombstone = await api.graphql(
      `{ live: stop(permalink: "${dropped}") { permalink } gone: stop(permalink: "${dropped}", includeDeleted: true) { deletedAt } }`,
    );
    expect(tombstone.body.data).toEqual({ live: null, gone: { deletedAt: expect.any(String) } });

    expect(data.statusMappings.map((m: { status: string; phase: string }) => [m.status, m.phase]).sort()).toEqual(demoStatuses.map(([s, p]) => [s, p]).sort());

    expect(data.carriers.totalCount).toBe(3);
    const carrierPermalinks = new Set(data.carriers.edges.map((e: any) => e.node.permalink));

    const loads = data.loads.edges.map((e: any) => e.node);
    expect(data.loads.totalCount).toBe(loads.length);
    const phases = loads.map((l: any) => l.phase).sort();
    expect(phases).toEqual([...demoStatuses.map(([, phase]) => phase), 'UNMAPPED'].sort());

    for (const load of loads) {
      expect(load.legs.length).toBeGreaterThan(0);
      for (const leg of load.legs) {
        expect(leg.stops.map((s: any) => s.type)).toEqual(['PICKUP', 'DELIVERY']);
        for (const stop of leg.stops) expect(stop.latitude).toEqual(expect.any(Number));
        if (leg.carrier) expect(carrierPermalinks.has(leg.carrier.permalink)).toBe(true);
      }
    }
    // A load with a payload history: posted as dispatched, then in transit (newest first).
    const inTransit = loads.find((l: any) => l.status === 'In Transit');
    expect(inTransit.history.map((h: any) => [h.outcome, h.changed, h.body.native_system_load_status])).toEqual([
      ['PROCESSED', true, 'In Transit'],
      ['PROCESSED', true, 'Dispatched'],
    ]);
    const legsWithCarrier = loads.flatMap((l: any) => l.legs).filter((leg: any) => leg.carrier);
    expect(legsWithCarrier.length).toBeGreaterThan(0);

    const updates = loads.flatMap((l: any) => l.updates);
    const pings = updates.filter((u: any) => u.type === 'GPS_PING');
    const calls = updates.filter((u: any) => u.type === 'CHECK_CALL');
    expect(pings.length).toBeGreaterThan(0);
    expect(calls.length).toBeGreaterThan(0);
    for (const ping of pings) {
      expect(ping.latitude).toEqual(expect.any(Number));
      expect(ping.longitude).toEqual(expect.any(Number));
    }

    // A true story relative to now: every arrival, departure, ping and call lies in the past, and each
    // load's stops say what its phase says (issue 20).
    const now = testApp.clock.now().getTime();
    const time = (iso: string | null) => (iso === null ? null : Date.parse(iso));
    expect(data.statusMappings).toContainEqual({ status: 'Booked', phase: 'COVERED' });
    const order = ['PLANNED', 'COVERED', 'DISPATCHED', 'AT_PICKUP', 'IN_TRANSIT', 'AT_DELIVERY', 'DELIVERED', 'COMPLETED'];
    for (const load of loads) {
      const [pickup, delivery] = load.legs[0].stops;
      for (const stop of [pickup, delivery]) {
        for (const at of [stop.arrivedAt, stop.departedAt]) if (at) expect(time(at), load.status).toBeLessThanOrEqual(now);
        if (stop.departedAt) expect(time(stop.departedAt)).toBeGreaterThan(time(stop.arrivedAt)!);
      }
      const expectStops = (pickedUp: [boolean, boolean], delivered: [boolean, boolean]) => {
        expect([!!pickup.arrivedAt, !!pickup.departedAt], `${load.status} pickup`).toEqual(pickedUp);
        expect([!!delivery.arrivedAt, !!delivery.departedAt], `${load.status} delivery`).toEqual(delivered);
      };
      const phase = load.phase === 'UNMAPPED' ? 'DELIVERED' : load.phase; // "Awaiting Docs": delivered, paperwork open
      if (['PLANNED', 'COVERED', 'DISPATCHED', 'CANCELLED'].includes(phase)) {
        expect(time(pickup.appointmentStart), load.status).toBeGreaterThan(now);
        expectStops([false, false], [false, false]);
      }
      if (phase === 'AT_PICKUP') expectStops([true, false], [false, false]);
      if (phase === 'IN_TRANSIT') {
        expectStops([true, true], [false, false]);
        expect(time(delivery.appointmentStart)).toBeGreaterThan(now);
      }
      if (phase === 'AT_DELIVERY') expectStops([true, true], [true, false]);
      if (phase === 'DELIVERED' || phase === 'COMPLETED') expectStops([true, true], [true, true]);
      for (const update of load.updates) {
        expect(time(update.occurredAt), `${load.status} ${update.type}`).toBeLessThanOrEqual(now);
        if (update.eta) expect(time(update.eta)).toBeGreaterThan(time(update.occurredAt)!);
        if (update.type !== 'CHECK_CALL') continue;
        // A call never claims more progress than the load had then, nor than it has now.
        expect(order.indexOf(update.phase), load.status).toBeLessThanOrEqual(order.indexOf(phase));
        if (update.phase === 'AT_DELIVERY' || update.phase === 'DELIVERED') {
          expect(time(update.occurredAt)).toBeGreaterThanOrEqual(time(delivery.arrivedAt)!);
        }
      }
    }

    // The feed's data-quality gaps show in the panel's numbers: delivery stops sent by webhook lack the
    // city (the pull path sends it), some legs lack the unique key ("View in TMS").
    const quality = async (source: string) =>
      (await api.graphql(`{ dataQuality(source: ${source}) { kinds { kind fields { field present missing missingExamples(first: 50) } } } }`)).body.data
        .dataQuality;
    const coverage = (q: any, kind: string, field: string) => q.kinds.find((k: any) => k.kind === kind).fields.find((f: any) => f.field === field);
    const [pull, webhook] = [await quality('PULL'), await quality('WEBHOOK')];
    expect(coverage(pull, 'STOP', 'city')).toMatchObject({ missing: 0 });
    expect(coverage(pull, 'STOP', 'city').present).toBeGreaterThan(0);
    expect(coverage(webhook, 'STOP', 'city')).toMatchObject({ present: 0 });
    expect(coverage(webhook, 'STOP', 'city').missing).toBeGreaterThan(0);
    expect(coverage(webhook, 'STOP', 'city').missingExamples.every((p: string) => /^S\d+-2-/.test(p))).toBe(true);
    const key = coverage(pull, 'LOAD_LEG', 'native_system_load_unique_key');
    expect(key.present).toBeGreaterThan(key.missing);
    expect(key.missing).toBeGreaterThan(0);

    // A second run: no error, nothing new, nothing changed.
    const second = await seedDemoData(send, tenant.apiKey);
    expect(second.outcomes.processed ?? 0).toBeLessThan(first.outcomes.processed!);
    const total = (o: Record<string, number>) => Object.values(o).reduce((a, b) => a + b, 0);
    expect(total(second.outcomes)).toBe(total(first.outcomes));
    const again = await api.graphql(snapshot);
    expect(again.body.errors).toBeUndefined();
    expect(again.body.data.carriers.totalCount).toBe(data.carriers.totalCount);
    expect(again.body.data.loads.totalCount).toBe(data.loads.totalCount);
    const count = (d: any, pick: (l: any) => unknown[]) => d.loads.edges.flatMap((e: any) => pick(e.node)).length;
    const legs = (l: any) => l.legs;
    const stops = (l: any) => l.legs.flatMap((leg: any) => leg.stops);
    const ups = (l: any) => l.updates;
    expect(count(again.body.data, legs)).toBe(count(data, legs));
    expect(count(again.body.data, stops)).toBe(count(data, stops));
    expect(count(again.body.data, ups)).toBe(count(data, ups));
    expect(again.body.data.statusMappings).toEqual(data.statusMappings);
  });

  test("a kind the story does not tell of is seeded from its declaration's example, under the records posted before it", async ({ testApp, tenant }) => {
    // Every kind as if it were new: each posted from its example, in registry order (parents first), each under the ones before.
    const posted: DemoRequest[] = [];
    for (const spec of recordSpecs) {
      const request = exampleRequest(spec, tenant.slug, posted);
      const res = await testApp.fetch(request.path, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': tenant.apiKey },
        body: JSON.stringify(request.body),
      });
      expect([spec.kind, res.status, ((await res.json()) as { status?: string }).status]).toEqual([spec.kind, 200, 'processed']);
      posted.push(request);
    }
    // A leg hangs under the load posted before it, and names it by id as well.
    const leg = posted.find((request) => request.path === restPath(recordSpecOf.load_leg))!.body;
    const load = posted.find((request) => request.path === restPath(recordSpecOf.load))!.body;
    expect(leg.native_system_load_permalink).toBe(load.native_system_load_permalink);
    expect(`${leg.native_system_load_id as string}-${tenant.slug}`).toBe(load.native_system_load_permalink);
  });
});
