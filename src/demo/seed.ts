/**
 * A small, realistic data set for a tenant, posted through the public API only (REST for records,
 * GraphQL's `setStatusMapping` for the mapping), so it exercises exactly what a TMS would: a status
 * mapping, carriers, one load in every phase (plus one whose status is not mapped), each placed in time
 * so that its status is true now (demoLoads), with legs, stops,
 * GPS pings and check calls. Idempotent: a second run answers skipped/duplicate, never an error.
 * Like a real feed, it leaves a few recommended fields empty on purpose, so the console's data-quality
 * panel has something to show (docs/guides/data-quality.md): `feedGaps`.
 */
import { recordSpecOf, recordSpecs } from '../domain/registry.js';
import { restPath, type RecordSpec } from '../domain/declaration/record.js';

/** Sends one request to the service (global `fetch` against a URL, or `app.fetch` in-process). */
export type Send = (path: string, init: RequestInit) => Promise<Response>;

type Body = Record<string, unknown>;

/** The demo TMS's statuses and the phase each maps to (`Booked` is the README's example status). */
export const demoStatuses = [
  ['Tendered', 'PLANNED'],
  ['Booked', 'COVERED'],
  ['Covered', 'COVERED'],
  ['Dispatched', 'DISPATCHED'],
  ['At Pickup', 'AT_PICKUP'],
  ['In Transit', 'IN_TRANSIT'],
  ['At Delivery', 'AT_DELIVERY'],
  ['Delivered', 'DELIVERED'],
  ['Invoiced', 'COMPLETED'],
  ['Cancelled', 'CANCELLED'],
] as const;

/** How far a load got: 0 tendered, 1 covered, 2 dispatched, 3 at pickup, 4 in transit, 5 at delivery, 6 delivered; -1 cancelled. */
type Stage = -1 | 0 | 1 | 2 | 3 | 4 | 5 | 6;

/**
 * One load per status, placed in time so that its status is true now: `pickupIn` is the pickup
 * appointment in hours from now (the delivery appointment is 30 h after it). Stops are arrived at half
 * an hour after their appointment and left an hour later, only when the stage says so, and every
 * arrival, departure, GPS ping and check call lies in the past.
 */
const demoLoads: { status: string; stage: Stage; pickupIn: number }[] = [
  { status: 'Tendered', stage: 0, pickupIn: 72 },
  { status: 'Booked', stage: 1, pickupIn: 48 },
  { status: 'Covered', stage: 1, pickupIn: 26 },
  { status: 'Dispatched', stage: 2, pickupIn: 5 },
  { status: 'At Pickup', stage: 3, pickupIn: -1 },
  { status: 'In Transit', stage: 4, pickupIn: -12 },
  { status: 'At Delivery', stage: 5, pickupIn: -32 },
  { status: 'Delivered', stage: 6, pickupIn: -54 },
  { status: 'Invoiced', stage: 6, pickupIn: -150 },
  { status: 'Cancelled', stage: -1, pickupIn: 40 },
  // Not in the mapping: shows as UNMAPPED in ingest health.
  { status: 'Awaiting Docs', stage: 6, pickupIn: -80 },
];

/** Hours from a stop's appointment to its arrival and departure, and from pickup to delivery appointment. */
const arriveAfter = 0.5;
const departAfter = 1.5;
const transitHours = 30;

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

/**
 * The demo feed's data-quality gaps: the legs of every `legsWithoutKey`-th load carry no
 * `native_system_load_unique_key` (no "View in TMS" link), and the delivery stops of every
 * `deliveriesByWebhook`-th load arrive by the TMS's webhook, which does not send the city (the board's
 * city filter misses them; the pull path sends it).
 */
const feedGaps = { legsWithoutKey: 4, deliveriesByWebhook: 3 } as const;

const hours = (base: Date, h: number) => new Date(base.getTime() + h * 3_600_000).toISOString();

/** One request of the data set: the route, the body and the `Service-Ingest-Source` it is sent with. */
export interface DemoRequest {
  path: string;
  body: Body;
  source?: string;
}

/** The tenant the declarations' body examples are written for (their permalinks end in `-demo`). */
const exampleTenant = 'demo';

/**
 * A kind the story of `demoRequests` does not tell of (one added later) is seeded all the same: one
 * record, its declaration's body example (the OpenAPI document's, `examples` in its zod body) moved
 * into the tenant `slug`, under the first record of each parent kind among `posted` (an optional
 * parent with none is left out).
 */
