/**
 * GraphQL for outbound webhooks: the tenant manages its endpoints (the admin key reads them and
 * their deliveries, and gets `forbidden` on every mutation). A thin adapter over service.ts.
 */
import type { WebhookEndpoint } from '../../db/generated/prisma/client.js';
import { pageSize, pageSizeError } from '../../graphql/page-sizes.js';
import { builder } from '../../graphql/builder.js';
import { ofTenant, tenantOf, writableTenantOf, type RequestContext } from '../../graphql/context.js';
import { IngestHealthType } from '../ingest-health/graphql.js';
import { maxAttempts, webhookEventTypes } from './schema.js';
import {
  createEndpoint,
  deleteEndpoint,
  endpointWhere,
  replayDeliveries,
  rotateSecret,
  troubledEndpoints,
  updateEndpoint,
  type EndpointScope,
} from './service.js';

const maxDeliveries = 100;
const eventList = webhookEventTypes.map((t) => `\`${t}\``).join(', ');

/** The write scope of a mutation: only the tenant's own key writes. */
const writeScope = (ctx: RequestContext): EndpointScope => ({
  db: ctx.services.db,
  tenantId: writableTenantOf(ctx).id,
  now: ctx.now,
  allowPrivateNetworks: ctx.services.config.webhooks.allowPrivateNetworks,
});

const WebhookDeliveryStateEnum = builder.enumType('WebhookDeliveryState', {
  description: 'Where a delivery stands.',
  values: {
    PENDING: { description: 'Queued: not yet sent, or waiting for its next attempt.' },
    SUCCEEDED: { description: 'The endpoint answered 2xx.' },
    FAILED: { description: `Every one of the ${maxAttempts} attempts failed; it is not retried (replay it with \`replayWebhookDeliveries\`).` },
  } as const,
});

builder.prismaObject('WebhookAttempt', {
  description: 'One HTTP attempt of a delivery.',
  fields: (t) => ({
    attemptedAt: t.expose('attemptedAt', { type: 'DateTime', description: 'When the attempt was sent.' }),
    httpStatus: t.exposeInt('httpStatus', {
      nullable: true,
      description: "The endpoint's HTTP status; null when no answer arrived (timeout, connection error, refused address).",
    }),
    error: t.exposeString('error', { nullable: true, description: 'Why the attempt failed; null on success.' }),
    durationMs: t.exposeInt('durationMs', { description: 'Milliseconds from sending to the end of the answer (or the failure).' }),
  }),
});

builder.prismaObject('WebhookDelivery', {
  description: 'One change event queued for one endpoint, with its attempts.',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'Id of this delivery.' }),
    webhookId: t.exposeString('messageId', {
      description: 'The `webhook-id` header: the same on every attempt and replay of one event (use it to drop duplicates).',
    }),
    eventType: t.exposeString('eventType', { description: `The event type (${eventList}).` }),
    eventCursor: t.string({
      description: "The event's position in the tenant's event stream (its per-tenant sequence number).",
      resolve: (d) => String(d.eventSeq),
    }),
    loadPermalink: t.exposeString('loadPermalink', { nullable: true, description: 'The load the event concerns (null for tenant-wide events).' }),
    payload: t.field({ type: 'JSON', description: 'The body sent: `{type, timestamp, data}`.', resolve: (d) => JSON.parse(d.body) as unknown }),
    state: t.expose('state', { type: WebhookDeliveryStateEnum, description: 'Where the delivery stands.' }),
    attemptCount: t.exposeInt('attemptCount', { description: `Attempts made so far (at most ${maxAttempts}).` }),
    nextAttemptAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When the next attempt is due (null once SUCCEEDED or FAILED).',
      resolve: (d) => (d.state === 'PENDING' ? d.nextAttemptAt : null),
    }),
    replay: t.exposeBoolean('replay', { description: 'True when queued by `replayWebhookDeliveries`.' }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When the delivery was queued (for a live event: when the event was recorded).' }),
    completedAt: t.expose('completedAt', { type: 'DateTime', nullable: true, description: 'When it SUCCEEDED or FAILED.' }),
    attempts: t.relation('attempts', {
      description: 'Every attempt, oldest first.',
      complexity: { field: 1, multiplier: maxAttempts },
      query: (_args, ctx) => ({ where: ofTenant(ctx), orderBy: [{ attemptedAt: 'asc' }, { id: 'asc' }] }),
    }),
  }),
});

