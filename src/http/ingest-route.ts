/**
 * The REST adapters of a kind's ingestion use case, single and bulk: parse `sync_run_time` → call the
 * use case → answer 200 with the outcome(s) (a single record's contract error is its status code; a
 * bulk record's is its result). A bad `sync_run_time` is reported together with the body's problems
 * (one 400 lists every field).
 */
import { validationFailed, type FieldIssue } from '../errors.js';
import { maxBatchRecords, maxBulkBodyBytes, type Ingestion, type RecordResult } from '../domain/shared/ingest.js';
import type { IngestRequest } from '../domain/shared/ingest-request.js';
import { bulkRestPath, restPath } from '../domain/shared/record.js';
import { DryRunQuery } from '../domain/shared/dry-run.js';
import { BulkResponse, bulkRequestOf, SyncRunTimeQuery, UpsertResponse } from './schemas.js';
import { defineRoute, type RouteContext, type RouteResult } from './route.js';

function parseSyncRunTime(url: URL): { value: Date | null; issue?: FieldIssue } {
  const raw = url.searchParams.get('sync_run_time');
  if (raw === null) return { value: null };
  const parsed = SyncRunTimeQuery.shape.sync_run_time.safeParse(raw);
  if (!parsed.success || !parsed.data) {
    return { value: null, issue: { field: 'sync_run_time', issue: 'must be an ISO 8601 date-time with a zone, e.g. 2026-05-01T14:00:00Z' } };
  }
  return { value: new Date(parsed.data) };
}

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

/** `"dry_run": true` on a dry run's 200 answer; nothing on a real one's (its answer is unchanged). */
const dryRunMark = (ingest: IngestRequest) => (ingest.scope.dryRun ? { dry_run: true as const } : {});

/**
 * The answer of a single-record route: 200 with the outcome, or the record's contract error with its
 * status (a dry run's error answers exactly as a real one's).
 */
const singleAnswer = (ingest: IngestRequest, result: RecordResult): RouteResult =>
  result.ok
    ? { body: { ...resultBody(result), ...dryRunMark(ingest) } }
    : { status: result.error.status, body: resultBody(result), headers: result.error.headers };

/** The query parameters of a kind's ingestion routes: `dry_run`, and `sync_run_time` where the kind honours it. */
const queryOf = (ingestion: Ingestion) => (ingestion.honoursSyncRunTime ? SyncRunTimeQuery.extend(DryRunQuery.shape) : DryRunQuery);

/** The ingestion edge of a request on an ingestion route (the pipeline opens it after authentication). */
const ingestOf = (ctx: RouteContext): IngestRequest => {
  if (!ctx.ingest) throw new Error('an ingestion route ran without its ingestion edge');
  return ctx.ingest;
};

/** The `sync_run_time` options of a request (a bad value is a request issue, reported with each record's). */
function syncOptions(ingestion: Ingestion, url: URL) {
  const sync = ingestion.honoursSyncRunTime ? parseSyncRunTime(url) : { value: null };
  return { syncRunTime: sync.value, requestIssues: sync.issue ? [sync.issue] : [] };
}

/** The answer to a record example posted once: processed (created, or deleted). */
function processedExample(ingestion: Ingestion, example: unknown) {
  const { spec } = ingestion;
  const value = (example as Record<string, unknown> | undefined)?.[spec.permalinkField];
  const permalink = typeof value === 'string' ? value : '';
  const done = spec.rest.action === 'delete' ? 'deleted' : 'processed (created)';
  // A phased kind's answer names the phase of the example's status in a tenant that has not mapped it yet.
  const status = spec.phase ? (example as Record<string, unknown> | undefined)?.[spec.phase.from] : undefined;
  const phase = spec.phase ? { phase: typeof status === 'string' && status.trim() ? 'UNMAPPED' : spec.phase.withoutStatus } : {};
  return { status: 'processed', message: `${spec.label} ${permalink} ${done}.`, permalink, unknown_fields: [], suggestions: [], ...phase };
}

