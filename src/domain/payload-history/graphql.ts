/**
 * The GraphQL adapter of payload history: `history(first:)` on every record kind's object type (from
 * the registry), answering `PayloadRecord`s newest first. The histories of a list's records are read
 * in one statement per kind and request.
 */
import { builder } from '../../graphql/builder.js';
import { tenantOf, type RequestContext } from '../../graphql/context.js';
import { IngestSourceEnum } from '../../graphql/enums.js';
import { UpsertStatusEnum } from '../../graphql/ingest-mutation.js';
import { pageSize } from '../../graphql/page-sizes.js';
import type { IngestSourceName } from '../ingest-health/report.js';
import { recordSpecs, type RecordKind } from '../registry.js';
import type { UpsertStatus } from '../ingestion/outcome.js';
import { actionsOf } from '../declaration/record.js';
import { payloadHistoryOf, type PayloadRow } from './service.js';

const PayloadRecord = builder.objectRef<PayloadRow>('PayloadRecord').implement({
  description:
    'One write of the record as the TMS sent it (answered processed, skipped or duplicate), kept for `PAYLOAD_HISTORY_DAYS` days, at most `PAYLOAD_HISTORY_PER_RECORD` per record.',
  fields: (t) => ({
    receivedAt: t.expose('receivedAt', { type: 'DateTime', description: 'When the service received it (its clock at the start of the request).' }),
    source: t.field({
      type: IngestSourceEnum,
      description: 'The ingestion path (`Service-Ingest-Source`).',
      resolve: (row) => row.source as IngestSourceName,
    }),
    requestId: t.exposeString('requestId', { nullable: true, description: "The request's id, as answered in its `X-Request-Id` header." }),
    query: t.exposeString('query', {
      nullable: true,
      description:
        "The request's parameters as received: REST's query string without `?` (`sync_run_time=…`, verbatim, a misspelt one too); a GraphQL write's `syncRunTime` written the same way. Null when the request had none (and for writes kept before it was recorded).",
    }),
    outcome: t.field({ type: UpsertStatusEnum, description: 'What the write was answered.', resolve: (row) => row.outcome as UpsertStatus }),
    changed: t.exposeBoolean('changed', {
      description: 'Whether the write changed the stored record: created it, or replaced a stored value with a different one.',
    }),
    body: t.expose('body', {
      type: 'JSON',
      description: "The record's body as received, keys and values verbatim (a GraphQL write: its input under the REST body's field names).",
    }),
  }),
});

/** Reads the histories asked for in one tick of a request together: one statement per kind and `first`. */
interface Batch {
  permalinks: Set<string>;
  read: Promise<Map<string, PayloadRow[]>>;
}
const batches = new WeakMap<RequestContext, Map<string, Batch>>();

function historyOf(ctx: RequestContext, kind: RecordKind, permalink: string, first: number): Promise<PayloadRow[]> {
  let pending = batches.get(ctx);
  if (!pending) {
    pending = new Map<string, Batch>();
    batches.set(ctx, pending);
  }
  const key = `${kind}:${first}`;
  let batch = pending.get(key);
  if (!batch) {
    const permalinks = new Set<string>();
    const tenantId = tenantOf(ctx).id;
    const read = Promise.resolve().then(() => {
      pending.delete(key);
      const { db, config, clock } = ctx.services;
      return payloadHistoryOf(db, config.payloadHistory, { tenantId, kind, permalinks: [...permalinks], first, now: clock.now() });
    });
    batch = { permalinks, read };
    pending.set(key, batch);
  }
  batch.permalinks.add(permalink);
  return batch.read.then((rows) => rows.get(permalink) ?? []);
}

/** The largest `history(first:)`: the page rule of every list (decision 0017), and the most `PAYLOAD_HISTORY_PER_RECORD` keeps. */
const maxHistoryPage = 100;

for (const spec of recordSpecs) {
  builder.prismaObjectField(spec.model as 'Load', 'history', (t) =>
    t.field({
      type: [PayloadRecord],
      description: `What the TMS sent for this ${spec.label.toLowerCase()}, newest first: the bodies of the writes${actionsOf(spec).includes('delete') ? ' (upserts and deletes)' : ''} answered processed, skipped or duplicate.`,
      args: {
        first: t.arg.int({
          defaultValue: 20,
          description: `How many (default 20, at most ${maxHistoryPage}); at most \`PAYLOAD_HISTORY_PER_RECORD\` (50 unless configured) are kept.`,
        }),
      },
      ...pageSize(maxHistoryPage),
      complexity: (args) => ({ field: 1, multiplier: Math.min(Math.max(args.first ?? 20, 1), maxHistoryPage) }),
      select: { permalink: true },
      // `first` is within 0…maxHistoryPage (graphql/page-sizes.ts guards it); no more than the per-record cap is kept.
      resolve: (record, { first }, ctx) => historyOf(ctx, spec.kind, record.permalink, Math.min(first ?? 20, ctx.services.config.payloadHistory.perRecord)),
    }),
  );
}
