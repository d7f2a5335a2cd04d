/**
 * A small, realistic data set for a tenant, posted through the public API only (REST for records,
 * GraphQL's `setStatusMapping` for the mapping), so it exercises exactly what a TMS would: a status
 * mapping, carriers, one load in every phase (plus one whose status is not mapped) with legs, stops,
 * GPS pings and check calls. Idempotent: a second run answers skipped/duplicate, never an error.
 */

/** Sends one request to the service (global `fetch` against a URL, or `app.fetch` in-process). */
export type Send = (path: string, init: RequestInit) => Promise<Response>;

type Body = Record<string, unknown>;

/** The demo TMS's statuses and the phase each maps to. */
export const demoStatuses = [
  ['Tendered', 'PLANNED'],
  ['Covered', 'COVERED'],
  ['Dispatched', 'DISPATCHED'],
  ['At Pickup', 'AT_PICKUP'],
  ['In Transit', 'IN_TRANSIT'],
  ['At Delivery', 'AT_DELIVERY'],
  ['Delivered', 'DELIVERED'],
  ['Invoiced', 'COMPLETED'],
  ['Cancelled', 'CANCELLED'],
] as const;

const lanes = [
  { from: ['Chicago', 'IL', 41.88, -87.63], to: ['Dallas', 'TX', 32.78, -96.8] },
  { from: ['Atlanta', 'GA', 33.75, -84.39], to: ['Columbus', 'OH', 39.96, -83.0] },
  { from: ['Los Angeles', 'CA', 34.05, -118.24], to: ['Phoenix', 'AZ', 33.45, -112.07] },
  { from: ['Memphis', 'TN', 35.15, -90.05], to: ['Denver', 'CO', 39.74, -104.99] },
  { from: ['Newark', 'NJ', 40.74, -74.17], to: ['Charlotte', 'NC', 35.23, -80.84] },
] as const;

const carriers = [
  { id: 'C100', name: 'Fast Freight LLC', mc: 'MC100100', dot: '2100100', scac: 'FFRT' },
  { id: 'C200', name: 'Blue Line Trucking', mc: 'MC200200', dot: '2200200', scac: 'BLUL' },
  { id: 'C300', name: 'Prairie Haulers', mc: 'MC300300', dot: '2300300', scac: 'PRHL' },
] as const;

const hours = (base: Date, h: number) => new Date(base.getTime() + h * 3_600_000).toISOString();

