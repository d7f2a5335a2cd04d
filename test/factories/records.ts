/**
 * Valid request bodies with unique permalinks ending in the tenant's slug (+ overrides), and seeders
 * that post them through the API like a TMS would.
 */
import { randomBytes } from 'node:crypto';
import { expect } from 'vitest';
import { recordSpecs, type RecordKind } from '../../src/domain/registry.js';
import { restPath } from '../../src/domain/declaration/record.js';
import type { Api } from '../helpers/app.js';

type Tenant = { slug: string };
type Body = Record<string, unknown>;

const uid = (prefix: string) => `${prefix}${randomBytes(4).toString('hex').toUpperCase()}`;

export function carrierBody(tenant: Tenant, overrides: Body = {}): Body {
  const id = uid('C');
  return {
    native_system_carrier_permalink: `${id}-${tenant.slug}`,
    native_system_carrier_id: id,
    carrier_name: `Carrier ${id}`,
    mc_number: `MC${id}`,
    dot_number: `DOT${id}`,
    scac: 'ABCD',
    ...overrides,
  };
}

export function loadBody(tenant: Tenant, overrides: Body = {}): Body {
  const id = uid('L');
  return {
    native_system_load_permalink: `${id}-${tenant.slug}`,
    native_system_load_id: id,
    native_system_load_status: 'Booked',
    native_system_customer_reference_number: `CR-${id}`,
    bol_number: `BOL-${id}`,
    po_number: `PO-${id}`,
    ...overrides,
  };
}

export function loadLegBody(tenant: Tenant, load: Body, overrides: Body = {}): Body {
  const id = uid('G');
  return {
    native_system_load_leg_permalink: `${id}-${tenant.slug}`,
    native_system_load_leg_id: id,
    load_leg_sequence: 1,
    native_system_load_id: load.native_system_load_id,
    native_system_load_permalink: load.native_system_load_permalink,
    native_system_reference_number: `LR-${id}`,
    pickup_reference_number: `PU-${id}`,
    ...overrides,
  };
}

export function stopBody(tenant: Tenant, leg: Body, overrides: Body = {}): Body {
  const id = uid('S');
  return {
    native_system_stop_permalink: `${id}-${tenant.slug}`,
    native_system_stop_id: id,
    native_system_load_leg_permalink: leg.native_system_load_leg_permalink,
    stop_sequence: 1,
    stop_type: 'pickup',
    city: 'Chicago',
    reference_number: `SR-${id}`,
    ...overrides,
  };
}

export function loadUpdateBody(tenant: Tenant, load: Body, overrides: Body = {}): Body {
  const id = uid('U');
  return {
    native_system_load_update_permalink: `${id}-${tenant.slug}`,
    native_system_load_permalink: load.native_system_load_permalink,
    update_type: 'check_call',
    occurred_at: '2026-11-20T10:00:00Z',
    message: 'On schedule',
    ...overrides,
  };
}

/** The single-record route of each kind, from the registry. */
export const routes = Object.fromEntries(recordSpecs.map((spec) => [spec.kind, restPath(spec)])) as Record<RecordKind, string>;

/** Posts a body and expects `processed`. */
export async function seed(api: Api, path: string, body: Body): Promise<Body> {
  const res = await api.post(path, body);
  expect(res.body, JSON.stringify(res.body)).toMatchObject({ status: 'processed' });
  return body;
}

/** A load with one leg (with a carrier) and one stop, posted in the contract's order. */
export async function seedLoadTree(api: Api, tenant: Tenant, overrides: { load?: Body } = {}) {
  const carrier = await seed(api, routes.carrier, carrierBody(tenant));
  const load = await seed(api, routes.load, loadBody(tenant, overrides.load));
  const leg = await seed(api, routes.load_leg, loadLegBody(tenant, load, { native_system_carrier_permalink: carrier.native_system_carrier_permalink }));
  const stop = await seed(api, routes.stop, stopBody(tenant, leg));
  return { carrier, load, leg, stop };
}

/**
 * Bodies carrying every contract field (for field-rule tests and absent-vs-null checks). Parents must
 * exist: pass the bodies they were seeded from.
 */
