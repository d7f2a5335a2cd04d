/**
 * GraphQL `ingestHealth` (api-contract.md C): the tenant's ingestion health as support engineers
 * read it in GraphiQL. A thin adapter over service.ts.
 */
import { builder } from '../../graphql/builder.js';
import { tenantOf } from '../../graphql/context.js';
import { IngestSourceEnum } from '../../graphql/enums.js';
import { recordSpecs, type RecordKind } from '../registry.js';
import { restPath } from '../declaration/record.js';
import { maxRejectedBodyChars, rejectionSampleSize } from './recorder.js';
import { FieldIssueRef } from '../../graphql/field-issue.js';
import {
  degradedMinimumRequests,
  readIngestHealth,
  readIngestSeries,
  seriesIntervalMinutes,
  unmappedStatusLimit,
  type HealthState,
  type IngestHealth,
  type KindCounts,
  type OutcomeCounts,
  type RecentRejection,
  type SeriesPoint,
  type SourceHealth,
  type UnmappedStatus,
} from './service.js';

const HealthStateEnum = builder.enumType('HealthState', {
  description: 'How one ingestion path of the tenant is doing; the first matching state wins, in the order listed below.',
  values: {
    NO_TRAFFIC: { value: 'NO_TRAFFIC', description: 'This path has never received a request.' },
    STALE: {
      value: 'STALE',
      description: "Nothing received on this path for longer than the tenant's expected interval (`staleAfterSeconds`).",
    },
    DEGRADED: {
      value: 'DEGRADED',
      description: `Over the last hour, at least ${degradedMinimumRequests} requests and a rejected share above the service threshold (INGEST_DEGRADED_REJECTION_RATE, default 0.2).`,
    },
    HEALTHY: { value: 'HEALTHY', description: 'Receiving within the expected interval with few rejections.' },
  } satisfies Record<HealthState, { value: HealthState; description: string }>,
});

export const IngestRecordKindEnum = builder.enumType('IngestRecordKind', {
  description: 'The record kind an ingestion request carried (its REST route or GraphQL mutation).',
  // One value per kind of the registry.
  values: Object.fromEntries(
    recordSpecs.map((spec) => [spec.kind.toUpperCase(), { value: spec.kind, description: `${spec.label}s (\`${restPath(spec)}\`).` }]),
  ) as Record<Uppercase<RecordKind>, { value: RecordKind; description: string }>,
});

const OutcomeCountsType = builder.objectRef<OutcomeCounts>('OutcomeCounts').implement({
  description: 'Ingested records by outcome over a time window (a bulk request counts each of its records; dry runs only in `dryRun`).',
  fields: (t) => ({
    processed: t.exposeInt('processed', { nullable: false, description: 'Records written (created or changed).' }),
    skipped: t.exposeInt('skipped', { nullable: false, description: 'Records not written because the stored one was fresher (`sync_run_time`).' }),
    duplicate: t.exposeInt('duplicate', { nullable: false, description: 'Load updates whose permalink was already stored.' }),
    rejected: t.exposeInt('rejected', {
      nullable: false,
      description: 'Requests answered with an error (validation, unknown parent, …); see `recentRejections`.',
    }),
  }),
});

const KindCountsType = builder.objectRef<KindCounts>('KindCounts').implement({
  description: 'Outcome counts of one record kind on one ingestion path.',
  fields: (t) => ({
    kind: t.field({ nullable: false, type: IngestRecordKindEnum, description: 'The record kind.', resolve: (k) => k.kind }),
    lastHour: t.field({
      nullable: false,
      type: OutcomeCountsType,
      description: 'Counts over the last hour (see `IngestSourceHealth.lastHour`).',
      resolve: (k) => k.lastHour,
    }),
    lastDay: t.field({ nullable: false, type: OutcomeCountsType, description: 'Counts over the last 24 hours.', resolve: (k) => k.lastDay }),
  }),
});

