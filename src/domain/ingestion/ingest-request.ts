/**
 * One ingestion request of an operation (a REST single or bulk route, a GraphQL single or bulk
 * mutation), opened once with the writing tenant's scope, the request's `Service-Ingest-Source` and
 * whether it is a dry run. It answers in the operation's shape: a single record's result, or a
 * batch's results in order with each record's `index` and `permalink`; a request rejected before its
 * records are read (its headers, body, envelope, `sync_run_time`) is reported as one rejection.
 * A transport only maps these typed answers to its own (REST JSON, GraphQL objects and errors).
 */
import { toAppError, validationFailed, type AppError } from '../../errors.js';
import { ingestSourceOf } from '../ingest-health/report.js';
import { dryRunOf } from './dry-run.js';
import { permalinkOf, type IngestScope, type RecordResult } from './ingest.js';
import { batchOf, type IngestOperation, type SyncRunTimeInput } from './operation.js';
import type { TenantRef } from '../declaration/tenant-ref.js';

/** A single-record request's answer. */
export interface SingleAnswer {
  dryRun: boolean;
  result: RecordResult;
}

/** One record of a batch: its 0-based place in the batch, its permalink when it sent one as a string, and what happened to it. */
export interface BulkResult {
  index: number;
  permalink: string | undefined;
  result: RecordResult;
}

/** A batch's answer: one result per record, in request order. */
export interface BulkAnswer {
  dryRun: boolean;
  results: BulkResult[];
}

export interface IngestRequest {
  readonly operation: IngestOperation;
  readonly scope: IngestScope;
  /**
   * Reports the request as rejected whole (its content type, size, JSON, rate limit…): one
   * rejection, with the record's permalink when `body` has one. Returns the contract error.
   */
  reject(thrown: unknown, body?: unknown): AppError;
  /** One record, with the request's `sync_run_time`: a bad one is reported with the record's own problems (one 400). */
  single(record: unknown, syncRunTime?: SyncRunTimeInput): Promise<SingleAnswer>;
  /**
   * A batch: 1 to 1,000 records (`field` names them: REST `records`, GraphQL `inputs`). A bad batch or
   * `sync_run_time` rejects the request whole (reported with `envelope`, and thrown).
   */
  bulk(records: unknown, options: { syncRunTime?: SyncRunTimeInput; field: string; envelope?: unknown }): Promise<BulkAnswer>;
}

/** What a transport knows of a request when it opens it: the services, the authenticated tenant, its headers and the service clock. */
export interface IngestRequestOrigin {
  services: Pick<IngestScope, 'db' | 'sequencer' | 'statistics' | 'recorder'> & {
    logger: IngestScope['log'];
    config: { payloadHistory: { days: number }; ingest: { fieldCoverage: boolean } };
  };
  tenant: TenantRef;
  /** The request's id, as answered in `X-Request-Id` (kept with the payload history of its writes). */
  requestId: string;
  headers: Headers;
  /**
   * The request's parameters as received, kept with the payload history of its writes: REST's query
   * string without `?`; a GraphQL write's arguments beside its input, written the same way
   * (graphql/ingest-mutation.ts). Null or absent: none.
   */
  query?: string | null;
  now: Date;
  /**
   * Whether the request is a dry run: GraphQL's `dryRun` argument, or REST's `dry_run` query values
   * (read here: a bad value is the request's rejection, reported and thrown). Absent: a real request.
   */
  dryRun?: boolean | null | readonly string[];
  /** What the request carries so far, for the permalink of a rejection of its headers (GraphQL's input; REST has not read its body yet). */
  body?: unknown;
}

/**
 * Opens a request of `operation`: reads `dry_run`, then `Service-Ingest-Source` (a bad value is the
 * request's rejection, reported and thrown; a dry run's as a dry run's).
 */
export function openIngestRequest(
  operation: IngestOperation,
  { services, tenant, requestId, headers, query, now, body, dryRun }: IngestRequestOrigin,
): IngestRequest {
  const { ingestion, spec } = operation;
  const { db, sequencer, statistics, recorder, logger, config } = services;
  const history = config.payloadHistory.days > 0 ? { requestId, query: query || null } : null;
  const scope: IngestScope = {
    db,
    sequencer,
    statistics,
    recorder,
    tenant,
    source: 'unspecified',
    now,
    log: logger,
    history,
    fieldCoverage: config.ingest.fieldCoverage,
    dryRun: false,
  };
  const reject = (thrown: unknown, body?: unknown) => {
    const error = toAppError(thrown);
    ingestion.rejectRequest(scope, error, body);
    return error;
  };
  const admit = <T>(check: () => T, body?: unknown): T => {
    try {
      return check();
    } catch (thrown) {
      reject(thrown, body);
      throw thrown;
    }
  };
  scope.dryRun = Array.isArray(dryRun) ? admit(() => dryRunOf(dryRun as readonly string[]), body) : dryRun === true;
  scope.source = admit(() => ingestSourceOf(headers.get('service-ingest-source')), body);

  return {
    operation,
    scope,
    reject,
    async single(record, syncRunTime) {
      const sync = operation.readSyncRunTime(syncRunTime, now);
      const [result] = await ingestion.ingest(scope, [record], { syncRunTime: sync.value, requestIssues: sync.issues });
      return { dryRun: scope.dryRun, result: result! };
    },
    async bulk(given, { syncRunTime, field, envelope }) {
      const sync = operation.readSyncRunTime(syncRunTime, now);
      // A bad sync_run_time or envelope is the request's fault, not its records': rejected whole.
      const records = admit(() => {
        if (sync.issues.length) throw validationFailed(sync.issues);
        return batchOf(given, field);
      }, envelope);
      const results = await ingestion.ingest(scope, records, { syncRunTime: sync.value });
      return { dryRun: scope.dryRun, results: results.map((result, index) => ({ index, permalink: permalinkOf(spec, records[index]), result })) };
    },
  };
}