const WebhookEndpointRef = builder.prismaObject('WebhookEndpoint', {
  description: 'A URL of the tenant that receives change events, signed per Standard Webhooks.',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'Id of the endpoint.' }),
    url: t.exposeString('url', { description: 'Where events are POSTed.' }),
    description: t.exposeString('description', { nullable: true, description: 'What the endpoint is for.' }),
    eventTypes: t.exposeStringList('eventTypes', { description: `The event types delivered (${eventList}).` }),
    enabled: t.exposeBoolean('enabled', { description: 'False when disabled: nothing is queued or sent to it.' }),
    disabledAt: t.expose('disabledAt', { type: 'DateTime', nullable: true, description: 'When it was disabled.' }),
    disabledReason: t.exposeString('disabledReason', {
      nullable: true,
      description: 'Why it was disabled: by the tenant, or automatically after every attempt failed for 5 days.',
    }),
    failingSince: t.expose('failingSince', {
      type: 'DateTime',
      nullable: true,
      description: 'Start of the current run of failed attempts (null after a success); after 5 days the endpoint is disabled.',
    }),
    previousSecretExpiresAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'After a rotation: until when the previous secret still signs alongside the new one (null when it no longer does).',
      resolve: (e, _args, ctx) => (e.previousSecretExpiresAt && e.previousSecretExpiresAt > ctx.now ? e.previousSecretExpiresAt : null),
    }),
    createdAt: t.expose('createdAt', { type: 'DateTime', description: 'When the endpoint was created.' }),
    updatedAt: t.expose('updatedAt', { type: 'DateTime', description: 'When it was last changed.' }),
    deliveries: t.relation('deliveries', {
      description: 'Its deliveries, newest first, each with its attempts.',
      args: { first: t.arg.int({ description: `How many (default 20, at most ${maxDeliveries}).` }) },
      complexity: (args) => ({ field: 1, multiplier: Math.min(Math.max(args.first ?? 20, 1), maxDeliveries) }),
      ...pageSize(maxDeliveries),
      // The relation is loaded with its parent, before this field's own (guarded) resolver runs.
      query: ({ first }, ctx) => {
        if (first != null && (first < 0 || first > maxDeliveries)) throw pageSizeError('first', maxDeliveries, 'WebhookEndpoint.deliveries');
        return { where: ofTenant(ctx), take: first ?? 20, orderBy: [{ createdAt: 'desc' }, { eventSeq: 'desc' }, { id: 'desc' }] };
      },
    }),
  }),
});

const WebhookEndpointSecretType = builder.objectRef<{ endpoint: WebhookEndpoint; secret: string }>('WebhookEndpointWithSecret').implement({
  description: 'An endpoint with its new signing secret, shown this once.',
  fields: (t) => ({
    endpoint: t.field({ type: WebhookEndpointRef, description: 'The endpoint.', resolve: (r) => r.endpoint }),
    secret: t.exposeString('secret', {
      description: 'The signing secret (`whsec_…`), shown once: verify `webhook-signature` with it (any Standard Webhooks library).',
    }),
  }),
});

const WebhookEndpointInputType = builder.inputType('WebhookEndpointInput', {
  description: 'A new webhook endpoint.',
  fields: (t) => ({
    url: t.string({ required: true, description: 'An http(s) URL on a public address (at most 2000 characters).' }),
    eventTypes: t.stringList({ required: true, description: `Event types to deliver, at least one of ${eventList}.` }),
    description: t.string({ description: 'What the endpoint is for (at most 500 characters).' }),
  }),
});

const WebhookEndpointPatchType = builder.inputType('WebhookEndpointPatch', {
  description: 'Changes to an endpoint; absent fields are left as they are.',
  fields: (t) => ({
    url: t.string({ description: "A new URL (checked like a new endpoint's)." }),
    eventTypes: t.stringList({ description: 'The new list of event types.' }),
    description: t.string({ description: 'A new description (null clears it).' }),
    enabled: t.boolean({ description: 'False disables the endpoint; true re-enables it (also after an automatic disable) and clears `failingSince`.' }),
  }),
});