export const fullBodies = {
  carrier: (tenant: Tenant, overrides: Body = {}): Body =>
    carrierBody(tenant, { company_permalink: tenant.slug, email: 'dispatch@example.com', phone: '+1 312 555 0100', ...overrides }),
  load: (tenant: Tenant, overrides: Body = {}): Body =>
    loadBody(tenant, {
      order_type: 'FTL',
      load_mode: 'truckload',
      company_permalink: tenant.slug,
      customer_name: 'Acme Foods',
      origin_stop_id: 'O1',
      origin_stop_id_permalink: `O1-${tenant.slug}`,
      destination_stop_id: 'D1',
      destination_stop_id_permalink: `D1-${tenant.slug}`,
      ...overrides,
    }),
  load_leg: (tenant: Tenant, load: Body, carrier: Body, overrides: Body = {}): Body =>
    loadLegBody(tenant, load, {
      native_system_load_unique_key: `K-${String(load.native_system_load_id)}`,
      company_permalink: tenant.slug,
      native_system_carrier_permalink: carrier.native_system_carrier_permalink,
      driver_name: 'Sam Driver',
      driver_phone: '+1 312 555 0101',
      truck_number: 'T-100',
      trailer_number: 'TR-200',
      carrier_rep_name: 'Casey Rep',
      carrier_rep_email: 'casey@example.com',
      customer_rep_name: 'Robin Rep',
      customer_rep_email: 'robin@example.com',
      native_system_load_leg_status: 'Dispatched',
      ...overrides,
    }),
  stop: (tenant: Tenant, leg: Body, overrides: Body = {}): Body =>
    stopBody(tenant, leg, {
      company_permalink: tenant.slug,
      location_name: 'Acme DC',
      address_line1: '1 Main St',
      address_line2: 'Dock 4',
      state: 'IL',
      postal_code: '60601',
      country: 'US',
      latitude: 41.88,
      longitude: -87.63,
      timezone: 'America/Chicago',
      appointment_start: '2026-11-23T08:00:00Z',
      appointment_end: '2026-11-23T12:00:00Z',
      arrived_at: '2026-11-23T09:00:00Z',
      departed_at: '2026-11-23T11:00:00Z',
      native_system_stop_status: 'Arrived',
      ...overrides,
    }),
  load_update: (tenant: Tenant, load: Body, leg: Body, overrides: Body = {}): Body =>
    loadUpdateBody(tenant, load, {
      company_permalink: tenant.slug,
      native_system_load_leg_permalink: leg.native_system_load_leg_permalink,
      native_system_load_status: 'In Transit',
      latitude: 41.88,
      longitude: -87.63,
      city: 'Chicago',
      state: 'IL',
      country: 'US',
      eta: '2026-11-24T10:00:00Z',
      source: 'ELD',
      ...overrides,
    }),
};

/** The records a body of any kind may name: a carrier, a load, and a leg of that load with that carrier. */
export type Parents = { carrier: Body; load: Body; leg: Body };

/** Bodies of parents (not stored: `seedParents` posts them). */
export function parentBodies(tenant: Tenant): Parents {
  const carrier = carrierBody(tenant);
  const load = loadBody(tenant);
  return { carrier, load, leg: loadLegBody(tenant, load, { native_system_carrier_permalink: carrier.native_system_carrier_permalink }) };
}

const seededParents = new Map<string, Promise<Parents>>();

/** A carrier, a load and a leg of the tenant (seeded on first call, then reused: slugs are unique). */
export function seedParents(api: Api, tenant: Tenant): Promise<Parents> {
  let parents = seededParents.get(tenant.slug);
  if (!parents) {
    parents = (async () => {
      const { carrier, load, leg } = parentBodies(tenant);
      return { carrier: await seed(api, routes.carrier, carrier), load: await seed(api, routes.load, load), leg: await seed(api, routes.load_leg, leg) };
    })();
    seededParents.set(tenant.slug, parents);
  }
  return parents;
}

/** `minimal`: the fields a test of the kind needs; `full`: every contract field (`fullBodies`). */
export type BodyFields = 'minimal' | 'full';

/**
 * The one body maker: a valid body of each kind of the registry, naming `parents` (a kind of the
 * registry missing here is a type error, so every shared test built on it covers a new kind).
 */
const kindBodies: { readonly [Kind in RecordKind]: (tenant: Tenant, parents: Parents, fields: BodyFields, overrides: Body) => Body } = {
  carrier: (tenant, _parents, fields, o) => (fields === 'full' ? fullBodies.carrier(tenant, o) : carrierBody(tenant, o)),
  load: (tenant, _parents, fields, o) => (fields === 'full' ? fullBodies.load(tenant, o) : loadBody(tenant, o)),
  load_leg: (tenant, { load, carrier }, fields, o) =>
    fields === 'full'
      ? fullBodies.load_leg(tenant, load, carrier, o)
      : loadLegBody(tenant, load, { native_system_carrier_permalink: carrier.native_system_carrier_permalink, ...o }),
  stop: (tenant, { leg }, fields, o) => (fields === 'full' ? fullBodies.stop(tenant, leg, o) : stopBody(tenant, leg, o)),
  load_update: (tenant, { load, leg }, fields, o) => (fields === 'full' ? fullBodies.load_update(tenant, load, leg, o) : loadUpdateBody(tenant, load, o)),
};

/** A valid body of `kind` naming `parents` (stored or not: `parentBodies`, `seedParents`). */
export const bodyOf = (kind: RecordKind, tenant: Tenant, parents: Parents, fields: BodyFields = 'minimal', overrides: Body = {}): Body =>
  kindBodies[kind](tenant, parents, fields, overrides);

/** A maker of valid bodies of every kind whose parents exist (seeded once per tenant). */
export async function bodyMaker(api: Api, tenant: Tenant, fields: BodyFields = 'minimal'): Promise<(kind: RecordKind, overrides?: Body) => Body> {
  const parents = await seedParents(api, tenant);
  return (kind, overrides = {}) => bodyOf(kind, tenant, parents, fields, overrides);
}