export function exampleRequest(spec: RecordSpec, slug: string, posted: readonly DemoRequest[]): DemoRequest {
  const example = (spec.body.meta()?.examples as Body[] | undefined)?.[0];
  if (!example) throw new Error(`${spec.kind} declares no body example to seed it from`);
  const inTenant = (value: unknown) =>
    value === exampleTenant
      ? slug
      : typeof value === 'string' && value.endsWith(`-${exampleTenant}`)
        ? `${value.slice(0, -exampleTenant.length)}${slug}`
        : value;
  const body: Body = Object.fromEntries(Object.entries(example).map(([field, value]) => [field, field.endsWith('_permalink') ? inTenant(value) : value]));
  for (const parent of spec.parents) {
    const parentSpec = recordSpecs.find((one) => one.table === parent.table)!;
    const permalink = posted.find((request) => request.path === restPath(parentSpec))?.body[parentSpec.permalinkField];
    const ids = parent.idField ? [parent.idField] : [];
    if (typeof permalink !== 'string') {
      for (const field of [parent.field, ...ids]) delete body[field];
      continue;
    }
    body[parent.field] = permalink;
    // A permalink is `<id>-<tenant slug>`.
    for (const field of ids) body[field] = permalink.slice(0, -(slug.length + 1));
  }
  return { path: restPath(spec), body };
}

/**
 * Every request of the data set, in posting order (parents first): the story of carriers, loads, legs,
 * stops and updates, then one record of each kind it does not tell of (`exampleRequest`).
 */
