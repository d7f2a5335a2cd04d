import { byPermalinkArgs, byPermalinkDescription, byPermalinkWhere } from '../../graphql/by-permalink.js';
import { builder, recordIdDescription } from '../../graphql/builder.js';
import { sharedEnum } from '../../graphql/enums.js';
import { stopRecord, stopTypes } from './schema.js';
import { describeStoredField } from '../shared/record.js';

/** Descriptions of the stored contract fields, from their zod fields (`schema.ts`). */
const describe = (name: string) => describeStoredField(stopRecord, name);

const StopTypeEnum = sharedEnum('StopType', stopTypes, 'Kind of stop (REST `stop_type`: `pickup` or `delivery`).');

export const StopObject = builder.prismaObject('Stop', {
  description: 'A pickup or delivery on a leg.',
  fields: (t) => ({
    id: t.exposeID('id', { description: recordIdDescription }),
    permalink: t.exposeString('permalink', { description: describe('permalink') }),
    tmsId: t.exposeString('tmsId', { nullable: true, description: describe('tmsId') }),
    sequence: t.exposeInt('sequence', { nullable: true, description: describe('sequence') }),
    type: t.expose('type', { type: StopTypeEnum, nullable: true, description: describe('type') }),
    locationName: t.exposeString('locationName', { nullable: true, description: describe('locationName') }),
    addressLine1: t.exposeString('addressLine1', { nullable: true, description: describe('addressLine1') }),
    addressLine2: t.exposeString('addressLine2', { nullable: true, description: describe('addressLine2') }),
    city: t.exposeString('city', { nullable: true, description: describe('city') }),
    state: t.exposeString('state', { nullable: true, description: describe('state') }),
    postalCode: t.exposeString('postalCode', { nullable: true, description: describe('postalCode') }),
    country: t.exposeString('country', { nullable: true, description: describe('country') }),
    latitude: t.exposeFloat('latitude', { nullable: true, description: describe('latitude') }),
    longitude: t.exposeFloat('longitude', { nullable: true, description: describe('longitude') }),
    timezone: t.exposeString('timezone', { nullable: true, description: describe('timezone') }),
    appointmentStart: t.expose('appointmentStart', { type: 'DateTime', nullable: true, description: describe('appointmentStart') }),
    appointmentEnd: t.expose('appointmentEnd', { type: 'DateTime', nullable: true, description: describe('appointmentEnd') }),
    arrivedAt: t.expose('arrivedAt', { type: 'DateTime', nullable: true, description: describe('arrivedAt') }),
    departedAt: t.expose('departedAt', { type: 'DateTime', nullable: true, description: describe('departedAt') }),
    referenceNumber: t.exposeString('referenceNumber', { nullable: true, description: describe('referenceNumber') }),
    status: t.exposeString('status', { nullable: true, description: describe('status') }),
    leg: t.relation('leg', { description: 'The leg this stop belongs to.' }),
    extra: t.expose('extra', { type: 'JSON', description: 'Fields the TMS sent beyond the contract, kept verbatim.' }),
    changedAt: t.expose('changedAt', { type: 'DateTime', description: 'Service clock at the last write.' }),
    deletedAt: t.expose('deletedAt', {
      type: 'DateTime',
      nullable: true,
      description: 'When the TMS deleted the stop (its tombstone); null while it lives. Only `includeDeleted: true` reads return a deleted stop.',
    }),
  }),
});

builder.queryField('stop', (t) =>
  t.prismaField({
    type: 'Stop',
    nullable: true,
    description: byPermalinkDescription('stop'),
    args: byPermalinkArgs('native_system_stop_permalink'),
    resolve: (query, _root, args, ctx) => ctx.services.db.prisma.stop.findUnique({ ...query, where: byPermalinkWhere(ctx, args) }),
  }),
);
