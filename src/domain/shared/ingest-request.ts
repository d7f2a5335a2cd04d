/**
 * The ingestion edge both transports share: one ingestion request (a REST single or bulk route, a
 * GraphQL single or bulk mutation) opened once, with the writing tenant's scope, the request's
 * `Service-Ingest-Source` and whether it is a dry run, and the accounting of a request rejected
 * before its records are read.
 * What happens to the records is the use case's (`ingest.ts`), which reports each of them; a
 * transport only maps the typed results to its answers.
 */
import { toAppError, type AppError } from '../../errors.js';
import { ingestSourceOf } from '../ingest-health/report.js';
import { dryRunOf } from './dry-run.js';
import type { IngestOptions, IngestScope, Ingestion, RecordResult } from './ingest.js';
import type { TenantRef } from './tenant-ref.js';

export interface IngestRequest {
  readonly ingestion: Ingestion;
  readonly scope: IngestScope;
  /**
   * Reports the request as rejected whole (its content type, size, JSON, envelope, rate limit…): one
   * rejection, with the record's permalink when `body` has one. Returns the contract error.
   */
  reject(thrown: unknown, body?: unknown): AppError;
  /** A request-level check: what it throws is reported as the request's rejection (`reject`), then thrown. */
  admit<T>(check: () => T, body?: unknown): T;
  /** The records through the use case: one typed result per record, in order (each reported by it). */
  ingest(records: readonly unknown[], options?: IngestOptions): Promise<RecordResult[]>;
}

/** What a transport knows of a request when it opens it: the services, the authenticated tenant, its headers and the service clock. */
export interface IngestRequestOrigin {
  services: Pick<IngestScope, 'db' | 'sequencer' | 'statistics' | 'recorder'> & { logger: IngestScope['log']; config: { payloadHistory: { days: number } } };
  tenant: TenantRef;
  /** The request's id, as answered in `X-Request-Id` (kept with the payload history of its writes). */
  requestId: string;
  headers: Headers;
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
 * Opens an ingestion request of `ingestion`: reads `dry_run`, then `Service-Ingest-Source` (a bad
 * value is the request's rejection, reported and thrown; a dry run's as a dry run's).
 */
export function openIngestRequest(ingestion: Ingestion, { services, tenant, requestId, headers, now, body, dryRun }: IngestRequestOrigin): IngestRequest {
  const { db, sequencer, statistics, recorder, logger, config } = services;
  const history = config.payloadHistory.days > 0 ? { requestId } : null;
  const scope: IngestScope = { db, sequencer, statistics, recorder, tenant, source: 'unspecified', now, log: logger, history, dryRun: false };
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
  return { ingestion, scope, reject, admit, ingest: (records, options) => ingestion.ingest(scope, records, options) };
}
