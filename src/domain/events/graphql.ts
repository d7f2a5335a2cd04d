/**
 * GraphQL for change events: `loadEvents` pages through the outbox; `subscription { loadEvents }`
 * streams it over Server-Sent Events (Yoga's graphql-sse support), replaying after a cursor first.
 */
import { builder } from '../../graphql/builder.js';
import { pageSize } from '../../graphql/page-sizes.js';
import { tenantOf } from '../../graphql/context.js';
import { loadEventTypes, type LoadEvent, type LoadEventFilter } from './catalog.js';
import { assertValidFilter, cursorOf, maxEventPage, parseCursor, readLoadEvents } from './service.js';

const LoadEventType = builder.objectRef<LoadEvent>('LoadEvent').implement({
  description: "A change of the tenant's data, recorded in the same transaction as the write (docs/reference/events.md lists the types and payloads).",
  fields: (t) => ({
    cursor: t.string({
      description: "Position in the tenant's event stream, increasing in commit order: pass it as `after` to continue after this event.",
      resolve: (event) => cursorOf(event),
    }),
    type: t.exposeString('type', { description: `The event type: ${loadEventTypes.join(', ')}.` }),
    loadPermalink: t.exposeString('loadPermalink', { nullable: true, description: 'The load the event concerns (null for `ingest_health.*`).' }),
    data: t.expose('data', { type: 'JSON', description: 'The payload (the `data` of a webhook body).' }),
    occurredAt: t.expose('occurredAt', { type: 'DateTime', description: 'Service clock of the write.' }),
  }),
});

const LoadEventFilterInput = builder.inputType('LoadEventFilter', {
  description: 'Narrows change events; every given part must match.',
  fields: (t) => ({
    types: t.stringList({ description: `Any of these event types (${loadEventTypes.join(', ')}).` }),
    loadPermalinks: t.stringList({ description: 'Events of any of these loads (`native_system_load_permalink`).' }),
  }),
});

const LoadEventConnection = builder.connectionObject(
  { type: LoadEventType, name: 'LoadEventConnection', description: 'A page of change events, oldest first.' },
  { name: 'LoadEventEdge', description: 'A change event and its cursor.' },
);

const checkedFilter = (filter: LoadEventFilter | null | undefined) => {
  assertValidFilter(filter);
  return filter;
};

builder.queryField('loadEvents', (t) =>
  t.field({
    type: LoadEventConnection,
    description: `The tenant's change events after a cursor, oldest first (kept for the retention period, default 7 days).`,
    args: {
      after: t.arg.string({
        description: "Return events after this cursor (an event's `cursor` or `pageInfo.endCursor`); from the oldest kept event when absent.",
      }),
      first: t.arg.int({ description: `Page size (default 20, at most ${maxEventPage}).` }),
      filter: t.arg({ type: LoadEventFilterInput, description: 'Narrows the events.' }),
    },
    complexity: (args) => ({ field: 1, multiplier: Math.min(Math.max(args.first ?? 20, 1), maxEventPage) }),
    ...pageSize(maxEventPage),
    resolve: async (_root, { after, first, filter }, ctx) => {
      const size = first ?? 20;
      const cursor = parseCursor(after);
      const tenantId = tenantOf(ctx).id;
      await ctx.services.sequencer.sequence(tenantId);
      const events = await readLoadEvents(ctx.services.db, tenantId, cursor, size + 1, checkedFilter(filter));
      const page = events.slice(0, size);
      const edges = page.map((event) => ({ cursor: cursorOf(event), node: event }));
      return {
        edges,
        pageInfo: {
          hasNextPage: events.length > size,
          hasPreviousPage: cursor > 0n,
          startCursor: edges[0]?.cursor ?? null,
          // On an empty page, the cursor given: a poller keeps passing it back.
          endCursor: edges.at(-1)?.cursor ?? (after || null),
        },
      };
    },
  }),
);

builder.subscriptionField('loadEvents', (t) =>
  t.field({
    type: LoadEventType,
    description:
      "The tenant's change events as they commit, over Server-Sent Events. With `after`, first every stored event after that cursor (a reconnecting dashboard misses nothing), then live; without it, only events committed from now on.",
    args: {
      after: t.arg.string({ description: 'Replay the events after this cursor first (the last `cursor` this client received).' }),
      filter: t.arg({ type: LoadEventFilterInput, description: 'Narrows the events.' }),
    },
    subscribe: (_root, { after, filter }, ctx) =>
      ctx.services.events.subscribe(tenantOf(ctx).id, after == null ? null : parseCursor(after), checkedFilter(filter)),
    resolve: (event) => event,
  }),
);
