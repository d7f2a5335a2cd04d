/**
 * The REST adapters of an ingestion operation (`domain/ingestion/operation.ts`), single and bulk: hand
 * the body and the `sync_run_time` query value to the opened request, then write its typed answer as
 * JSON (a single record's contract error is its status code; a bulk record's is its result, with the
 * record's `index` and `permalink`). Every rule of the request is the operation's.
 */
import type { RecordResult } from '../domain/ingestion/ingest.js';
import type { BulkResult, IngestRequest } from '../domain/ingestion/ingest-request.js';
import { batchCost, maxBatchRecords, maxBulkBodyBytes, type IngestOperation } from '../domain/ingestion/operation.js';
import { DryRunQuery } from '../domain/ingestion/dry-run.js';
import { BulkResponse, bulkRequestOf, IgnoredSyncRunTimeQuery, SyncRunTimeQuery, UpsertResponse } from './schemas.js';
import { defineRoute, type RouteContext } from './route.js';

/** The REST answer of a record: its outcome (with `unknown_fields`, and `phase` for a written load or load update) or its error body. */
const resultBody = (result: RecordResult) =>
  result.ok
    ? {
        status: result.outcome.status,
        message: result.outcome.message,
        permalink: result.outcome.permalink,
        unknown_fields: result.outcome.unknownFields,
        suggestions: result.outcome.suggestions.map((s) => ({ field: s.field, did_you_mean: s.didYouMean })),
        ...(result.outcome.phase === undefined ? {} : { phase: result.outcome.phase }),
      }
    : result.error.toBody();

/** A bulk result: the record's `index`, then its outcome, or its `permalink` (when it sent one) and its error. */
const bulkResultBody = ({ index, permalink, result }: BulkResult) =>
  result.ok ? { index, ...resultBody(result) } : { index, ...(permalink === undefined ? {} : { permalink }), ...resultBody(result) };

/** `"dry_run": true` on a dry run's 200 answer; nothing on a real one's (its answer is unchanged). */
const dryRunMark = (dryRun: boolean) => (dryRun ? { dry_run: true as const } : {});

/**
 * The query parameters of an operation's routes (any other is refused): `sync_run_time`, honoured or
 * (carriers, load updates) accepted and ignored, and `dry_run`.
 */
const queryOf = (operation: IngestOperation) => (operation.syncRunTime === 'honoured' ? SyncRunTimeQuery : IgnoredSyncRunTimeQuery).extend(DryRunQuery.shape);

/** The ingestion request of an ingestion route (the pipeline opens it after authentication). */
const ingestOf = (ctx: RouteContext): IngestRequest => {
  if (!ctx.ingest) throw new Error('an ingestion route ran without its ingestion edge');
  return ctx.ingest;
};

/** The answer to a record example posted once: processed (created, or deleted). */
function processedExample({ spec, action }: IngestOperation, example: unknown) {
  const value = (example as Record<string, unknown> | undefined)?.[spec.permalinkField];
  const permalink = typeof value === 'string' ? value : '';
  const done = action === 'delete' ? 'deleted' : 'processed (created)';
  // A phased kind's written record names the phase of the example's status in a tenant that has not mapped it yet.
  const status = spec.phase && action !== 'delete' ? (example as Record<string, unknown> | undefined)?.[spec.phase.from] : undefined;
  const phase = spec.phase && action !== 'delete' ? { phase: typeof status === 'string' && status.trim() ? 'UNMAPPED' : spec.phase.withoutStatus } : {};
  return { status: 'processed', message: `${spec.label} ${permalink} ${done}.`, permalink, unknown_fields: [], suggestions: [], ...phase };
}

/** What an operation's two routes share: a tenant's POST, its operation, its query parameters, and its documentation's tag and body. */
const ingestionRouteOf = (operation: IngestOperation, path: string) => ({
  method: 'POST' as const,
  path,
  auth: 'tenant' as const,
  ingestion: operation,
  ingestSource: true,
  tags: [operation.spec.label],
  query: queryOf(operation),
});

/** `POST /api/v1/<collection>/<action>`: one record of an operation. */
export function ingestRoute(operation: IngestOperation) {
  const { spec, rest } = operation;
  const { ingestSource, tags, ...route } = ingestionRouteOf(operation, rest.path);
  return defineRoute({
    ...route,
    tooLargeAdvice: `send one record per request, or up to ${maxBatchRecords} records (${maxBulkBodyBytes} bytes) in one request to POST ${rest.bulkPath}`,
    arrayAdvice: `this route takes one record as a JSON object: send several records to POST ${rest.bulkPath} as {"records": [...]}`,
    rateLimit: { records: () => 1 },
    doc: {
      summary: rest.summary,
      description: rest.description,
      tags,
      requestBody: operation.body,
      response: UpsertResponse,
      responseExample: (example) => processedExample(operation, example),
      errors: spec.parents.length && operation.action !== 'delete' ? ['parent_not_found', 'tenant_mismatch'] : ['tenant_mismatch'],
      ingestSource,
    },
    async handle(ctx) {
      const { dryRun, result } = await ingestOf(ctx).single(ctx.body, ctx.url.searchParams.get('sync_run_time'));
      return result.ok
        ? { body: { ...resultBody(result), ...dryRunMark(dryRun) } }
        : { status: result.error.status, body: resultBody(result), headers: result.error.headers };
    },
  });
}

/**
 * `POST /api/v1/<collection>/bulk_<action>`: `{ "records": [...] }`, answered 200 with one result per
 * record in order; a malformed envelope or a bad `sync_run_time` is rejected whole (400/413).
 */
export function bulkIngestRoute(operation: IngestOperation) {
  const { rest } = operation;
  const { ingestSource, tags, ...route } = ingestionRouteOf(operation, rest.bulkPath);
  return defineRoute({
    ...route,
    maxBodyBytes: maxBulkBodyBytes,
    tooLargeAdvice: `split the records over several requests (at most ${maxBatchRecords} records each)`,
    arrayAdvice: 'wrap the records as {"records": [...]}',
    // A bulk request costs its record count (a malformed envelope, rejected whole, costs one).
    rateLimit: { records: (body) => batchCost(body.records) },
    doc: {
      summary: `${rest.summary.replace(/^(\w+) an? /, '$1 ')}s in bulk`,
      description: `Up to ${maxBatchRecords} records (at most 5 MiB) in one request, each with the same rules and outcomes as \`${rest.path}\`, in order. One bad record does not reject the others.`,
      tags,
      requestBody: bulkRequestOf(operation.body, `${operation.body.meta()?.id as string}Bulk`, maxBatchRecords),
      response: BulkResponse,
      responseExample: (example) => ({
        results: ((example as { records?: unknown[] } | undefined)?.records ?? []).map((record, index) => ({ index, ...processedExample(operation, record) })),
      }),
      errors: [],
      ingestSource,
    },
    async handle(ctx) {
      const syncRunTime = ctx.url.searchParams.get('sync_run_time');
      const { dryRun, results } = await ingestOf(ctx).bulk(ctx.body.records, { syncRunTime, field: 'records', envelope: ctx.body });
      return { body: { ...dryRunMark(dryRun), results: results.map(bulkResultBody) } };
    },
  });
}
