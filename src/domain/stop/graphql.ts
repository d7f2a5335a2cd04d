import { byPermalinkArgs, byPermalinkDescription, byPermalinkWhere } from '../../graphql/by-permalink.js';
import { builder, recordIdDescription } from '../../graphql/builder.js';
import { sharedEnum } from '../../graphql/enums.js';
import { stopRecord, stopTypes } from './schema.js';
import { storedFields } from '../../graphql/stored-fields.js';

// The type of the stop's stored `type` (graphql/stored-fields.ts finds it by the column's type name).
sharedEnum('StopType', stopTypes, 'Kind of stop (REST `stop_type`: `pickup` or `delivery`).');

export const StopObject = builder.prismaObject('Stop', {
  description: 'A pickup or delivery on a leg.',
  fields: (t) => ({
    id: t.exposeID('id', { description: recordIdDescription }),
    ...storedFields(t, stopRecord),
    leg: t.relation('leg', { description: 'The leg this stop belongs to.' }),
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
