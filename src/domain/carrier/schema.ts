import { z } from 'zod';
import { permalinkField, text } from '../declaration/fields.js';
import { defineRecord } from '../declaration/record.js';

/** CarrierUpsert (api-contract.md B). Unknown keys pass through and are kept in `extra`. */
const CarrierUpsert = z
  .looseObject({
    native_system_carrier_permalink: permalinkField('Unique key of the carrier, `<carrier id>-<company_permalink>`.'),
    native_system_carrier_id: text(100, 'required', 'The TMS id of the carrier.'),
    company_permalink: text(100, 'optional', 'The tenant slug.'),
    carrier_name: text(250, 'recommended', 'Carrier name; shown and searchable.', {
      feeds: 'carrier search (`carriers(search:)`) and the carrier named on each leg (`LoadLeg.carrier`, the console)',
    }),
    mc_number: text(50, 'recommended', 'FMCSA MC number; searchable.', { feeds: 'carrier search by MC number (`carriers(search:)`)' }),
    dot_number: text(50, 'recommended', 'USDOT number; searchable.', { feeds: 'carrier search by DOT number (`carriers(search:)`)' }),
    scac: text(10, 'optional', 'Standard Carrier Alpha Code; searchable.'),
    email: text(250, 'optional', 'Dispatch email.'),
    phone: text(50, 'optional', 'Dispatch phone.'),
  })
  .meta({
    id: 'CarrierUpsert',
    description: 'One carrier, upserted by `native_system_carrier_permalink`.',
    examples: [{ native_system_carrier_permalink: 'C1-demo', native_system_carrier_id: 'C1', carrier_name: 'Fast Freight', mc_number: 'MC123' }],
  });
export type CarrierUpsert = z.infer<typeof CarrierUpsert>;

export const carrierRecord = defineRecord({
  kind: 'carrier',
  label: 'Carrier',
  table: 'carriers',
  model: 'Carrier',
  changeEvents: ['carrier.deleted'],
  events: { snapshot: null, deleted: 'carrier.deleted' },
  hidden: ['company_permalink'],
  load: null,
  body: CarrierUpsert,
  permalinkField: 'native_system_carrier_permalink',
  freshness: 'none',
  rest: {
    collection: 'carriers',
    description: 'Creates or updates one carrier by native_system_carrier_permalink.',
    about: 'Carriers (trucking companies), upserted by their permalink. Post them before the legs that assign them.',
  },
  graphql: {
    rootFields: ['carrier', 'carriers'],
    input: 'CarrierInput',
    mutation: 'upsertCarrier',
    description: 'Creates or updates a carrier by its permalink.',
  },
  columns: {
    native_system_carrier_id: { column: 'tms_id', type: 'text' },
    company_permalink: { column: 'company_permalink', type: 'text' },
    carrier_name: { column: 'name', type: 'text' },
    mc_number: { column: 'mc_number', type: 'text' },
    dot_number: { column: 'dot_number', type: 'text' },
    scac: { column: 'scac', type: 'text' },
    email: { column: 'email', type: 'text' },
    phone: { column: 'phone', type: 'text' },
  },
  parents: [],
});
