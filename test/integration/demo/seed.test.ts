/**
 * `seedDemoData` (behind `npm run seed`) through the real app: every record it posts passes the field
 * rules, the data set covers what issue #11 asks for, and a second run is harmless.
 */
import { demoStatuses, seedDemoData } from '../../../src/demo/seed.js';
import { apiFor } from '../../helpers/app.js';
import { describe, expect, test } from '../../fixtures.js';

const snapshot = `{
  statusMappings { status phase }
  carriers(first: 100) { totalCount edges { node { permalink name } } }
  loads(first: 100) {
    totalCount
    edges { node {
      permalink status phase
      legs { permalink carrier { permalink } stops { permalink type sequence latitude longitude } }
      updates(first: 100) { permalink type latitude longitude }
    } }
  }
}`;

// About 270 requests in-process: a generous timeout on a shared machine (no timing assertions).
describe('demo seed', { timeout: 180_000 }, () => {
  test('fills a tenant with carriers, loads in every phase, legs, stops, updates and a status mapping; twice is safe', async ({ testApp, tenant }) => {
    const api = apiFor(testApp, tenant.apiKey);
    const send = (path: string, init: RequestInit) => testApp.fetch(path, init);

    const first = await seedDemoData(send, tenant.apiKey);
    expect(first.mappings).toBe(demoStatuses.length);
    expect(Object.keys(first.outcomes)).toEqual(['processed']);

    const res = await api.graphql(snapshot);
    expect(res.body.errors).toBeUndefined();
    const data = res.body.data;

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
});
