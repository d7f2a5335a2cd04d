import { byPermalinkArgs, byPermalinkDescription, byPermalinkWhere } from '../../graphql/by-permalink.js';
import { builder, recordIdDescription } from '../../graphql/builder.js';
import { assertCursorExists, boundedTotalCount, connectionWithTotalCount, maxConnectionPage, recordIdCursor, scopeCursor } from '../../graphql/pagination.js';
import { pageSize } from '../../graphql/page-sizes.js';
import { tenantOf, type RequestContext } from '../../graphql/context.js';
import { carrierSearchWhere } from './queries.js';
import { carrierRecord } from './schema.js';
import { storedFields } from '../../graphql/stored-fields.js';

export const CarrierObject = builder.prismaObject('Carrier', {
  description: 'A carrier (trucking company) as the TMS knows it.',
  fields: (t) => ({
    id: t.exposeID('id', { description: recordIdDescription }),
    ...storedFields(t, carrierRecord),
  }),
});

builder.queryFields((t) => ({
  carrier: t.prismaField({
    type: 'Carrier',
    nullable: true,
    description: byPermalinkDescription('carrier'),
    args: byPermalinkArgs('native_system_carrier_permalink'),
    resolve: (query, _root, args, ctx) => ctx.services.db.prisma.carrier.findUnique({ ...query, where: byPermalinkWhere(ctx, args) }),
  }),
  carriers: t.prismaConnection(
    {
      type: 'Carrier',
      cursor: recordIdCursor,
      description: "The tenant's carriers by name (then id), optionally narrowed by `search`.",
      args: {
        search: t.arg.string({ description: 'Case-insensitive part (matched literally) of the name, MC number, DOT number or SCAC.' }),
      },
      complexity: (args) => ({ field: 1, multiplier: Math.min(Math.max(args.first ?? 20, 1), maxConnectionPage) }),
      maxSize: maxConnectionPage,
      ...pageSize(maxConnectionPage),
      totalCount: boundedTotalCount(({ search }: { search?: string | null }, ctx: RequestContext, limit) =>
        ctx.services.db.prisma.carrier.count({ where: carrierSearchWhere(tenantOf(ctx).id, search), take: limit }),
      ),
      resolve: async (query, _root, { search }, ctx) => {
        const tenantId = tenantOf(ctx).id;
        const { prisma } = ctx.services.db;
        const carriers = await prisma.carrier.findMany({
          ...scopeCursor(query, tenantId),
          where: carrierSearchWhere(tenantId, search),
          orderBy: [{ name: { sort: 'asc', nulls: 'last' } }, { id: 'asc' }],
        });
        if (!carriers.length) await assertCursorExists(query, async (id) => (await prisma.carrier.count({ where: { id, tenantId } })) > 0);
        return carriers;
      },
    },
    connectionWithTotalCount('CarrierConnection', 'A page of carriers.', 'carriers'),
    { name: 'CarrierEdge', description: 'A carrier and its cursor.' },
  ),
}));
