/**
 * Request bodies the benchmark sends: contract-valid records of every kind, with permalinks ending in
 * the tenant's slug. Records are numbered, so parents are addressed by number (`load(7)` has legs
 * `leg(7, 1)` and `leg(7, 2)`, each with stops `stop(7, leg, 1..2)`).
 */

type Body = Record<string, unknown>;

const statuses = ['Booked', 'Dispatched', 'In Transit', 'Delivered'];
const cities = [
  ['Chicago', 'IL', 41.88, -87.63],
  ['Dallas', 'TX', 32.78, -96.8],
  ['Atlanta', 'GA', 33.75, -84.39],
  ['Denver', 'CO', 39.74, -104.99],
] as const;

export const permalinks = {
  carrier: (slug: string, i: number) => `C${i}-${slug}`,
  load: (slug: string, i: number) => `L${i}-${slug}`,
  leg: (slug: string, load: number, seq: number) => `G${load}.${seq}-${slug}`,
  stop: (slug: string, load: number, leg: number, seq: number) => `S${load}.${leg}.${seq}-${slug}`,
  update: (slug: string, i: number) => `U${i}-${slug}`,
};

export function carrier(slug: string, i: number): Body {
  return {
    native_system_carrier_permalink: permalinks.carrier(slug, i),
    native_system_carrier_id: `C${i}`,
    carrier_name: `Carrier ${i} Trucking`,
    mc_number: `MC${100000 + i}`,
    dot_number: `DOT${200000 + i}`,
    scac: `SC${i % 100}`,
  };
}

/** A load as a polling TMS sends it; `revision` changes the status so repeats are real updates. */
export function load(slug: string, i: number, revision = 0): Body {
  return {
    native_system_load_permalink: permalinks.load(slug, i),
    native_system_load_id: `L${i}`,
    native_system_load_status: statuses[(i + revision) % statuses.length],
    native_system_customer_reference_number: `CR-${i}`,
    order_type: 'FTL',
    bol_number: `BOL-${i}`,
    po_number: `PO-${i}`,
    load_mode: 'truckload',
    customer_name: `Customer ${i % 50}`,
  };
}

export function leg(slug: string, loadIndex: number, seq: number, carrierCount: number): Body {
  return {
    native_system_load_leg_permalink: permalinks.leg(slug, loadIndex, seq),
    native_system_load_leg_id: `G${loadIndex}.${seq}`,
    load_leg_sequence: seq,
    native_system_load_id: `L${loadIndex}`,
    native_system_load_permalink: permalinks.load(slug, loadIndex),
    native_system_load_unique_key: `K${loadIndex}.${seq}`,
    native_system_carrier_permalink: carrierCount > 0 ? permalinks.carrier(slug, (loadIndex + seq) % carrierCount) : null,
    driver_name: `Driver ${loadIndex % 300}`,
    driver_phone: '+1 312 555 0101',
    truck_number: `T-${loadIndex % 900}`,
    trailer_number: `TR-${loadIndex % 700}`,
    native_system_reference_number: `LR-${loadIndex}.${seq}`,
  };
}

export function stop(slug: string, loadIndex: number, legSeq: number, seq: number): Body {
  const [city, state, latitude, longitude] = cities[(loadIndex + legSeq + seq) % cities.length]!;
  const day = 10 + (loadIndex % 15);
  const hour = seq === 1 ? 8 : 16;
  return {
    native_system_stop_permalink: permalinks.stop(slug, loadIndex, legSeq, seq),
    native_system_stop_id: `S${loadIndex}.${legSeq}.${seq}`,
    native_system_load_leg_permalink: permalinks.leg(slug, loadIndex, legSeq),
    stop_sequence: seq,
    stop_type: seq === 1 ? 'pickup' : 'delivery',
    location_name: `${city} DC ${loadIndex % 40}`,
    address_line1: `${loadIndex % 999} Main St`,
    city,
    state,
    postal_code: '60601',
    country: 'US',
    latitude,
    longitude,
    appointment_start: `2026-11-${day}T${String(hour).padStart(2, '0')}:00:00Z`,
    appointment_end: `2026-11-${day}T${String(hour + 2).padStart(2, '0')}:00:00Z`,
    reference_number: `SR-${loadIndex}.${legSeq}.${seq}`,
  };
}

export function update(slug: string, i: number, loadIndex: number): Body {
  const [city, state, latitude, longitude] = cities[i % cities.length]!;
  const ping = i % 2 === 0;
  return {
    native_system_load_update_permalink: permalinks.update(slug, i),
    native_system_load_permalink: permalinks.load(slug, loadIndex),
    update_type: ping ? 'gps_ping' : 'check_call',
    occurred_at: new Date(Date.UTC(2026, 10, 20) + i * 60_000).toISOString(),
    ...(ping ? {} : { native_system_load_status: 'In Transit', message: 'On schedule' }),
    latitude,
    longitude,
    city,
    state,
    country: 'US',
    source: 'ELD',
  };
}

/** The load a record of any kind but carrier belongs to (its change events carry that load's permalink). */
export function loadPermalinkOf(body: Body): string | null {
  if (typeof body.native_system_load_permalink === 'string') return body.native_system_load_permalink;
  // A stop names its leg only: `G<load>.<seq>-<slug>` is a leg of `L<load>-<slug>`.
  const leg = typeof body.native_system_load_leg_permalink === 'string' ? /^G(\d+)\.\d+-(.+)$/.exec(body.native_system_load_leg_permalink) : null;
  return leg ? permalinks.load(leg[2]!, Number(leg[1])) : null;
}
