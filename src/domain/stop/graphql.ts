import { builder, recordIdDescription } from '../../graphql/builder.js';
import { sharedEnum } from '../../graphql/enums.js';
import { tenantOf } from '../../graphql/context.js';
import { stopTypes } from './schema.js';

const StopTypeEnum = sharedEnum('StopType', stopTypes, 'Kind of stop (REST `stop_type`: `pickup` or `delivery`).');

export const StopObject = builder.prismaObject('Stop', {
  description: 'A pickup or delivery on a leg.',
  fields: (t) => ({
    id: t.exposeID('id', { description: recordIdDescription }),
    permalink: t.exposeString('permalink', { description: '`native_system_stop_permalink`: `<stop id>-<company_permalink>`.' }),
    tmsId: t.exposeString('tmsId', { nullable: true, description: '`native_system_stop_id`: the TMS id of the stop.' }),
    sequence: t.exposeInt('sequence', { nullable: true, description: 'Position within the leg (1-based).' }),
    type: t.expose('type', { type: StopTypeEnum, nullable: true, description: 'Kind of stop.' }),
    locationName: t.exposeString('locationName', { nullable: true, description: 'Facility name.' }),
    addressLine1: t.exposeString('addressLine1', { nullable: true, description: 'Street address, first line.' }),
    addressLine2: t.exposeString('addressLine2', { nullable: true, description: 'Street address, second line.' }),
    city: t.exposeString('city', { nullable: true, description: 'City.' }),
    state: t.exposeString('state', { nullable: true, description: 'State or province.' }),
    postalCode: t.exposeString('postalCode', { nullable: true, description: 'Postal code.' }),
    country: t.exposeString('country', { nullable: true, description: 'Country.' }),
    latitude: t.exposeFloat('latitude', { nullable: true, description: 'Latitude, −90 to 90.' }),
    longitude: t.exposeFloat('longitude', { nullable: true, description: 'Longitude, −180 to 180.' }),
    timezone: t.exposeString('timezone', { nullable: true, description: 'IANA time zone of the facility.' }),
    appointmentStart: t.expose('appointmentStart', { type: 'DateTime', nullable: true, description: 'Start of the appointment window.' }),
    appointmentEnd: t.expose('appointmentEnd', { type: 'DateTime', nullable: true, description: 'End of the appointment window.' }),
    arrivedAt: t.expose('arrivedAt', { type: 'DateTime', nullable: true, description: 'Actual arrival.' }),
    departedAt: t.expose('departedAt', { type: 'DateTime', nullable: true, description: 'Actual departure.' }),
    referenceNumber: t.exposeString('referenceNumber', { nullable: true, description: 'Stop reference number; searchable.' }),
    status: t.exposeString('status', { nullable: true, description: 'Stop status as the TMS names it.' }),
    leg: t.relation('leg', { description: 'The leg this stop belongs to.' }),
    extra: t.expose('extra', { type: 'JSON', description: 'Fields the TMS sent beyond the contract, kept verbatim.' }),
    changedAt: t.expose('changedAt', { type: 'DateTime', description: 'Service clock at the last write.' }),
  }),
});

builder.queryField('stop', (t) =>
  t.prismaField({
    type: 'Stop',
    nullable: true,
    description: "The stop with this permalink in the caller's tenant, or null.",
    args: { permalink: t.arg.string({ required: true, description: '`native_system_stop_permalink`.' }) },
    resolve: (query, _root, { permalink }, ctx) =>
      ctx.services.db.prisma.stop.findUnique({ ...query, where: { tenantId_permalink: { tenantId: tenantOf(ctx).id, permalink } } }),
  }),
);
