/**
 * GraphQL `dataQuality` (api-contract.md F): which recommended fields the tenant's feed leaves
 * empty, what that breaks, and which records to fix. A thin adapter over service.ts; the tenant is
 * the key's, or for the admin key the `X-Tenant` one, as for every tenant field.
 */
import { builder } from '../../graphql/builder.js';
import { tenantOf } from '../../graphql/context.js';
import { IngestSourceEnum } from '../../graphql/enums.js';
import { pageSize } from '../../graphql/page-sizes.js';
import { IngestRecordKindEnum } from '../ingest-health/graphql.js';
import { shownOnlyPrefix } from '../declaration/fields.js';
import {
  futureToleranceMs,
  legGraceMs,
  maxExamples,
  readDataQuality,
  readMissingExamples,
  type DataQuality,
  type FieldCoverage,
  type KindQuality,
  type QualityFinding,
} from './service.js';

/** The `first` argument of an example list: newest first, at most `maxExamples`. */
const firstExamples = { defaultValue: 5, description: `How many permalinks, newest first (0 to ${maxExamples}; default 5).` };

/** The window a coverage row was read for (its field's examples are read for the same one). */
type FieldOfWindow = FieldCoverage & { tenantId: string; since: Date };

const FieldCoverageType = builder.objectRef<FieldOfWindow>('FieldCoverage').implement({
  description:
    'One recommended field of a kind over the window: how many records leave it empty (`recordsMissing`, with `missingExamples`), how many accepted writes carried it (`present`, `missing`: the coverage of api-contract.md F), and what it feeds.',
  fields: (t) => ({
    field: t.exposeString('field', { nullable: false, description: 'The contract field (its REST name, as `details` and rejections name fields).' }),
    feeds: t.exposeString('feeds', {
      nullable: false,
      description: `The feature of the service that depends on the field, from its declaration (the same text as in the OpenAPI description). A field no feature reads yet says so: "${shownOnlyPrefix} …".`,
    }),
    present: t.exposeInt('present', {
      nullable: false,
      description:
        "Accepted writes of the window (processed, skipped or duplicate: a re-post counts again) that carried a non-empty value: the contract's coverage, narrowed by `source`. Records are `recordsMissing`.",
    }),
    missing: t.exposeInt('missing', {
      nullable: false,
      description: 'Accepted writes of the window that left it absent, null or blank (narrowed by `source`).',
    }),
    ratio: t.float({
      nullable: true,
      description: '`present / (present + missing)`, over writes; null when both are 0.',
      resolve: (f) => f.ratio,
    }),
    recordsMissing: t.exposeInt('recordsMissing', {
      nullable: false,
      description:
        "Of the kind's `records` (each record written in the window once, by the values its latest write stored), those whose stored value is absent, null or blank: how many `missingExamples` would list. Every source.",
    }),
    missingExamples: t.stringList({
      nullable: false,
      description:
        "Permalinks of the tenant's stored records of this kind written in the window that lack the field (null or blank), newest first: the records to fix (read from the stored records, whatever their source; `recordsMissing` counts them).",
      args: { first: t.arg.int(firstExamples) },
      ...pageSize(maxExamples),
      complexity: (args) => ({ field: 5, multiplier: Math.max(1, args.first ?? 5) }),
      resolve: (f, { first }, ctx) =>
        f.recordsMissing === 0 || first === 0
          ? []
          : readMissingExamples(ctx.services.db, { tenantId: f.tenantId, kind: f.kind, field: f.field, since: f.since, first: first ?? 5 }),
    }),
  }),
});

type KindOfWindow = KindQuality & { tenantId: string; since: Date };

