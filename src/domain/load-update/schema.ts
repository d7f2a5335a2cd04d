import { z } from 'zod';
import { dateTime, number, oneOf, permalinkField, shownOnly, text, whenValid } from '../declaration/fields.js';
import { defineRecord } from '../declaration/record.js';

/** The kinds of load update (`update_type`), each with its description. */
export const loadUpdateTypes = {
  check_call: 'A check call: the driver or carrier reported in (position, status, ETA).',
  gps_ping: 'A GPS position report; latitude and longitude are required.',
  status_remark: 'A status remark: free text about the load, with or without a new status.',
} as const;

const fields = z.looseObject({
  native_system_load_update_permalink: permalinkField('Unique key of the update, `<update id>-<company_permalink>`.'),
  native_system_load_permalink: text(100, 'required', 'Parent load, `<load id>-<company_permalink>` (must exist).'),
  update_type: oneOf(loadUpdateTypes, 'required', 'Kind of update: `check_call`, `gps_ping` or `status_remark`.'),
  occurred_at: dateTime('required', 'When it happened in the field (ISO 8601).'),
  company_permalink: text(100, 'optional', 'The tenant slug.'),
  native_system_load_leg_permalink: text(100, 'optional', 'Leg it concerns (must exist if given).'),
  native_system_load_status: text(100, 'recommended', 'Status reported with the update (mapped to a phase).', {
    feeds: "the update's phase (`LoadUpdate.phase`) through the tenant's status mapping",
  }),
  latitude: number(-90, 90, 'recommended', 'Reported latitude; required (non-null) for `gps_ping`.', {
    feeds: 'the position of the update shown in the console when it names no city; see the `update_without_position` finding',
  }),
  longitude: number(-180, 180, 'recommended', 'Reported longitude; required (non-null) for `gps_ping`.', {
    feeds: 'the position of the update shown in the console, with `latitude`',
  }),
  city: text(100, 'recommended', 'Reported city.', {
    feeds: 'where the update was, shown in the console (city, state); see the `update_without_position` finding',
  }),
  state: text(100, 'recommended', 'Reported state or province.', { feeds: 'where the update was, shown in the console (city, state)' }),
  country: text(100, 'recommended', 'Reported country.', { feeds: shownOnly("the update's `country`") }),
  eta: dateTime('recommended', 'Estimated arrival at the next stop (ISO 8601).', { feeds: shownOnly("the update's `eta`") }),
  message: text(2000, 'optional', 'Remark text.'),
  source: text(100, 'optional', 'Who reported it (driver app, ELD, dispatcher…).'),
});

/** LoadUpdateCreate (api-contract.md B): append-only. */
const LoadUpdateCreate = fields
  .superRefine(
    (update, ctx) => {
      if (update.update_type !== 'gps_ping') return;
      for (const field of ['latitude', 'longitude'] as const) {
        if (update[field] == null) ctx.addIssue({ code: 'custom', path: [field], message: 'is required for a gps_ping' });
      }
    },
    whenValid(['update_type', 'latitude', 'longitude']),
  )
  .meta({
    id: 'LoadUpdateCreate',
    description: 'One check call, GPS ping or status remark; append-only by `native_system_load_update_permalink`.',
    examples: [
      {
        native_system_load_update_permalink: 'U1-demo',
        native_system_load_permalink: 'L1-demo',
        update_type: 'gps_ping',
        occurred_at: '2026-11-23T10:05:00Z',
        latitude: 41.88,
        longitude: -87.63,
      },
    ],
  });
export type LoadUpdateCreate = z.infer<typeof LoadUpdateCreate>;

export const loadUpdateRecord = defineRecord({
  kind: 'load_update',
  label: 'Load update',
  table: 'load_updates',
  model: 'LoadUpdate',
  changeEvents: ['load_update.received'],
  events: { snapshot: 'update', created: 'load_update.received' },
  hidden: ['company_permalink', 'native_system_load_permalink'],
  load: 'native_system_load_permalink',
  body: LoadUpdateCreate,
  permalinkField: 'native_system_load_update_permalink',
  freshness: 'append_only',
  phase: { from: 'native_system_load_status', withoutStatus: null },
  rest: {
    collection: 'loadupdates',
    description: 'Appends one check call, GPS ping or status remark. A repeated permalink answers duplicate and changes nothing.',
    about: 'Check calls, GPS pings and status remarks; append-only, the load must exist.',
  },
  graphql: {
    rootFields: [],
    input: 'LoadUpdateInput',
    mutation: 'createLoadUpdate',
    description: 'Appends a load update; a repeated permalink answers DUPLICATE.',
    enumNames: { update_type: 'LoadUpdateType' },
  },
  columns: {
    update_type: { column: 'type', type: '"LoadUpdateType"' },
    occurred_at: { column: 'occurred_at', type: 'timestamptz' },
    company_permalink: { column: 'company_permalink', type: 'text' },
    native_system_load_status: { column: 'status', type: 'text' },
    latitude: { column: 'latitude', type: 'float8' },
    longitude: { column: 'longitude', type: 'float8' },
    city: { column: 'city', type: 'text' },
    state: { column: 'state', type: 'text' },
    country: { column: 'country', type: 'text' },
    eta: { column: 'eta', type: 'timestamptz' },
    message: { column: 'message', type: 'text' },
    source: { column: 'source', type: 'text' },
  },
  parents: [
    { field: 'native_system_load_permalink', idField: 'native_system_load_id', table: 'loads', column: 'load_id', required: true },
    { field: 'native_system_load_leg_permalink', idField: 'native_system_load_leg_id', table: 'load_legs', column: 'leg_id', required: false },
  ],
});