/** Every request of the data set, in posting order (parents first). */
function demoRequests(slug: string, now: Date): { path: string; body: Body; source?: string }[] {
  const p = (id: string) => `${id}-${slug}`;
  const requests: { path: string; body: Body; source?: string }[] = [];
  for (const c of carriers) {
    requests.push({
      path: '/api/v1/carriers/upsert',
      body: {
        native_system_carrier_permalink: p(c.id),
        native_system_carrier_id: c.id,
        carrier_name: c.name,
        mc_number: c.mc,
        dot_number: c.dot,
        scac: c.scac,
      },
    });
  }
  const statuses = [...demoStatuses.map(([status]) => status), 'Awaiting Docs'];
  statuses.forEach((status, i) => {
    const n = 1001 + i;
    const load = `L${n}`;
    const lane = lanes[i % lanes.length]!;
    const carrier = carriers[i % carriers.length]!;
    const start = new Date(now.getTime() + (i - 5) * 86_400_000);
    const progress = i; // how far along: 0 = tendered … 7 = invoiced, 8 = cancelled
    requests.push({
      path: '/api/v1/loads/upsert',
      source: 'pull',
      body: {
        native_system_load_permalink: p(load),
        native_system_load_id: load,
        native_system_load_status: status,
        native_system_customer_reference_number: `CR-${n}`,
        bol_number: `BOL-${n}`,
        po_number: `PO-${n}`,
      },
    });
    const leg = `G${n}`;
    requests.push({
      path: '/api/v1/loadlegs/upsert',
      source: 'pull',
      body: {
        native_system_load_leg_permalink: p(leg),
        native_system_load_leg_id: leg,
        load_leg_sequence: 1,
        native_system_load_id: load,
        native_system_load_permalink: p(load),
        ...(progress >= 1
          ? { native_system_carrier_permalink: p(carrier.id), native_system_carrier_id: carrier.id, driver_name: ['Sam Ortiz', 'Dana Lee', 'Ray Novak'][i % 3] }
          : {}),
        native_system_reference_number: `LR-${n}`,
        pickup_reference_number: `PU-${n}`,
      },
    });
    [lane.from, lane.to].forEach(([city, state, latitude, longitude], s) => {
      const appointment = hours(start, s * 30);
      const arrived = (s === 0 && progress >= 3 && progress < 8) || (s === 1 && progress >= 5 && progress < 8);
      const departed = (s === 0 && progress >= 4 && progress < 8) || (s === 1 && progress >= 6 && progress < 8);
      requests.push({
        path: '/api/v1/stops/upsert',
        source: 'pull',
        body: {
          native_system_stop_permalink: p(`S${n}-${s + 1}`),
          native_system_stop_id: `S${n}-${s + 1}`,
          native_system_load_leg_permalink: p(leg),
          stop_sequence: s + 1,
          stop_type: s === 0 ? 'pickup' : 'delivery',
          location_name: `${city} ${s === 0 ? 'Distribution Center' : 'Warehouse'}`,
          city,
          state,
          country: 'US',
          latitude,
          longitude,
          appointment_start: appointment,
          appointment_end: hours(start, s * 30 + 2),
          ...(arrived ? { arrived_at: hours(start, s * 30 + 0.5) } : {}),
          ...(departed ? { departed_at: hours(start, s * 30 + 1.5) } : {}),
          reference_number: `${s === 0 ? 'PU' : 'DEL'}-${n}`,
        },
      });
    });
    if (progress >= 2 && progress < 8) {
      const [, , fromLat, fromLng] = lane.from;
      const [, , toLat, toLng] = lane.to;
      for (let k = 0; k < 3; k++) {
        const f = (Math.min(1, (progress - 2) / 4) * (k + 1)) / 3;
        requests.push({
          path: '/api/v1/loadupdates/create',
          source: 'webhook',
          body: {
            native_system_load_update_permalink: p(`U${n}-gps-${k + 1}`),
            native_system_load_permalink: p(load),
            native_system_load_leg_permalink: p(leg),
            update_type: 'gps_ping',
            occurred_at: hours(start, 1 + k * 6),
            latitude: Math.round((fromLat + (toLat - fromLat) * f) * 1e4) / 1e4,
            longitude: Math.round((fromLng + (toLng - fromLng) * f) * 1e4) / 1e4,
            source: 'ELD',
          },
        });
      }
      requests.push({
        path: '/api/v1/loadupdates/create',
        source: 'webhook',
        body: {
          native_system_load_update_permalink: p(`U${n}-call-1`),
          native_system_load_permalink: p(load),
          native_system_load_leg_permalink: p(leg),
          update_type: 'check_call',
          occurred_at: hours(start, 12),
          native_system_load_status: status,
          city: lane.to[0],
          state: lane.to[1],
          eta: hours(start, 30),
          message: `Driver called in: ${status.toLowerCase()}, on schedule.`,
          source: 'dispatcher',
        },
      });
    }
  });
  return requests;
}

export interface SeedSummary {
  mappings: number;
  /** Answers by outcome (`processed`, `skipped`, `duplicate`). */
  outcomes: Record<string, number>;
}

/** "9 status mappings; records 57 processed" (what `npm run seed` and `npm start -- --demo-data` print). */
export const describeSeed = ({ mappings, outcomes }: SeedSummary) =>
  `${mappings} status mappings; records ${Object.entries(outcomes)
    .map(([outcome, n]) => `${n} ${outcome}`)
    .join(', ')}`;

/** Posts the data set with `apiKey`; throws on the first answer that is not a 200. */
export async function seedDemoData(send: Send, apiKey: string, now = new Date()): Promise<SeedSummary> {
  const headers = { 'content-type': 'application/json', 'x-api-key': apiKey };
  const graphql = async <Data>(query: string, variables: Record<string, unknown> = {}): Promise<Data> => {
    const res = await send('/graphql', { method: 'POST', headers, body: JSON.stringify({ query, variables }) });
    const body = (await res.json()) as { data?: Data; errors?: { message: string }[] };
    if (res.status !== 200 || body.errors?.length) throw new Error(`GraphQL answered ${res.status}: ${JSON.stringify(body.errors ?? body)}`);
    return body.data as Data;
  };
  const { viewer } = await graphql<{ viewer: { slug: string } }>('{ viewer { slug } }');
  for (const [status, phase] of demoStatuses) {
    await graphql('mutation Map($status: String!, $phase: Phase!) { setStatusMapping(status: $status, phase: $phase) { status } }', { status, phase });
  }
  const outcomes: Record<string, number> = {};
  for (const { path, body, source } of demoRequests(viewer.slug, now)) {
    const res = await send(path, {
      method: 'POST',
      headers: { ...headers, ...(source ? { 'service-ingest-source': source } : {}) },
      body: JSON.stringify(body),
    });
    const answer = (await res.json()) as { status?: string };
    if (res.status !== 200 || !answer.status) throw new Error(`POST ${path} answered ${res.status}: ${JSON.stringify(answer)}`);
    outcomes[answer.status] = (outcomes[answer.status] ?? 0) + 1;
  }
  return { mappings: demoStatuses.length, outcomes };
}
