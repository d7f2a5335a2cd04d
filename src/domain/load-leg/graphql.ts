import { byPermalinkArgs, byPermalinkDescription, byPermalinkWhere } from '../../graphql/by-permalink.js';
import { builder, recordIdDescription } from '../../graphql/builder.js';
import { CarrierObject } from '../carrier/graphql.js';
import { liveOnly } from '../load/queries.js';
import { loadLegRecord } from './schema.js';
import { describeStoredField } from '../shared/record.js';

/** Descriptions of the stored contract fields, from their zod fields (`schema.ts`). */
const describe = (name: string) => describeStoredField(loadLegRecord, name);

export const LoadLegObject = builder.prismaObject('LoadLeg', {
  description: 'A leg (route / movement) of a load, with its carrier, driver and rep assignments.',
  fields: (t) => ({
    id: t.exposeID('id', { description: recordIdDescription }),
    permalink: t.exposeString('permalink', { description: describe('permalink') }),
    tmsId: t.exposeString('tmsId', { nullable: true, description: describe('tmsId') }),
    sequence: t.exposeInt('sequence', { nullable: true, description: describe('sequence') }),
    load: t.relation('load', { description: 'The load this leg belongs to.' }),
    carrier: t.field({
      type: CarrierObject,
      nullable: true,
      description: 'The assigned carrier; null when none is assigned or while the carrier is deleted.',
      select: (_args, _ctx, nestedSelection) => ({ carrier: nestedSelection(true) }),
      resolve: (leg) => (leg.carrier && !leg.carrier.deletedAt ? leg.carrier : null),
    }),
    loadUniqueKey: t.exposeString('loadUniqueKey', { nullable: true, description: `${describe('loadUniqueKey')} The link is \`Load.tmsUrl\`.` }),
    driverName: t.exposeString('driverName', { nullable: true, description: describe('driverName') }),
    driverPhone: t.exposeString('driverPhone', { nullable: true, description: describe('driverPhone') }),
    truckNumber: t.exposeString('truckNumber', { nullable: true, description: describe('truckNumber') }),
    trailerNumber: t.exposeString('trailerNumber', { nullable: true, description: describe('trailerNumber') }),
    carrierRepName: t.exposeString('carrierRepName', { nullable: true, description: describe('carrierRepName') }),
    carrierRepEmail: t.exposeString('carrierRepEmail', { nullable: true, description: describe('carrierRepEmail') }),
    customerRepName: t.exposeString('customerRepName', { nullable: true, description: describe('customerRepName') }),
    customerRepEmail: t.exposeString('customerRepEmail', { nullable: true, description: describe('customerRepEmail') }),
    referenceNumber: t.exposeString('referenceNumber', { nullable: true, description: describe('referenceNumber') }),
    pickupReferenceNumber: t.exposeString('pickupReferenceNumber', { nullable: true, description: describe('pickupReferenceNumber') }),
    status: t.exposeString('status', { nullable: true, description: describe('status') }),
    stops: t.relation('stops', {
      description: 'Stops of the leg, by sequence (deleted stops left out).',
      complexity: { field: 1, multiplier: 4 }, // a leg has a pickup, a delivery and a few stops between
      query: { where: liveOnly, orderBy: [{ sequence: { sort: 'asc', nulls: 'last' } }, { createdAt: 'asc' }] },
    }),
    extra: t.expose('extra', { type: 'JSON', description: 'Fields the TMS sent beyond the contract, kept verbatim.' }),
    changedAt: t.expose('changedAt', { type: 'DateTime', description: 'Service clock at the last write.' }),
    deletedAt: t.expose('deletedAt', {
      type: 'DateTime',
      nullable: true,
      description: 'When the TMS deleted the leg (its tombstone); null while it lives. Only `includeDeleted: true` reads return a deleted leg.',
    }),
  }),
});

builder.queryField('loadLeg', (t) =>
  t.prismaField({
    type: 'LoadLeg',
    nullable: true,
    description: byPermalinkDescription('leg'),
    args: byPermalinkArgs('native_system_load_leg_permalink'),
    resolve: (query, _root, args, ctx) => ctx.services.db.prisma.loadLeg.findUnique({ ...query, where: byPermalinkWhere(ctx, args) }),
  }),
);
