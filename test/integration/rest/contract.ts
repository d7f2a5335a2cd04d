/**
 * The contract's field tables (api-contract.md B, integration-spec.md), restated independently of
 * src/domain/<kind>/schema.ts so the tests can catch a schema that drifts from the contract.
 */
import type { Importance } from '../../../src/domain/declaration/fields.js';
import type { RecordKind } from '../../../src/domain/registry.js';

export type FieldRule =
  | { type: 'string'; max: number }
  /** The record's own permalink: never null, `<id>-<slug>`. */
  | { type: 'own_permalink'; max: 100 }
  /** A parent reference: `<id>-<slug>`, must exist (422 otherwise). */
  | { type: 'parent_permalink'; max: 100 }
  /** Another `*_permalink` field: `<id>-<slug>`, not looked up. */
  | { type: 'permalink'; max: number }
  /** The tenant slug: must equal the key's tenant (403). */
  | { type: 'company' }
  | { type: 'integer'; min: 1 }
  | { type: 'number'; min: number; max: number }
  | { type: 'enum'; values: readonly string[] }
  | { type: 'datetime' }
  | { type: 'timezone'; max: 64 };

export type ContractField = FieldRule & { importance: Importance };

const s = (max: number, importance: Importance): ContractField => ({ type: 'string', max, importance });
const own = { type: 'own_permalink', max: 100, importance: 'required' } as const;
const parent = (importance: Importance): ContractField => ({ type: 'parent_permalink', max: 100, importance });
const company = { type: 'company', importance: 'optional' } as const;
const dt = (importance: Importance): ContractField => ({ type: 'datetime', importance });

export const carrierFields: Record<string, ContractField> = {
  native_system_carrier_permalink: own,
  native_system_carrier_id: s(100, 'required'),
  company_permalink: company,
  carrier_name: s(250, 'recommended'),
  mc_number: s(50, 'recommended'),
  dot_number: s(50, 'recommended'),
  scac: s(10, 'optional'),
  email: s(250, 'optional'),
  phone: s(50, 'optional'),
};

export const loadFields: Record<string, ContractField> = {
  native_system_load_permalink: own,
  native_system_load_id: s(100, 'required'),
  native_system_load_status: s(100, 'required'),
  native_system_customer_reference_number: s(100, 'recommended'),
  order_type: s(100, 'recommended'),
  bol_number: s(250, 'recommended'),
  po_number: s(1000, 'recommended'),
  load_mode: s(100, 'optional'),
  company_permalink: company,
  customer_name: s(250, 'optional'),
  origin_stop_id: s(250, 'optional'),
  origin_stop_id_permalink: { type: 'permalink', max: 250, importance: 'optional' },
  destination_stop_id: s(250, 'optional'),
  destination_stop_id_permalink: { type: 'permalink', max: 250, importance: 'optional' },
};

export const loadLegFields: Record<string, ContractField> = {
  native_system_load_leg_permalink: own,
  native_system_load_leg_id: s(100, 'required'),
  load_leg_sequence: { type: 'integer', min: 1, importance: 'required' },
  native_system_load_id: s(100, 'required'),
  native_system_load_permalink: parent('required'),
  native_system_load_unique_key: s(100, 'recommended'),
  native_system_reference_number: s(100, 'recommended'),
  pickup_reference_number: s(1000, 'recommended'),
  company_permalink: company,
  native_system_carrier_permalink: parent('recommended'),
  driver_name: s(250, 'recommended'),
  driver_phone: s(50, 'recommended'),
  truck_number: s(50, 'optional'),
  trailer_number: s(50, 'optional'),
  carrier_rep_name: s(250, 'recommended'),
  carrier_rep_email: s(250, 'recommended'),
  customer_rep_name: s(250, 'recommended'),
  customer_rep_email: s(250, 'recommended'),
  native_system_load_leg_status: s(100, 'optional'),
};

export const stopFields: Record<string, ContractField> = {
  native_system_stop_permalink: own,
  native_system_stop_id: s(100, 'required'),
  native_system_load_leg_permalink: parent('required'),
  stop_sequence: { type: 'integer', min: 1, importance: 'required' },
  stop_type: { type: 'enum', values: ['pickup', 'delivery'], importance: 'required' },
  company_permalink: company,
  location_name: s(250, 'recommended'),
  address_line1: s(250, 'recommended'),
  address_line2: s(250, 'recommended'),
  city: s(100, 'recommended'),
  state: s(100, 'recommended'),
  postal_code: s(100, 'recommended'),
  country: s(100, 'recommended'),
  latitude: { type: 'number', min: -90, max: 90, importance: 'optional' },
  longitude: { type: 'number', min: -180, max: 180, importance: 'optional' },
  timezone: { type: 'timezone', max: 64, importance: 'optional' },
  appointment_start: dt('recommended'),
  appointment_end: dt('recommended'),
  arrived_at: dt('recommended'),
  departed_at: dt('recommended'),
  reference_number: s(1000, 'recommended'),
  native_system_stop_status: s(100, 'optional'),
};

export const loadUpdateFields: Record<string, ContractField> = {
  native_system_load_update_permalink: own,
  native_system_load_permalink: parent('required'),
  update_type: { type: 'enum', values: ['check_call', 'gps_ping', 'status_remark'], importance: 'required' },
  occurred_at: dt('required'),
  company_permalink: company,
  native_system_load_leg_permalink: parent('optional'),
  native_system_load_status: s(100, 'recommended'),
  latitude: { type: 'number', min: -90, max: 90, importance: 'recommended' },
  longitude: { type: 'number', min: -180, max: 180, importance: 'recommended' },
  city: s(100, 'recommended'),
  state: s(100, 'recommended'),
  country: s(100, 'recommended'),
  eta: dt('recommended'),
  message: s(2000, 'optional'),
  source: s(100, 'optional'),
};

/** The contract's field table of each record kind (a kind of the registry missing here is a type error). */
export const contractTables: { readonly [Kind in RecordKind]: Record<string, ContractField> } = {
  carrier: carrierFields,
  load: loadFields,
  load_leg: loadLegFields,
  stop: stopFields,
  load_update: loadUpdateFields,
};