const SeriesPointType = builder.objectRef<SeriesPoint>('IngestSeriesPoint').implement({
  description: 'Records of one ingestion path in one interval, by outcome.',
  fields: (t) => ({
    start: t.field({ type: 'DateTime', description: 'Start of the interval.', resolve: (p) => p.start }),
    processed: t.exposeInt('processed', { description: 'Records written (created or changed).' }),
    skipped: t.exposeInt('skipped', { description: 'Records older than the stored version (`sync_run_time`), not written.' }),
    duplicate: t.exposeInt('duplicate', { description: 'Load updates already stored.' }),
    rejected: t.exposeInt('rejected', { description: 'Records refused with an error.' }),
  }),
});

const DryRunCountsType = builder.objectRef<SourceHealth['dryRun']>('DryRunCounts').implement({
  description:
    'Dry-run records (`?dry_run=true`, `dryRun: true`) of one ingestion path by the outcome they were answered: counted here only, never in ' +
    "the path's other counts, state, `lastReceivedAt` or `recentRejections`.",
  fields: (t) => ({
    lastHour: t.field({ nullable: false, type: OutcomeCountsType, description: 'Dry-run records over the last hour.', resolve: (d) => d.lastHour }),
    lastDay: t.field({ nullable: false, type: OutcomeCountsType, description: 'Dry-run records over the last 24 hours.', resolve: (d) => d.lastDay }),
  }),
});

const IngestSourceHealthType = builder.objectRef<SourceHealth>('IngestSourceHealth').implement({
  description: 'Health of one ingestion path (pull, webhook or unspecified) of the tenant.',
  fields: (t) => ({
    source: t.field({ nullable: false, type: IngestSourceEnum, description: 'The ingestion path.', resolve: (s) => s.source }),
    state: t.field({ nullable: false, type: HealthStateEnum, description: "The path's state (see `HealthState`).", resolve: (s) => s.state }),
    lastReceivedAt: t.field({
      type: 'DateTime',
      nullable: true,
      description: 'When this path last received a request, accepted or rejected (dry runs aside); null if never.',
      resolve: (s) => s.lastReceivedAt,
    }),
    staleAfterSeconds: t.exposeInt('staleAfterSeconds', {
      nullable: false,
      description: "The tenant's expected interval for this path: silence longer than this makes it STALE (set with `npm run tenant`).",
    }),
    lastHour: t.field({
      nullable: false,
      type: OutcomeCountsType,
      description: 'Counts over the last hour (counted in 5-minute buckets: the window reaches back 60 to 65 minutes).',
      resolve: (s) => s.lastHour,
    }),
    lastDay: t.field({
      nullable: false,
      type: OutcomeCountsType,
      description: 'Counts over the last 24 hours (24 h to 24 h 5 min).',
      resolve: (s) => s.lastDay,
    }),
    series: t.field({
      type: [SeriesPointType],
      description:
        'Records per interval by outcome over the last 24 hours, oldest first, every interval present (zeros included): what a chart of this path draws.',
      args: {
        intervalMinutes: t.arg.int({
          defaultValue: 60,
          description: `Interval length in minutes: a multiple of 5 that divides a day (${seriesIntervalMinutes.min} to ${seriesIntervalMinutes.max}; default 60).`,
        }),
      },
      // At most 289 points of 5 fields each.
      complexity: 50,
      resolve: (s, { intervalMinutes }, ctx) =>
        readIngestSeries({
          db: ctx.services.db,
          recorder: ctx.services.recorder,
          tenantId: tenantOf(ctx).id,
          source: s.source,
          now: ctx.now,
          intervalMinutes: intervalMinutes ?? 60,
        }),
    }),
    byKind: t.field({
      nullable: false,
      type: [KindCountsType],
      description: 'The same counts per record kind; only kinds with requests in the last day, in posting order.',
      resolve: (s) => s.byKind,
    }),
    dryRun: t.field({
      nullable: false,
      type: DryRunCountsType,
      description: "This path's dry runs, counted apart: an integrator's rehearsals never look like production traffic.",
      resolve: (s) => s.dryRun,
    }),
  }),
});

const UnmappedStatusType = builder.objectRef<UnmappedStatus>('UnmappedStatus').implement({
  description: 'A TMS load status with no phase mapping, and how many stored loads carry it.',
  fields: (t) => ({
    status: t.exposeString('status', {
      nullable: false,
      description: 'The status as the TMS sends it (trimmed; spellings differing only in case are one status).',
    }),
    loadCount: t.exposeInt('loadCount', { nullable: false, description: 'Stored loads of the tenant currently in this status (phase UNMAPPED).' }),
  }),
});