/** `POST /api/v1/<collection>/<action>` of one record kind. */
export function ingestRoute(ingestion: Ingestion) {
  const { spec } = ingestion;
  return defineRoute({
    method: 'POST',
    path: restPath(spec),
    auth: 'tenant',
    ingestion,
    tooLargeAdvice: `send one record per request, or up to ${maxBatchRecords} records (${maxBulkBodyBytes} bytes) in one request to POST ${bulkRestPath(spec)}`,
    arrayAdvice: `this route takes one record as a JSON object: send several records to POST ${bulkRestPath(spec)} as {"records": [...]}`,
    rateLimit: { records: () => 1 },
    doc: {
      summary: spec.rest.summary,
      description: spec.rest.description,
      tags: [spec.label],
      requestBody: spec.body,
      query: queryOf(ingestion),
      response: UpsertResponse,
      responseExample: (example) => processedExample(ingestion, example),
      errors: spec.parents.length ? ['parent_not_found', 'tenant_mismatch'] : ['tenant_mismatch'],
      ingestSource: true,
    },
    async handle(ctx) {
      const ingest = ingestOf(ctx);
      const [result] = await ingest.ingest([ctx.body], syncOptions(ingestion, ctx.url));
      return singleAnswer(ingest, result!);
    },
  });
}

/** The envelope's records, or the 400 that rejects the request whole. */
function recordsOf(body: Record<string, unknown>): unknown[] {
  const { records } = body;
  if (!Array.isArray(records)) {
    throw validationFailed([{ field: 'records', issue: 'must be an array of records: send {"records": [...]}' }]);
  }
  if (records.length < 1 || records.length > maxBatchRecords) {
    throw validationFailed([{ field: 'records', issue: `must hold 1 to ${maxBatchRecords} records (got ${records.length})` }]);
  }
  return records;
}

/**
 * `POST /api/v1/<collection>/bulk_<action>` of one record kind: `{ "records": [...] }`, answered 200
 * with one result per record in order; a malformed envelope or a bad `sync_run_time` is rejected
 * whole (400/413).
 */
export function bulkIngestRoute(ingestion: Ingestion) {
  const { spec } = ingestion;
  const name = spec.body.meta()?.id as string;
  return defineRoute({
    method: 'POST',
    path: bulkRestPath(spec),
    auth: 'tenant',
    ingestion,
    maxBodyBytes: maxBulkBodyBytes,
    tooLargeAdvice: `split the records over several requests (at most ${maxBatchRecords} records each)`,
    arrayAdvice: 'wrap the records as {"records": [...]}',
    // A bulk request costs its record count (a malformed envelope, rejected whole, costs one).
    rateLimit: {
      records: (body) => (Array.isArray(body.records) ? Math.min(Math.max(body.records.length, 1), maxBatchRecords) : 1),
    },
    doc: {
      summary: `${spec.rest.summary.replace(/^(\w+) an? /, '$1 ')}s in bulk`,
      description: `Up to ${maxBatchRecords} records (at most 5 MiB) in one request, each with the same rules and outcomes as \`${restPath(spec)}\`, in order. One bad record does not reject the others.`,
      tags: [spec.label],
      requestBody: bulkRequestOf(spec.body, `${name}Bulk`, maxBatchRecords),
      query: queryOf(ingestion),
      response: BulkResponse,
      responseExample: (example) => ({
        results: ((example as { records?: unknown[] } | undefined)?.records ?? []).map((record) => processedExample(ingestion, record)),
      }),
      errors: [],
      ingestSource: true,
    },
    async handle(ctx) {
      const ingest = ingestOf(ctx);
      const { syncRunTime, requestIssues } = syncOptions(ingestion, ctx.url);
      // A malformed envelope or a bad sync_run_time rejects the request whole (reported as one
      // rejection): the request is wrong, not its records.
      const records = ingest.admit(() => {
        if (requestIssues.length) throw validationFailed(requestIssues);
        return recordsOf(ctx.body);
      }, ctx.body);
      const results = await ingest.ingest(records, { syncRunTime });
      return { body: { ...dryRunMark(ingest), results: results.map(resultBody) } };
    },
  });
}