function demoRequests(slug: string, now: Date): DemoRequest[] {
  const p = (id: string) => `${id}-${slug}`;
  const requests: DemoRequest[] = [];
  for (const c of carriers) {
    requests.push({
      path: restPath(recordSpecOf.carrier),
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
  demoLoads.forEach(({ status, stage, pickupIn }, i) => {
    const n = 1001 + i;
    const load = `L${n}`;
    const lane = lanes[i % lanes.length]!;
    const carrier = carriers[i % carriers.length]!;
    const pickup = new Date(now.getTime() + pickupIn * 3_600_000);
    const at = (h: number) => hours(pickup, h);
    const loadRequest = (loadStatus: string): (typeof requests)[number] => ({
      path: restPath(recordSpecOf.load),
      source: 'pull',
      body: {
        native_system_load_permalink: p(load),
        native_system_load_id: load,
        native_system_load_status: loadStatus,
        native_system_customer_reference_number: `CR-${n}`,
        bol_number: `BOL-${n}`,
        po_number: `PO-${n}`,
      },
    });
    // A load with a payload history of more than one body (docs/guides/payload-history.md): the
    // in-transit load was first posted as dispatched, then its status changed.
    if (status === 'In Transit') requests.push(loadRequest('Dispatched'));
    requests.push(loadRequest(status));
    const leg = `G${n}`;
    requests.push({
      path: restPath(recordSpecOf.load_leg),
      source: 'pull',
      body: {
        native_system_load_leg_permalink: p(leg),
        native_system_load_leg_id: leg,
        load_leg_sequence: 1,
        native_system_load_id: load,
        native_system_load_permalink: p(load),
        ...(i % feedGaps.legsWithoutKey === feedGaps.legsWithoutKey - 1 ? {} : { native_system_load_unique_key: String(n) }),
        ...(stage >= 1
          ? { native_system_carrier_permalink: p(carrier.id), native_system_carrier_id: carrier.id, driver_name: ['Sam Ortiz', 'Dana Lee', 'Ray Novak'][i % 3] }
          : {}),
        native_system_reference_number: `LR-${n}`,
        pickup_reference_number: `PU-${n}`,
      },
    });
    [lane.from, lane.to].forEach(([city, state, latitude, longitude], s) => {
      const appointment = s * transitHours;
      const arrived = stage >= (s === 0 ? 3 : 5);
      const departed = stage >= (s === 0 ? 4 : 6);
      const byWebhook = s === 1 && i % feedGaps.deliveriesByWebhook === 1;
      requests.push({
        path: restPath(recordSpecOf.stop),
        source: byWebhook ? 'webhook' : 'pull',
        body: {
          native_system_stop_permalink: p(`S${n}-${s + 1}`),
          native_system_stop_id: `S${n}-${s + 1}`,
          native_system_load_leg_permalink: p(leg),
          stop_sequence: s + 1,
          stop_type: s === 0 ? 'pickup' : 'delivery',
          location_name: `${city} ${s === 0 ? 'Distribution Center' : 'Warehouse'}`,
          ...(byWebhook ? {} : { city }),
          state,
          country: 'US',
          latitude,
          longitude,
          appointment_start: at(appointment),
          appointment_end: at(appointment + 2),
          ...(arrived ? { arrived_at: at(appointment + arriveAfter) } : {}),
          ...(departed ? { departed_at: at(appointment + departAfter) } : {}),
          reference_number: `${s === 0 ? 'PU' : 'DEL'}-${n}`,
        },
      });
    });
    if (i === 0) {
      // A stop the TMS dropped from the route: posted, then deleted (GraphQL shows it only with
      // `stop(permalink:, includeDeleted: true)`).
      const dropped = { native_system_stop_permalink: p(`S${n}-dropped`) };
      requests.push({
        path: restPath(recordSpecOf.stop),
        source: 'pull',
        body: {
          ...dropped,
          native_system_stop_id: `S${n}-dropped`,
          native_system_load_leg_permalink: p(leg),
          stop_sequence: 3,
          stop_type: 'delivery',
          location_name: 'Cancelled drop',
          city: 'Springfield',
          state: 'IL',
          country: 'US',
        },
      });
      requests.push({ path: restPath(recordSpecOf.stop, 'delete'), source: 'pull', body: dropped });
    }
    if (stage >= 2) {
      const [, , fromLat, fromLng] = lane.from;
      const [, , toLat, toLng] = lane.to;
      // Pings between leaving the pickup (or, before that, the last three hours) and reaching the
      // delivery (or now); the position follows the share of the planned transit covered.
      const nowH = -pickupIn;
      const from = stage >= 4 ? departAfter : nowH - 3;
      const to = stage >= 5 ? transitHours + arriveAfter : nowH;
      for (let k = 0; k < 3; k++) {
        const t = from + ((to - from) * (k + 1)) / 4;
        const f = stage >= 4 ? Math.min(1, (t - departAfter) / (transitHours + arriveAfter - departAfter)) : 0;
        requests.push({
          path: restPath(recordSpecOf.load_update),
          source: 'webhook',
          body: {
            native_system_load_update_permalink: p(`U${n}-gps-${k + 1}`),
            native_system_load_permalink: p(load),
            native_system_load_leg_permalink: p(leg),
            update_type: 'gps_ping',
            occurred_at: at(t),
            latitude: Math.round((fromLat + (toLat - fromLat) * f) * 1e4) / 1e4,
            longitude: Math.round((fromLng + (toLng - fromLng) * f) * 1e4) / 1e4,
            source: 'ELD',
          },
        });
      }
      // The latest check call says what was true when it was made: under way, at the delivery, or delivered.
      const call =
        stage <= 4
          ? { t: nowH - 0.5, status, message: `Driver called in: ${status.toLowerCase()}, on schedule.`, eta: at(transitHours) }
          : stage === 5
            ? { t: transitHours + arriveAfter + 0.25, status: 'At Delivery', message: 'Driver called in: at delivery, unloading.', eta: null }
            : { t: transitHours + departAfter + 0.1, status: 'Delivered', message: 'Driver called in: delivered, POD signed.', eta: null };
      requests.push({
        path: restPath(recordSpecOf.load_update),
        source: 'webhook',
        body: {
          native_system_load_update_permalink: p(`U${n}-call-1`),
          native_system_load_permalink: p(load),
          native_system_load_leg_permalink: p(leg),
          update_type: 'check_call',
          occurred_at: at(call.t),
          native_system_load_status: call.status,
          // In transit the driver is between cities: no city on the call.
          ...(stage === 4 ? {} : { city: (stage >= 5 ? lane.to : lane.from)[0], state: (stage >= 5 ? lane.to : lane.from)[1] }),
          ...(call.eta ? { eta: call.eta } : {}),
          message: call.message,
          source: 'dispatcher',
        },
      });
    }
  });
  for (const spec of recordSpecs) if (!requests.some((request) => request.path === restPath(spec))) requests.push(exampleRequest(spec, slug, requests));
  return requests;
}

export interface SeedSummary {
  mappings: number;
  /** Answers by outcome (`processed`, `skipped`, `duplicate`). */
  outcomes: Record<string, number>;
}

/** "10 status mappings; records 61 processed" (what `npm run seed` and `npm start -- --demo-data` print). */
export const describeSeed = ({ mappings, outcomes }: SeedSummary) =>
  `${mappings} status mappings; records ${Object.entries(outcomes)
    .map(([outcome, n]) => `${n} ${outcome}`)
    .join(', ')}`;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * `send`, waiting out refusals that say "later" as a TMS should: a 503 (overloaded, database away) or
 * a 429 (rate limited) is sent again after its `Retry-After` (at least a delay that doubles from 250 ms
 * to 5 s), for up to `patienceMs`; then the last answer is returned. The service's own seed is thus
 * never lost to its overload shedding on a busy machine.
 */
export function retryingLater(send: Send, patienceMs = 300_000): Send {
  return async (path, init) => {
    const giveUpAt = Date.now() + patienceMs;
    for (let backoffMs = 250; ; backoffMs = Math.min(backoffMs * 2, 5_000)) {
      const res = await send(path, init);
      if ((res.status !== 503 && res.status !== 429) || Date.now() >= giveUpAt) return res;
      await res.body?.cancel();
      const retryAfterMs = Number(res.headers.get('retry-after')) * 1000 || 0;
      await sleep(Math.min(Math.max(retryAfterMs, backoffMs), Math.max(0, giveUpAt - Date.now())));
    }
  };
}

/**
 * Posts the data set with `apiKey` (each request retried while the service answers 503 or 429: see
 * `retryingLater`); throws on the first other answer that is not a 200.
 */
export async function seedDemoData(sendOnce: Send, apiKey: string, now = new Date()): Promise<SeedSummary> {
  const send = retryingLater(sendOnce);
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
