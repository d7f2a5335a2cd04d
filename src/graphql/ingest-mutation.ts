/**
 * The GraphQL adapters of the ingestion operations (`domain/ingestion/operation.ts`), two per operation:
 * one record (`upsertLoad`, `createLoadUpdate`, `deleteLoad`, …) and a batch (`bulkUpsertLoads`, …),
 * the twins of http/ingest-route.ts's single and bulk routes. An input (derived from the operation's
 * zod body) is turned into the REST body it stands for and handed to the operation's request, which
 * validates, writes and reports to ingest accounting exactly as for REST; its typed answer becomes
 * the result, its errors name the input's (camelCase) fields.
 */
import { ingestOperations } from '../domain/ingestion/operations.js';
import type { RecordResult } from '../domain/ingestion/ingest.js';
import { openIngestRequest, type BulkResult } from '../domain/ingestion/ingest-request.js';
import { batchCost, maxBatchRecords, type IngestOperation } from '../domain/ingestion/operation.js';
import type { UpsertOutcome } from '../domain/ingestion/outcome.js';
import { suggestionSentence, type FieldSuggestion } from '../domain/declaration/hints.js';
import type { AppError, FieldIssue } from '../errors.js';
import type { Phase } from '../db/generated/prisma/enums.js';
import { builder } from './builder.js';
import { FieldIssueRef } from './field-issue.js';
import { PhaseEnum } from './enums.js';
import { writableTenantOf, type RequestContext } from './context.js';
import { zodInput } from './zod-input.js';

export const UpsertStatusEnum = builder.enumType('UpsertStatus', {
  description: 'Record-level outcome of an upsert, create or delete.',
  values: {
    PROCESSED: {
      value: 'processed',
      description: 'The record was created or updated; for a delete: deleted, already deleted or not found (the message says which).',
    },
    SKIPPED: { value: 'skipped', description: 'The stored record changed after `syncRunTime`; it was kept unchanged (and not deleted).' },
    DUPLICATE: { value: 'duplicate', description: 'The load update was already received; nothing changed.' },
  } as const,
});

const FieldSuggestionRef = builder.objectRef<FieldSuggestion>('FieldSuggestion').implement({
  description: "An unknown field of the input's `extra` that looks like an input field, with that field.",
  fields: (t) => ({
    field: t.exposeString('field', { description: 'The `extra` key as sent (one of `unknownFields`).' }),
    didYouMean: t.exposeString('didYouMean', { description: 'The input field it most likely means (nearest by spelling or case).' }),
  }),
});

/** A mutation's outcome with whether it was a dry run. */
type UpsertAnswer = UpsertOutcome & { dryRun: boolean };

const dryRunResultDescription = 'True when the mutation was a dry run (`dryRun: true`): the outcome is what a real request would get, and nothing was written.';

const phaseDescription =
  "Loads and load updates, when written (PROCESSED): the phase the record's status maps to through the tenant's status mapping " +
  '(UNMAPPED when it has none); null for other kinds and outcomes, and for a load update without a status.';

const UpsertResult = builder.objectRef<UpsertAnswer>('UpsertResult').implement({
  description: 'What an ingestion mutation did, exactly as the REST route answers it.',
  fields: (t) => ({
    status: t.field({ type: UpsertStatusEnum, description: 'Outcome of the write.', resolve: (o) => o.status }),
    message: t.exposeString('message', { description: 'Human-readable summary of the outcome.' }),
    permalink: t.exposeString('permalink', { description: "The record's permalink." }),
    unknownFields: t.exposeStringList('unknownFields', {
      description: "Fields of the input's `extra` the contract does not name (kept verbatim in `extra`); empty when none.",
    }),
    suggestions: t.field({
      type: [FieldSuggestionRef],
      description:
        'The `unknownFields` that look like an input field (`bol_numbr` for `bolNumber`), with that field; also named in `message`. Empty when none.',
      complexity: { field: 1, multiplier: 1 },
      resolve: (o) => o.suggestions,
    }),
    phase: t.field({ type: PhaseEnum, nullable: true, description: phaseDescription, resolve: (o) => (o.phase ?? null) as Phase | null }),
    dryRun: t.exposeBoolean('dryRun', { description: dryRunResultDescription }),
  }),
});

/** One record of a bulk mutation: its result, as the operation answers it, with whether it was a dry run. */
type BulkRecord = BulkResult & { dryRun: boolean };