const KindQualityType = builder.objectRef<KindOfWindow>('KindQuality').implement({
  description: 'The recommended fields of one record kind over the window.',
  fields: (t) => ({
    kind: t.field({ nullable: false, type: IngestRecordKindEnum, description: 'The record kind.', resolve: (k) => k.kind }),
    records: t.exposeInt('records', {
      nullable: false,
      description:
        "The tenant's live records of the kind written in the window, each counted once (by its latest write: a skipped re-post is not a write of the record), whatever source wrote them.",
    }),
    writes: t.exposeInt('writes', {
      nullable: false,
      description:
        "Accepted writes of the kind counted in the window (processed, skipped or duplicate; dry runs and rejections aside), narrowed by `source`: what each field's `present + missing` adds up to.",
    }),
    fields: t.field({
      nullable: false,
      type: [FieldCoverageType],
      description: "Every recommended field of the kind, in its declaration's order.",
      resolve: (k) => k.fields.map((f) => ({ ...f, tenantId: k.tenantId, since: k.since })),
    }),
  }),
});

const QualityFindingType = builder.objectRef<QualityFinding>('QualityFinding').implement({
  description: 'A check across stored records that no single request can fail, with the records to fix.',
  fields: (t) => ({
    code: t.exposeString('code', {
      nullable: false,
      description: `Stable code (never renamed): \`load_without_legs\` (a load active in the window without a live leg ${legGraceMs / 60_000} minutes after its creation), \`leg_sequence_gap\` (live legs whose sequences are not 1..n), \`stop_without_appointment\` (neither appointment time), \`update_without_position\` (neither coordinates nor a city), \`update_in_future\` (\`occurred_at\` more than ${futureToleranceMs / 60_000} minutes after receipt), \`unmapped_status\` (a load status without a phase mapping: all live loads, as ingest health reports them).`,
    }),
    kind: t.field({ nullable: false, type: IngestRecordKindEnum, description: 'The kind of the records the examples name.', resolve: (f) => f.kind }),
    count: t.exposeInt('count', { nullable: false, description: 'Records found (0 when the check finds nothing).' }),
    message: t.exposeString('message', { nullable: false, description: 'What was found and what it breaks.' }),
    examples: t.stringList({
      nullable: false,
      description: 'Permalinks of the records found, newest first.',
      args: { first: t.arg.int(firstExamples) },
      ...pageSize(maxExamples),
      resolve: (f, { first }) => f.examples.slice(0, first ?? 5),
    }),
  }),
});

const DataQualityType = builder.objectRef<DataQuality>('DataQuality').implement({
  description: "Which recommended fields the tenant's feed leaves empty, what that breaks, and which records to fix (api-contract.md F).",
  fields: (t) => ({
    since: t.field({
      nullable: false,
      type: 'DateTime',
      description: 'Start of the window (coverage is counted per hour: from the hour holding it).',
      resolve: (d) => d.since,
    }),
    kinds: t.field({
      nullable: false,
      type: [KindQualityType],
      description: 'Every record kind with recommended fields, in posting order.',
      resolve: (d) => d.kinds.map((k) => ({ ...k, tenantId: d.tenantId, since: d.since })),
    }),
    findings: t.field({
      nullable: false,
      type: [QualityFindingType],
      description: 'Every check, in a fixed order, each with its count (0 included).',
      resolve: (d) => d.findings,
    }),
  }),
});

builder.queryField('dataQuality', (t) =>
  t.field({
    nullable: false,
    type: DataQualityType,
    description:
      'Data quality of the tenant over a window: per kind, the records written and how many leave each recommended field empty (and what it feeds), the accepted writes that carried it, and the findings across stored records, each with the permalinks to fix.',
    args: {
      since: t.arg({ type: 'DateTime', description: 'Start of the window; default 24 hours ago.' }),
      source: t.arg({
        type: IngestSourceEnum,
        description:
          "Only this ingest source's writes in the coverage (`writes`, `present`, `missing`); records, `recordsMissing`, examples and findings read the stored records: every source.",
      }),
    },
    complexity: 100,
    resolve: async (_root, { since, source }, ctx) => {
      const tenantId = tenantOf(ctx).id;
      // The tenant's pass first: it adds the log entries of writes already answered into field coverage.
      await ctx.services.sequencer.sequence(tenantId);
      return readDataQuality({ db: ctx.services.db, tenantId, now: ctx.now, since: since ?? null, source: source ?? null });
    },
  }),
);