const RejectionType = builder.objectRef<RecentRejection>('Rejection').implement({
  description: 'One rejected ingestion request, as kept in the recent-rejections sample.',
  fields: (t) => ({
    code: t.exposeString('code', { nullable: false, description: 'The error code answered (`validation_failed`, `parent_not_found`, …).' }),
    message: t.exposeString('message', { nullable: false, description: 'The error message answered.' }),
    field: t.exposeString('field', { nullable: true, description: 'The first offending field, when the error names one.' }),
    details: t.field({
      type: [FieldIssueRef],
      nullable: true,
      description: 'Every offending field of the error answered, as REST `details` names them (snake_case); null when the error named no field.',
      complexity: { field: 1, multiplier: 1 },
      resolve: (r) => r.details,
    }),
    permalink: t.exposeString('permalink', { nullable: true, description: "The record's own permalink, when the body carried one." }),
    body: t.field({
      type: 'JSON',
      nullable: true,
      description: `The rejected body: the record (a GraphQL input as the REST body it stands for), or the whole request when it was rejected before its records were read; null when no body was read (bad JSON, wrong content type). NUL characters and lone surrogates are kept as U+FFFD. A body over ${maxRejectedBodyChars.toLocaleString('en-US')} characters of JSON text is kept as a JSON string holding its first ${maxRejectedBodyChars.toLocaleString('en-US')} characters (\`bodyTruncated\`).`,
      resolve: (r) => r.body ?? null,
    }),
    bodyTruncated: t.boolean({
      nullable: false,
      description: "`body` is a JSON string holding the start of a larger body's JSON text.",
      resolve: (r) => r.bodyTruncated,
    }),
    source: t.field({ nullable: false, type: IngestSourceEnum, description: 'The ingestion path of the request.', resolve: (r) => r.source }),
    kind: t.field({ nullable: false, type: IngestRecordKindEnum, description: 'The record kind of the request.', resolve: (r) => r.kind }),
    at: t.field({ nullable: false, type: 'DateTime', description: 'When the request was received.', resolve: (r) => r.at }),
  }),
});

export const IngestHealthType = builder.objectRef<IngestHealth>('IngestHealth').implement({
  description: "How the tenant's TMS feed is arriving: per ingestion path, its state and outcome counts; statuses lacking a phase mapping; recent rejections.",
  fields: (t) => ({
    sources: t.field({
      nullable: false,
      type: [IngestSourceHealthType],
      description: 'One entry per ingestion path, always all three: PULL, WEBHOOK, UNSPECIFIED.',
      resolve: (h) => h.sources,
    }),
    unmappedStatuses: t.stringList({
      nullable: false,
      description: `TMS statuses of stored loads that have no phase mapping (most frequent first, at most ${unmappedStatusLimit}); map them with \`setStatusMapping\`.`,
      resolve: (h) => h.unmappedStatusCounts.map((u) => u.status),
    }),
    unmappedStatusCounts: t.field({
      nullable: false,
      type: [UnmappedStatusType],
      description: 'The same statuses as `unmappedStatuses`, each with the number of loads carrying it.',
      resolve: (h) => h.unmappedStatusCounts,
    }),
    recentRejections: t.field({
      nullable: false,
      type: [RejectionType],
      description: `The tenant's most recent rejected requests, newest first (at most ${rejectionSampleSize} are kept).`,
      resolve: (h) => h.recentRejections,
    }),
  }),
});

builder.queryField('ingestHealth', (t) =>
  t.field({
    nullable: false,
    type: IngestHealthType,
    description: 'Ingestion health of the tenant: is its TMS feed arriving, and what is being rejected?',
    resolve: (_root, _args, ctx) =>
      readIngestHealth({
        db: ctx.services.db,
        recorder: ctx.services.recorder,
        tenantId: tenantOf(ctx).id,
        now: ctx.now,
        degradedRejectionRate: ctx.services.config.ingest.degradedRejectionRate,
      }),
  }),
);
