import { builder, recordIdDescription } from '../../graphql/builder.js';
import { tenantOf } from '../../graphql/context.js';

builder.prismaObject('LoadLeg', {
  description: 'A leg (route / movement) of a load, with its carrier, driver and rep assignments.',
  fields: (t) => ({
    id: t.exposeID('id', { description: recordIdDescription }),
    permalink: t.exposeString('permalink', { description: '`native_system_load_leg_permalink`: `<leg id>-<company_permalink>`.' }),
    tmsId: t.exposeString('tmsId', { nullable: true, description: '`native_system_load_leg_id`: the TMS id of the leg.' }),
    sequence: t.exposeInt('sequence', { nullable: true, description: '1-based position of the leg within the load.' }),
    load: t.relation('load', { description: 'The load this leg belongs to.' }),
    carrier: t.relation('carrier', { nullable: true, description: 'The assigned carrier.' }),
    loadUniqueKey: t.exposeString('loadUniqueKey', {
      nullable: true,
      description: '`native_system_load_unique_key`: builds the load\'s "View in TMS" link (`Load.tmsUrl`).',
    }),
    driverName: t.exposeString('driverName', { nullable: true, description: 'Assigned driver.' }),
    driverPhone: t.exposeString('driverPhone', { nullable: true, description: "Driver's phone, for tracking." }),
    truckNumber: t.exposeString('truckNumber', { nullable: true, description: 'Tractor number.' }),
    trailerNumber: t.exposeString('trailerNumber', { nullable: true, description: 'Trailer number.' }),
    carrierRepName: t.exposeString('carrierRepName', { nullable: true, description: 'The rep who manages the carrier.' }),
    carrierRepEmail: t.exposeString('carrierRepEmail', { nullable: true, description: "The carrier rep's email." }),
    customerRepName: t.exposeString('customerRepName', { nullable: true, description: 'The rep who manages the customer.' }),
    customerRepEmail: t.exposeString('customerRepEmail', { nullable: true, description: "The customer rep's email." }),
    referenceNumber: t.exposeString('referenceNumber', { nullable: true, description: 'Leg-level reference number; searchable.' }),
    pickupReferenceNumber: t.exposeString('pickupReferenceNumber', { nullable: true, description: 'Pickup number for the first stop; searchable.' }),
    status: t.exposeString('status', { nullable: true, description: 'Leg status as the TMS names it.' }),
    stops: t.relation('stops', {
      description: 'Stops of the leg, by sequence.',
      complexity: { field: 1, multiplier: 4 }, // a leg has a pickup, a delivery and a few stops between
      query: { orderBy: [{ sequence: { sort: 'asc', nulls: 'last' } }, { createdAt: 'asc' }] },
    }),
    extra: t.expose('extra', { type: 'JSON', description: 'Fields the TMS sent beyond the contract, kept verbatim.' }),
    changedAt: t.expose('changedAt', { type: 'DateTime', description: 'Service clock at the last write.' }),
  }),
});

builder.queryField('loadLeg', (t) =>
  t.prismaField({
    type: 'LoadLeg',
    nullable: true,
    description: "The leg with this permalink in the caller's tenant, or null.",
    args: { permalink: t.arg.string({ required: true, description: '`native_system_load_leg_permalink`.' }) },
    resolve: (query, _root, { permalink }, ctx) =>
      ctx.services.db.prisma.loadLeg.findUnique({ ...query, where: { tenantId_permalink: { tenantId: tenantOf(ctx).id, permalink } } }),
  }),
);
