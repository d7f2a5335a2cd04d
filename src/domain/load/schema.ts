import { z } from 'zod';
import { permalinkField, shownOnly, text } from '../declaration/fields.js';
import { defineRecord } from '../declaration/record.js';

/** LoadUpsert (integration-spec.md "Load", api-contract.md "LoadUpsert additions"). */
export const LoadUpsert = z
  .looseObject({
    native_system_load_permalink: permalinkField('Unique key of the load, `<load id>-<company_permalink>`. Identifies the load on every upsert.'),
    native_system_load_id: text(100, 'required', 'The TMS id of the order / load (BOL-level record).'),
    native_system_load_status: text(100, 'required', 'Load status exactly as the TMS names it; mapped to phases by the agreed status mapping.'),
    native_system_customer_reference_number: text(100, 'recommended', "Customer's reference number; shown as a reference number and searchable.", {
      feeds: 'load search by reference number (`loads(filter: { search })`)',
    }),
    order_type: text(100, 'recommended', 'Order type as the TMS names it; shown as a reference number.', { feeds: shownOnly("the load's `orderType`") }),
    bol_number: text(250, 'recommended', 'Bill of lading number; shown as a reference number and searchable.', {
      feeds: 'load search by BOL (`loads(filter: { search })`)',
    }),
    po_number: text(1000, 'recommended', 'Purchase order number; shown as a reference number and searchable.', {
      feeds: 'load search by PO number (`loads(filter: { search })`)',
    }),
    load_mode: text(100, 'optional', 'Transport mode as the TMS names it (for example truckload, LTL, intermodal).'),
    company_permalink: text(250, 'optional', 'The tenant slug.'),
    customer_name: text(250, 'optional', 'Name of the customer.'),
    origin_stop_id: text(250, 'optional', 'TMS id of the origin stop.'),
    origin_stop_id_permalink: text(250, 'optional', 'Permalink of the origin stop.'),
    destination_stop_id: text(250, 'optional', 'TMS id of the destination stop.'),
    destination_stop_id_permalink: text(250, 'optional', 'Permalink of the destination stop.'),
  })
  .meta({
    id: 'LoadUpsert',
    description: 'One load (order / bill of lading), upserted by `native_system_load_permalink`.',
    examples: [{ native_system_load_permalink: 'L1-demo', native_system_load_id: 'L1', native_system_load_status: 'Booked', bol_number: 'BOL1' }],
  });
export type LoadUpsert = z.infer<typeof LoadUpsert>;

export const loadRecord = defineRecord({
  kind: 'load',
  label: 'Load',
  table: 'loads',
  model: 'Load',
  changeEvents: ['load.created', 'load.changed', 'load.phase_changed', 'load.deleted'],
  events: {
    snapshot: 'load',
    created: 'load.created',
    changed: 'load.changed',
    phaseChanged: 'load.phase_changed',
    deleted: 'load.deleted',
  },
  hidden: ['company_permalink'],
  load: 'self',
  body: LoadUpsert,
  permalinkField: 'native_system_load_permalink',
  freshness: 'sync_run_time',
  phase: { from: 'native_system_load_status', withoutStatus: 'UNMAPPED' },
  rest: {
    collection: 'loads',
    description: 'Creates or updates one load. Create the load before its legs and stops.',
    about: 'Loads (orders / bills of lading), upserted by their permalink; the status is mapped to a phase.',
  },
  graphql: {
    rootFields: ['load', 'loads'],
    input: 'LoadInput',
    mutation: 'upsertLoad',
    description: 'Creates or updates a load by its permalink.',
  },
  columns: {
    native_system_load_id: { column: 'tms_id', type: 'text' },
    native_system_load_status: { column: 'status', type: 'text' },
    native_system_customer_reference_number: { column: 'customer_reference_number', type: 'text' },
    order_type: { column: 'order_type', type: 'text' },
    bol_number: { column: 'bol_number', type: 'text' },
    po_number: { column: 'po_number', type: 'text' },
    load_mode: { column: 'load_mode', type: 'text' },
    company_permalink: { column: 'company_permalink', type: 'text' },
    customer_name: { column: 'customer_name', type: 'text' },
    origin_stop_id: { column: 'origin_stop_id', type: 'text' },
    origin_stop_id_permalink: { column: 'origin_stop_id_permalink', type: 'text' },
    destination_stop_id: { column: 'destination_stop_id', type: 'text' },
    destination_stop_id_permalink: { column: 'destination_stop_id_permalink', type: 'text' },
  },
  parents: [],
});
