import { z } from 'zod';
import { permalinkField, position, shownOnly, text } from '../declaration/fields.js';
import { defineRecord } from '../declaration/record.js';

/** LoadLegUpsert (integration-spec.md "Load leg", api-contract.md "LoadLegUpsert additions"). */
const LoadLegUpsert = z
  .looseObject({
    native_system_load_leg_permalink: permalinkField('Unique key of the leg, `<leg id>-<company_permalink>`. Identifies the leg on every upsert.'),
    native_system_load_leg_id: text(100, 'required', 'The TMS id of the leg (route / movement).'),
    load_leg_sequence: position('required', '1-based position of the leg within the load.'),
    native_system_load_id: text(100, 'required', 'The TMS id of the parent load.'),
    native_system_load_permalink: text(
      100,
      'required',
      'Unique key of the parent load, `<load id>-<company_permalink>`; built from `native_system_load_id` when null.',
    ),
    native_system_load_unique_key: text(100, 'recommended', 'Key used to build the "View in TMS" link for the load.', {
      feeds: 'the "View in TMS" link of the load (`Load.tmsUrl`)',
    }),
    native_system_reference_number: text(100, 'recommended', 'Leg-level reference number; shown as a reference number and searchable.', {
      feeds: 'load search by leg reference (`loads(filter: { search })`)',
    }),
    pickup_reference_number: text(1000, 'recommended', 'Pickup number for the first stop; shown as a reference number and searchable.', {
      feeds: 'load search by pickup number (`loads(filter: { search })`)',
    }),
    company_permalink: text(100, 'optional', 'The tenant slug.'),
    native_system_carrier_permalink: text(100, 'recommended', 'Assigned carrier, `<carrier id>-<company_permalink>` (must exist).', {
      feeds: "the board's carrier filter (`loads(filter: { carrier })`) and the leg's carrier (`LoadLeg.carrier`, the console)",
    }),
    driver_name: text(250, 'recommended', 'Assigned driver.', { feeds: shownOnly("the leg's `driverName`") }),
    driver_phone: text(50, 'recommended', "Driver's phone, for tracking.", { feeds: shownOnly("the leg's `driverPhone` (no tracking feature calls it)") }),
    truck_number: text(50, 'optional', 'Tractor number.'),
    trailer_number: text(50, 'optional', 'Trailer number.'),
    carrier_rep_name: text(250, 'recommended', 'The rep who manages the carrier.', { feeds: shownOnly("the leg's `carrierRepName`") }),
    carrier_rep_email: text(250, 'recommended', "The carrier rep's email.", { feeds: shownOnly("the leg's `carrierRepEmail`") }),
    customer_rep_name: text(250, 'recommended', 'The rep who manages the customer.', { feeds: shownOnly("the leg's `customerRepName`") }),
    customer_rep_email: text(250, 'recommended', "The customer rep's email.", { feeds: shownOnly("the leg's `customerRepEmail`") }),
    native_system_load_leg_status: text(100, 'optional', 'Leg status as the TMS names it.'),
  })
  .meta({
    id: 'LoadLegUpsert',
    description: 'One leg (route / movement) of a load with its assignments, upserted by `native_system_load_leg_permalink`.',
    examples: [
      {
        native_system_load_leg_permalink: 'G1-demo',
        native_system_load_leg_id: 'G1',
        load_leg_sequence: 1,
        native_system_load_id: 'L1',
        native_system_load_permalink: 'L1-demo',
        native_system_carrier_permalink: 'C1-demo',
        driver_name: 'Sam',
      },
    ],
  });
export type LoadLegUpsert = z.infer<typeof LoadLegUpsert>;

export const loadLegRecord = defineRecord({
  kind: 'load_leg',
  label: 'Load leg',
  table: 'load_legs',
  model: 'LoadLeg',
  changeEvents: ['leg.changed', 'leg.deleted'],
  events: { snapshot: 'leg', created: 'leg.changed', changed: 'leg.changed', deleted: 'leg.deleted' },
  hidden: ['company_permalink', 'native_system_load_id'],
  load: 'native_system_load_permalink',
  body: LoadLegUpsert,
  permalinkField: 'native_system_load_leg_permalink',
  freshness: 'sync_run_time',
  rest: {
    collection: 'loadlegs',
    description: 'Creates or updates one leg with its carrier, driver and rep assignments. The parent load (and the carrier, when named) must exist.',
    about: 'Legs (routes / movements) of a load with their carrier, driver and reps; the load must exist.',
  },
  graphql: {
    rootFields: ['loadLeg'],
    input: 'LoadLegInput',
    mutation: 'upsertLoadLeg',
    description: 'Creates or updates a load leg by its permalink.',
  },
  columns: {
    native_system_load_leg_id: { column: 'tms_id', type: 'text' },
    load_leg_sequence: { column: 'sequence', type: 'int' },
    native_system_load_id: { column: 'load_tms_id', type: 'text' },
    native_system_load_unique_key: { column: 'load_unique_key', type: 'text' },
    native_system_reference_number: { column: 'reference_number', type: 'text' },
    pickup_reference_number: { column: 'pickup_reference_number', type: 'text' },
    company_permalink: { column: 'company_permalink', type: 'text' },
    driver_name: { column: 'driver_name', type: 'text' },
    driver_phone: { column: 'driver_phone', type: 'text' },
    truck_number: { column: 'truck_number', type: 'text' },
    trailer_number: { column: 'trailer_number', type: 'text' },
    carrier_rep_name: { column: 'carrier_rep_name', type: 'text' },
    carrier_rep_email: { column: 'carrier_rep_email', type: 'text' },
    customer_rep_name: { column: 'customer_rep_name', type: 'text' },
    customer_rep_email: { column: 'customer_rep_email', type: 'text' },
    native_system_load_leg_status: { column: 'status', type: 'text' },
  },
  parents: [
    { field: 'native_system_load_permalink', idField: 'native_system_load_id', table: 'loads', column: 'load_id', required: true },
    { field: 'native_system_carrier_permalink', idField: 'native_system_carrier_id', table: 'carriers', column: 'carrier_id', required: false },
  ],
});