/** A record's error as data (an Error instance returned by a resolver would be raised by graphql-js). */
interface RecordError {
  code: string;
  message: string;
  details?: FieldIssue[];
}

const BulkRecordError = builder.objectRef<RecordError>('BulkRecordError').implement({
  description: 'Why one record of a bulk mutation was rejected: the error the single mutation would have raised, as REST\'s `{"error": …}` result.',
  fields: (t) => ({
    code: t.exposeString('code', { description: 'The contract error code (`validation_failed`, `parent_not_found`, `tenant_mismatch`, …).' }),
    message: t.exposeString('message', { description: 'Human-readable reason.' }),
    details: t.field({
      type: [FieldIssueRef],
      nullable: true,
      description: 'Every offending field, when the error names fields.',
      // A handful of issues at most (one per input field): not a page to pay for ten times.
      complexity: { field: 1, multiplier: 1 },
      resolve: (error) => error.details ?? null,
    }),
  }),
});

const BulkRecordResult = builder.objectRef<BulkRecord>('BulkRecordResult').implement({
  description: "What a bulk mutation did with one of its inputs, as REST's bulk result: an outcome (`status`) or an `error`, never both.",
  fields: (t) => ({
    index: t.exposeInt('index', { description: 'Position of the record in `inputs` (from 0); results come in input order.' }),
    status: t.field({
      type: UpsertStatusEnum,
      nullable: true,
      description: 'Outcome of the write; null when the record was rejected (see `error`).',
      resolve: ({ result }) => (result.ok ? result.outcome.status : null),
    }),
    message: t.string({
      nullable: true,
      description: 'Human-readable summary of the outcome; null when the record was rejected (the reason is `error.message`).',
      resolve: ({ result }) => (result.ok ? result.outcome.message : null),
    }),
    permalink: t.string({
      nullable: true,
      description: "The record's permalink as sent, rejected records included, so a failing record is found without counting (null only when it sent none).",
      resolve: ({ permalink }) => permalink ?? null,
    }),
    unknownFields: t.stringList({
      description: "Fields of the input's `extra` the contract does not name (kept verbatim in `extra`); empty when none or when the record was rejected.",
      resolve: ({ result }) => (result.ok ? result.outcome.unknownFields : []),
    }),
    suggestions: t.field({
      type: [FieldSuggestionRef],
      description: 'The `unknownFields` that look like an input field, with that field; empty when none or when the record was rejected.',
      complexity: { field: 1, multiplier: 1 },
      resolve: ({ result }) => (result.ok ? result.outcome.suggestions : []),
    }),
    error: t.field({
      type: BulkRecordError,
      nullable: true,
      description: 'Why the record was rejected (nothing of it was written); null when it was written, skipped or a duplicate.',
      resolve: ({ result }) => (result.ok ? null : { code: result.error.code, message: result.error.message, details: result.error.details }),
    }),
    phase: t.field({
      type: PhaseEnum,
      nullable: true,
      description: phaseDescription,
      resolve: ({ result }) => (result.ok ? ((result.outcome.phase ?? null) as Phase | null) : null),
    }),
    dryRun: t.exposeBoolean('dryRun', { description: dryRunResultDescription }),
  }),
});

const syncRunTimeDescriptions = {
  honoured:
    'When the TMS read this data (ISO 8601 UTC), as REST `sync_run_time`: a stored record changed after it is kept and the answer is SKIPPED. More than 5 minutes ahead of the service clock: the mutation is refused (`validation_failed`).',
  ignored: 'Accepted for symmetry with the other upserts and ignored, as REST does for carriers (they have no sync-run guard).',
} as const;

const dryRunArgDescription =
  'True rehearses the mutation, as REST `?dry_run=true`: validated and evaluated against the stored data exactly as a real one ' +
  '(parents, `syncRunTime`, duplicates, the phase a status maps to) and answered the same way with `dryRun: true`, but nothing is written, ' +
  'no change event is recorded and ingest health counts it apart. Rate limits charge it like a real mutation. False or left out: a real write.';