const idArg = <Arg>(t: { arg: { id: (o: { required: true; description: string }) => Arg } }, description = 'Id of the endpoint.'): Arg =>
  t.arg.id({ required: true, description });

builder.queryFields((t) => ({
  webhookEndpoints: t.prismaField({
    type: ['WebhookEndpoint'],
    description: "The tenant's webhook endpoints, oldest first.",
    // Deliveries are queued by the pass that numbers their events: the tenant's pass runs first, so a
    // client that got its write's 200 finds the write's deliveries (decision 0045).
    resolve: async (query, _root, _args, ctx) => {
      const tenantId = tenantOf(ctx).id;
      await ctx.services.sequencer.sequence(tenantId);
      return ctx.services.db.prisma.webhookEndpoint.findMany({ ...query, where: { tenantId }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
    },
  }),
  webhookEndpoint: t.prismaField({
    type: 'WebhookEndpoint',
    nullable: true,
    description: 'One webhook endpoint of the tenant, or null.',
    args: { id: idArg(t) },
    // One query, selections included: an unknown or another tenant's id is simply no row (null).
    resolve: async (query, _root, { id }, ctx) => {
      const tenantId = tenantOf(ctx).id;
      await ctx.services.sequencer.sequence(tenantId);
      return ctx.services.db.prisma.webhookEndpoint.findFirst({ ...query, where: endpointWhere(tenantId, String(id)) });
    },
  }),
}));

builder.mutationFields((t) => ({
  createWebhookEndpoint: t.field({
    type: WebhookEndpointSecretType,
    description: 'Creates an endpoint; the answer carries its signing secret, shown this once.',
    args: { input: t.arg({ type: WebhookEndpointInputType, required: true, description: 'The endpoint.' }) },
    resolve: (_root, { input }, ctx) => createEndpoint(writeScope(ctx), input),
  }),
  updateWebhookEndpoint: t.field({
    type: WebhookEndpointRef,
    description: 'Changes an endpoint (URL, event types, description, enabled).',
    args: { id: idArg(t), input: t.arg({ type: WebhookEndpointPatchType, required: true, description: 'The changes.' }) },
    resolve: (_root, { id, input }, ctx) => updateEndpoint(writeScope(ctx), String(id), input),
  }),
  deleteWebhookEndpoint: t.boolean({
    description: 'Deletes an endpoint with its deliveries. False when there was none.',
    args: { id: idArg(t) },
    resolve: (_root, { id }, ctx) => deleteEndpoint(ctx.services.db, writeScope(ctx).tenantId, String(id)),
  }),
  rotateWebhookSecret: t.field({
    type: WebhookEndpointSecretType,
    description:
      'Issues a new signing secret (shown this once). The previous one keeps signing alongside it for 24 hours, so receivers can switch without losing events.',
    args: { id: idArg(t) },
    resolve: (_root, { id }, ctx) => rotateSecret(writeScope(ctx), String(id)),
  }),
  replayWebhookDeliveries: t.int({
    description:
      'Queues again, with the same `webhook-id` and body, every delivery of the endpoint whose event was recorded in [since, until); returns how many. They are sent in event order per load.',
    args: {
      endpointId: idArg(t),
      since: t.arg({ type: 'DateTime', required: true, description: 'Start of the window (inclusive).' }),
      until: t.arg({ type: 'DateTime', description: 'End of the window (exclusive); default now.' }),
    },
    // The window's events are numbered (their deliveries queued) before they are queued again.
    resolve: async (_root, { endpointId, since, until }, ctx) => {
      const scope = writeScope(ctx);
      await ctx.services.sequencer.sequence(scope.tenantId);
      return replayDeliveries(scope, String(endpointId), since, until);
    },
  }),
}));

builder.objectField(IngestHealthType, 'webhookEndpoints', (t) =>
  t.field({
    type: [WebhookEndpointRef],
    description: 'Webhook endpoints that need attention: disabled ones (`disabledReason` says why) and ones whose attempts currently fail (`failingSince`).',
    resolve: (_health, _args, ctx) => troubledEndpoints(ctx.services.db, tenantOf(ctx).id),
  }),
);
