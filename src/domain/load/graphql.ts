import { byPermalinkArgs, byPermalinkDescription, byPermalinkWhere } from '../../graphql/by-permalink.js';
import { builder, recordIdDescription } from '../../graphql/builder.js';
import { PhaseEnum } from '../../graphql/enums.js';
import { assertCursorExists, boundedTotalCount, connectionWithTotalCount, maxConnectionPage, recordIdCursor, scopeCursor } from '../../graphql/pagination.js';
import { pageSize, pageSizeError } from '../../graphql/page-sizes.js';
import { zodInput } from '../../graphql/zod-input.js';
import { ofTenant, tenantOf, writableTenantOf, type RequestContext } from '../../graphql/context.js';
import { editLoad, LoadPatch } from './edit.js';
import { legOrder, liveOnly, loadFilterWhere, loadOrderBy, loadOrders, tmsUrlOf, type LoadFilter } from './queries.js';
import { loadRecord } from './schema.js';
import { storedFields } from '../../graphql/stored-fields.js';

/** Most updates one `Load.updates` selection returns. */
const maxUpdates = 100;

builder.prismaObject('PhaseChange', {
  description: "One change of a load's phase, recorded by the database on every write path (upsert, mapping change, user edit).",
  fields: (t) => ({
    id: t.exposeID('id', { description: recordIdDescription }),
    fromPhase: t.expose('fromPhase', { type: PhaseEnum, nullable: true, description: 'Phase before the change (null when the load was created).' }),
    toPhase: t.expose('toPhase', { type: PhaseEnum, description: 'Phase after the change.' }),
    status: t.exposeString('status', { nullable: true, description: 'The TMS status that led to the new phase.' }),
    changedAt: t.expose('changedAt', { type: 'DateTime', description: 'When the phase changed (service clock).' }),
  }),
});

