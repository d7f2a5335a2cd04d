import { builder, recordIdDescription } from '../../graphql/builder.js';
import { PhaseEnum } from '../../graphql/enums.js';
import { auditAdminChange } from '../../graphql/admin-audit.js';
import { tenantOf } from '../../graphql/context.js';
import { removeStatusMapping, setStatusMapping } from './service.js';

builder.prismaObject('StatusMapping', {
  description: 'Maps one TMS status text (compared trimmed and case-insensitively) to a phase.',
  fields: (t) => ({
    id: t.exposeID('id', { description: recordIdDescription }),
    status: t.exposeString('status', { description: 'The status as the operator entered it (trimmed).' }),
    phase: t.expose('phase', { type: PhaseEnum, description: 'The phase loads with this status are in.' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime', description: 'When the mapping was last set.' }),
  }),
});

builder.queryField('statusMappings', (t) =>
  t.prismaField({
    type: ['StatusMapping'],
    description: "The tenant's status mapping, by status.",
    resolve: (query, _root, _args, ctx) =>
      ctx.services.db.prisma.statusMapping.findMany({ ...query, where: { tenantId: tenantOf(ctx).id }, orderBy: { statusKey: 'asc' } }),
  }),
);

builder.mutationFields((t) => ({
  setStatusMapping: t.prismaField({
    type: 'StatusMapping',
    description:
      "Maps a TMS status to a phase (creating or replacing the mapping) and re-phases the tenant's stored loads and updates. Needs the tenant key, or the admin key with X-Tenant.",
    args: {
      status: t.arg.string({ required: true, description: 'The TMS status text (compared trimmed and case-insensitively).' }),
      phase: t.arg({ type: PhaseEnum, required: true, description: 'The phase it means.' }),
    },
    // The tenant's own key, or the admin key for the X-Tenant tenant (tenant administration).
    resolve: async (_query, _root, { status, phase }, ctx) => {
      const tenant = tenantOf(ctx);
      const mapping = await setStatusMapping(ctx.services.db, tenant.id, status, phase, ctx.now);
      ctx.services.sequencer.committed(tenant.id);
      auditAdminChange(ctx, 'setStatusMapping', { tenant: tenant.slug, status: mapping.status, phase: mapping.phase });
      return mapping;
    },
  }),
  removeStatusMapping: t.boolean({
    description:
      'Removes the mapping of a TMS status; its loads become UNMAPPED. False when there was none. Needs the tenant key, or the admin key with X-Tenant.',
    args: { status: t.arg.string({ required: true, description: 'The TMS status text.' }) },
    resolve: async (_root, { status }, ctx) => {
      const tenant = tenantOf(ctx);
      const removed = await removeStatusMapping(ctx.services.db, tenant.id, status, ctx.now);
      ctx.services.sequencer.committed(tenant.id);
      auditAdminChange(ctx, 'removeStatusMapping', { tenant: tenant.slug, status, removed });
      return removed;
    },
  }),
}));
