import { z } from 'zod';
import { dateTime, number, oneOf, permalinkField, position, shownOnly, text, timeZone, whenValid } from '../declaration/fields.js';
import { defineRecord } from '../declaration/record.js';

/** The kinds of stop (`stop_type`), each with its description. */
export const stopTypes = {
  pickup: 'A pickup: freight is loaded here.',
  delivery: 'A delivery: freight is unloaded here.',
} as const;

const fields = z.looseObject({
  native_system_stop_permalink: permalinkField('Unique key of the stop, `<stop id>-<company_permalink>`.'),
  native_system_stop_id: text(100, 'required', 'The TMS id of the stop.'),
  native_system_load_leg_permalink: text(100, 'required', 'Parent leg, `<leg id>-<company_permalink>` (must exist).'),
  stop_sequence: position('required', 'Position of the stop within the leg (1-based).'),
  stop_type: oneOf(stopTypes, 'required', 'Kind of stop: `pickup` or `delivery`.'),
  company_permalink: text(100, 'optional', 'The tenant slug.'),
  location_name: text(250, 'recommended', 'Facility name.', { feeds: shownOnly("the stop's `locationName`") }),
  address_line1: text(250, 'recommended', 'Street address, first line.', { feeds: shownOnly("the stop's `addressLine1`") }),
  address_line2: text(250, 'recommended', 'Street address, second line.', { feeds: shownOnly("the stop's `addressLine2`") }),
  city: text(100, 'recommended', 'City.', { feeds: "the board's city filter (`loads(filter: { city })`) and the route shown in the console" }),
  state: text(100, 'recommended', 'State or province.', { feeds: 'the route shown in the console (city, state)' }),
  postal_code: text(100, 'recommended', 'Postal code.', { feeds: shownOnly("the stop's `postalCode`") }),
  country: text(100, 'recommended', 'Country.', { feeds: shownOnly("the stop's `country`") }),
  latitude: number(-90, 90, 'optional', 'Latitude, −90 to 90.'),
  longitude: number(-180, 180, 'optional', 'Longitude, −180 to 180.'),
  timezone: timeZone('optional', 'Facility time zone (IANA name, for example America/Chicago).'),
  appointment_start: dateTime('recommended', 'Start of the appointment window (ISO 8601).', {
    feeds: 'the appointment shown in the console; a stop with neither appointment time is the `stop_without_appointment` finding',
  }),
  appointment_end: dateTime('recommended', 'End of the appointment window (ISO 8601); not before `appointment_start`.', {
    feeds: 'the `stop_without_appointment` finding (with `appointment_start`)',
  }),
  arrived_at: dateTime('recommended', 'Actual arrival (ISO 8601).', {
    feeds: 'the `stop.arrived` event (live events, webhooks) and the arrival shown in the console',
  }),
  departed_at: dateTime('recommended', 'Actual departure (ISO 8601); not before `arrived_at`.', {
    feeds: "the `stop.departed` event (live events, webhooks) and the load's next stop (`Load.nextStop`)",
  }),
  reference_number: text(1000, 'recommended', 'Stop reference; searchable.', { feeds: 'load search by stop reference (`loads(filter: { search })`)' }),
  native_system_stop_status: text(100, 'optional', 'Stop status as the TMS names it.'),
});

/** A later time field must not precede its earlier one; the issue names the later field. */
const ordered = [
  ['appointment_start', 'appointment_end'],
  ['arrived_at', 'departed_at'],
] as const;

/** StopUpsert (api-contract.md B). */
export const StopUpsert = fields
  .superRefine((stop, ctx) => {
    for (const [earlier, later] of ordered) {
      const a = stop[earlier];
      const b = stop[later];
      if (a && b && Date.parse(b) < Date.parse(a)) {
        ctx.addIssue({ code: 'custom', path: [later], message: `must not be before ${earlier}` });
      }
    }
  }, whenValid(ordered.flat()))
  .meta({
    id: 'StopUpsert',
    description: 'One pickup or delivery on a leg, upserted by `native_system_stop_permalink`.',
    examples: [
      {
        native_system_stop_permalink: 'S1-demo',
        native_system_stop_id: 'S1',
        native_system_load_leg_permalink: 'G1-demo',
        stop_sequence: 1,
        stop_type: 'pickup',
        city: 'Chicago',
        timezone: 'America/Chicago',
      },
    ],
  });
export type StopUpsert = z.infer<typeof StopUpsert>;

export const stopRecord = defineRecord({
  kind: 'stop',
  label: 'Stop',
  table: 'stops',
  model: 'Stop',
  changeEvents: ['stop.arrived', 'stop.departed', 'stop.changed', 'stop.deleted'],
  events: {
    snapshot: 'stop',
    created: 'stop.changed',
    changed: 'stop.changed',
    deleted: 'stop.deleted',
    transitions: [
      { type: 'stop.arrived', field: 'arrived_at' },
      { type: 'stop.departed', field: 'departed_at' },
    ],
  },
  hidden: ['company_permalink'],
  load: 'native_system_load_leg_permalink',
  // The board's city filter reads the loads of a city from it (docs/decisions/0036-load-city-set.md).
  loadSet: { table: 'load_cities', key: 'city_key', count: 'stops' },
  body: StopUpsert,
  permalinkField: 'native_system_stop_permalink',
  freshness: 'sync_run_time',
  rest: {
    collection: 'stops',
    description: 'Creates or updates one pickup or delivery. The parent leg must exist.',
    about: 'Pickups and deliveries of a leg; the leg must exist.',
  },
  graphql: {
    rootFields: ['stop'],
    input: 'StopInput',
    mutation: 'upsertStop',
    description: 'Creates or updates a stop by its permalink.',
    enumNames: { stop_type: 'StopType' },
  },
  columns: {
    native_system_stop_id: { column: 'tms_id', type: 'text' },
    stop_sequence: { column: 'sequence', type: 'int' },
    stop_type: { column: 'type', type: '"StopType"' },
    company_permalink: { column: 'company_permalink', type: 'text' },
    location_name: { column: 'location_name', type: 'text' },
    address_line1: { column: 'address_line1', type: 'text' },
    address_line2: { column: 'address_line2', type: 'text' },
    city: { column: 'city', type: 'text' },
    state: { column: 'state', type: 'text' },
    postal_code: { column: 'postal_code', type: 'text' },
    country: { column: 'country', type: 'text' },
    latitude: { column: 'latitude', type: 'float8' },
    longitude: { column: 'longitude', type: 'float8' },
    timezone: { column: 'timezone', type: 'text' },
    appointment_start: { column: 'appointment_start', type: 'timestamptz' },
    appointment_end: { column: 'appointment_end', type: 'timestamptz' },
    arrived_at: { column: 'arrived_at', type: 'timestamptz' },
    departed_at: { column: 'departed_at', type: 'timestamptz' },
    reference_number: { column: 'reference_number', type: 'text' },
    native_system_stop_status: { column: 'status', type: 'text' },
  },
  parents: [{ field: 'native_system_load_leg_permalink', idField: 'native_system_load_leg_id', table: 'load_legs', column: 'leg_id', required: true }],
});