/** A record's result as GraphQL answers it: its error and its suggestions name the input's (camelCase) fields. */
function inGraphql(input: ReturnType<typeof zodInput>, result: RecordResult): RecordResult {
  if (!result.ok) return { ok: false, error: input.renameFields(result.error) as AppError };
  const { suggestions, message } = result.outcome;
  if (!suggestions.length) return result;
  // Suggestions name the input's fields (camelCase), in the list and in the message.
  const renamed = suggestions.map((s) => ({ ...s, didYouMean: input.inputField(s.didYouMean) }));
  const sentence = suggestionSentence(suggestions);
  const text = message.endsWith(sentence) ? message.slice(0, -sentence.length) + suggestionSentence(renamed, (field) => field) : message;
  return { ok: true, outcome: { ...result.outcome, suggestions: renamed, message: text } };
}

/** The single and bulk mutations of one operation. */
function ingestMutations(operation: IngestOperation) {
  const { spec, graphql, rest } = operation;
  const input = zodInput(graphql.input, operation.body, {
    description: `A ${spec.label.toLowerCase()}, as the REST \`${operation.body.meta()?.id}\` body.`,
    enumNames: spec.graphql.enumNames,
    extraDescription: graphql.extraDescription,
  });
  const args = (t: Parameters<Parameters<typeof builder.mutationField>[1]>[0]) => ({
    ...(operation.syncRunTime === 'absent' ? {} : { syncRunTime: t.arg({ type: 'DateTime', description: syncRunTimeDescriptions[operation.syncRunTime] }) }),
    dryRun: t.arg.boolean({ description: dryRunArgDescription }),
  });
  /**
   * The mutation's request: the writing tenant, `Service-Ingest-Source` read as REST reads it, the `dryRun` argument;
   * its `syncRunTime` kept in the payload history as REST's query string would carry it.
   */
  const open = (ctx: RequestContext, dryRun: boolean | null | undefined, syncRunTime: Date | null | undefined, body?: unknown) =>
    openIngestRequest(operation, {
      services: ctx.services,
      tenant: writableTenantOf(ctx),
      requestId: ctx.requestId,
      headers: ctx.request.headers,
      query: syncRunTime ? `sync_run_time=${syncRunTime.toISOString()}` : null,
      now: ctx.now,
      body,
      dryRun,
    });

  builder.mutationField(graphql.mutation, (t) =>
    t.field({
      type: UpsertResult,
      description: graphql.description,
      args: { input: t.arg({ type: input.type, required: true, description: "The record: the REST body's fields in camelCase." }), ...args(t) },
      resolve: async (_root, args, ctx) => {
        const record = input.toRecord(args.input);
        const syncRunTime = (args as { syncRunTime?: Date | null }).syncRunTime;
        const request = (() => {
          try {
            return open(ctx, args.dryRun, syncRunTime, {
              [spec.permalinkField]: (args.input as Record<string, unknown>)[input.inputField(spec.permalinkField)],
            });
          } catch (thrown) {
            throw input.renameFields(thrown);
          }
        })();
        const { dryRun, result } = await request.single(record, syncRunTime);
        const answer = inGraphql(input, result);
        // GraphQL answers a rejected record as the field's error.
        if (!answer.ok) throw answer.error;
        return { ...answer.outcome, dryRun };
      },
    }),
  );

  builder.mutationField(graphql.bulkMutation, (t) =>
    t.field({
      type: [BulkRecordResult],
      description: `Up to ${maxBatchRecords} records in one request, each with the same rules and outcomes as \`${graphql.mutation}\`, in order; one rejected record does not reject the others. The same service as \`POST ${rest.bulkPath}\`.`,
      args: {
        inputs: t.arg({
          type: [input.type],
          required: true,
          description: `The records (1 to ${maxBatchRecords}): REST bodies' fields in camelCase. The same permalink twice: the later one is written after the earlier one.`,
        }),
        ...args(t),
      },
      // Each record costs one, and each result's selection is paid once per record: a 1,000-record
      // batch with every result field costs about 12,000 (of 50,000); more inputs than a batch may
      // hold are priced as a full batch and refused by the operation with a clear error.
      complexity: (args) => ({ field: batchCost(args.inputs), multiplier: batchCost(args.inputs) }),
      resolve: async (_root, args, ctx) => {
        const records = (args.inputs as Record<string, unknown>[]).map((one) => input.toRecord(one));
        const syncRunTime = (args as { syncRunTime?: Date | null }).syncRunTime;
        const { dryRun, results } = await open(ctx, args.dryRun, syncRunTime).bulk(records, { syncRunTime, field: 'inputs' });
        return results.map((one): BulkRecord => ({ ...one, result: inGraphql(input, one.result), dryRun }));
      },
    }),
  );
}

for (const operation of ingestOperations) ingestMutations(operation);