export const LoadObject = builder.prismaObject('Load', {
  description: 'A load: one order / bill of lading, with its legs, updates and phase history.',
  fields: (t) => ({
    id: t.exposeID('id', { description: recordIdDescription }),
    ...storedFields(t, loadRecord, { more: { changedAt: 'What `LoadFilter.changedSince` compares.' } }),
    phase: t.expose('phase', { type: PhaseEnum, description: "Phase translated from `status` by the tenant's status mapping." }),
    tmsUrl: t.string({
      nullable: true,
      description:
        '"View in TMS" link: the tenant\'s URL template with `{key}` replaced by the `native_system_load_unique_key` of the load\'s first leg (by sequence) that has one; null without a template or a key.',
      // Same arguments as the `legs` field, so both share one query when selected together.
      select: { legs: { select: { loadUniqueKey: true }, where: liveOnly, orderBy: legOrder } },
      resolve: (load, _args, ctx) => tmsUrlOf(tenantOf(ctx).tmsUrlTemplate, load.legs),
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When the service first stored the load.' }),
    legs: t.relation('legs', {
      description: 'Legs of the load, by sequence (deleted legs left out).',
      complexity: { field: 1, multiplier: 3 }, // a load has one to a few legs
      query: (_args, ctx) => ({ where: { ...ofTenant(ctx), ...liveOnly }, orderBy: legOrder }),
    }),
    updates: t.relation('updates', {
      description: 'Check calls, GPS pings and status remarks, newest first (by `occurredAt`).',
      args: { first: t.arg.int({ description: `How many (default 10, at most ${maxUpdates}).` }) },
      complexity: (args) => ({ field: 1, multiplier: Math.min(Math.max(args.first ?? 10, 1), maxUpdates) }),
      ...pageSize(maxUpdates),
      // The relation is loaded with its parent, before this field's own (guarded) resolver runs.
      query: ({ first }, ctx) => {
        if (first != null && (first < 0 || first > maxUpdates)) throw pageSizeError('first', maxUpdates, 'Load.updates');
        return { where: ofTenant(ctx), take: first ?? 10, orderBy: [{ occurredAt: { sort: 'desc', nulls: 'last' } }, { createdAt: 'desc' }, { id: 'desc' }] };
      },
    }),
    phaseHistory: t.relation('phaseChanges', {
      description: 'Every phase the load went through, oldest first.',
      query: (_args, ctx) => ({ where: ofTenant(ctx), orderBy: [{ changedAt: 'asc' }] }),
    }),
  }),
});

const LoadFilterInput = builder.inputType('LoadFilter', {
  description: 'Narrows `loads`; every given part must match.',
  fields: (t) => ({
    phase: t.field({ type: [PhaseEnum], description: 'Any of these phases.' }),
    status: t.string({ description: 'The TMS status, compared trimmed, case-insensitively and literally (`%` and `_` are no wildcards).' }),
    search: t.string({
      description:
        'A case-insensitive part (matched literally) of any reference number: customer reference, BOL, PO, leg reference, pickup reference or stop reference.',
    }),
    changedSince: t.field({ type: 'DateTime', description: 'Only loads the service wrote at or after this instant (`changedAt`).' }),
    activitySince: t.field({
      type: 'DateTime',
      description: 'Only loads whose load, legs, stops or updates were written at or after this instant (`lastActivityAt`).',
    }),
    carrier: t.string({ description: 'Only loads with a leg assigned to the carrier with this permalink.' }),
    city: t.string({ description: 'Only loads with a stop in this city (compared case-insensitively).' }),
  }),
});

const LoadOrderEnum = builder.enumType('LoadOrder', {
  description: 'Order of `loads`.',
  values: {
    CREATED_DESC: { value: loadOrders[0], description: 'Newest created first (the default).' },
    ACTIVITY_DESC: { value: loadOrders[1], description: 'Most recent activity first (`lastActivityAt`).' },
  },
});

builder.queryFields((t) => ({
  load: t.prismaField({
    type: 'Load',
    nullable: true,
    description: byPermalinkDescription('load'),
    args: byPermalinkArgs('native_system_load_permalink'),
    resolve: (query, _root, args, ctx) => ctx.services.db.prisma.load.findUnique({ ...query, where: byPermalinkWhere(ctx, args) }),
  }),
  loads: t.prismaConnection(
    {
      type: 'Load',
      cursor: recordIdCursor,
      description: "The tenant's loads, newest first (by creation, or by activity with `orderBy: ACTIVITY_DESC`), optionally filtered.",
      args: {
        filter: t.arg({ type: LoadFilterInput, description: 'Narrows the list.' }),
        orderBy: t.arg({ type: LoadOrderEnum, description: 'Order of the list (default `CREATED_DESC`).' }),
      },
      complexity: (args) => ({ field: 1, multiplier: Math.min(Math.max(args.first ?? 20, 1), maxConnectionPage) }),
      maxSize: maxConnectionPage,
      ...pageSize(maxConnectionPage),
      totalCount: boundedTotalCount(({ filter }: { filter?: LoadFilter | null }, ctx: RequestContext, limit) =>
        ctx.services.db.prisma.load.count({ where: loadFilterWhere(tenantOf(ctx).id, filter), take: limit }),
      ),
      // The resolvers' reading, over Prisma: what an operation the compiled reads do not answer gets
      // (graphql/compiled-read.ts; the board's, the dashboard's and the console's are compiled).
      resolve: async (query, _root, { filter, orderBy }, ctx) => {
        const tenantId = tenantOf(ctx).id;
        const { prisma } = ctx.services.db;
        const loads = await prisma.load.findMany({ ...scopeCursor(query, tenantId), where: loadFilterWhere(tenantId, filter), orderBy: loadOrderBy(orderBy) });
        if (!loads.length) await assertCursorExists(query, async (id) => (await prisma.load.count({ where: { id, tenantId } })) > 0);
        return loads;
      },
    },
    connectionWithTotalCount('LoadConnection', 'A page of loads.', 'loads'),
    { name: 'LoadEdge', description: 'A load and its cursor.' },
  ),
}));

const LoadPatchInput = zodInput('LoadPatch', LoadPatch, {
  description: 'Load fields to change, as in a `LoadUpsert` body: an absent field is left as it is, null clears it.',
  partial: true,
});

builder.mutationField('editLoad', (t) =>
  t.prismaField({
    type: 'Load',
    description:
      "A user's edit of a load. It counts as the freshest data: a later upsert whose `syncRunTime` is older than the edit answers SKIPPED. Changing the status re-derives the phase.",
    args: {
      permalink: t.arg.string({ required: true, description: '`native_system_load_permalink` of the load to edit.' }),
      patch: t.arg({ type: LoadPatchInput.type, required: true, description: 'The fields to change.' }),
    },
    resolve: async (query, _root, { permalink, patch }, ctx) => {
      const tenant = writableTenantOf(ctx);
      const { db, sequencer } = ctx.services;
      const id = await editLoad({ db, tenant, permalink, patch: LoadPatchInput.toBody(patch as Record<string, unknown>), now: ctx.now }).catch(
        (error: unknown) => {
          throw LoadPatchInput.renameFields(error);
        },
      );
      sequencer.committed(tenant.id);
      return db.prisma.load.findUniqueOrThrow({ ...query, where: { tenantId_id: { tenantId: tenant.id, id } } });
    },
  }),
);
