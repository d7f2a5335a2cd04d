import { byPermalinkArgs, byPermalinkDescription, byPermalinkWhere } from '../../graphql/by-permalink.js';
import { ofTenant } from '../../graphql/context.js';
import { builder, recordIdDescription } from '../../graphql/builder.js';
import { CarrierObject } from '../carrier/graphql.js';
import { liveOnly } from '../load/queries.js';
import { loadLegRecord } from './schema.js';
import { storedFields } from '../../graphql/stored-fields.js';

export const LoadLegObject = builder.prismaObject('LoadLeg', {
  description: 'A leg (route / movement) of a load, with its carrier, driver and rep assignments.',
  fields: (t) => ({
    id: t.exposeID('id', { description: recordIdDescription }),
    ...storedFields(t, loadLegRecord, { more: { loadUniqueKey: 'The link is `Load.tmsUrl`.' } }),
    load: t.relation('load', { description: 'The load this leg belongs to.' }),
    carrier: t.field({
      type: CarrierObject,
      nullable: true,
      description: 'The assigned carrier; null when none is assigned or while the carrier is deleted.',
      select: (_args, _ctx, nestedSelection) => ({ carrier: nestedSelection(true) }),
      resolve: (leg) => (leg.carrier && !leg.carrier.deletedAt ? leg.carrier : null),
    }),
    stops: t.relation('stops', {
      description: 'Stops of the leg, by sequence (deleted stops left out).',
      complexity: { field: 1, multiplier: 4 }, // a leg has a pickup, a delivery and a few stops between
      query: (_args, ctx) => ({ where: { ...ofTenant(ctx), ...liveOnly }, orderBy: [{ sequence: { sort: 'asc', nulls: 'last' } }, { createdAt: 'asc' }] }),
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
