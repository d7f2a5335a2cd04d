/**
 * What the ingestion paths report to ingest-health accounting (api-contract.md, "Ingest health"):
 * one event per ingestion request, accepted or rejected.
 */
import { AppError, type ErrorCode, type FieldIssue } from '../../errors.js';
import type { RecordKind } from '../registry.js';
import type { UpsertStatus } from '../ingestion/outcome.js';
import type { TenantRef } from '../declaration/tenant-ref.js';

export const ingestSources = ['pull', 'webhook', 'unspecified'] as const;
export type IngestSourceName = (typeof ingestSources)[number];

export const ingestOutcomes = ['processed', 'skipped', 'duplicate', 'rejected'] as const;
export type IngestOutcome = UpsertStatus | 'rejected';

export interface IngestEvent {
  tenantId: string;
  /** The tenant's slug: the `tenant` label of the ingestion metrics. */
  tenantSlug: string;
  source: IngestSourceName;
  kind: RecordKind;
  outcome: IngestOutcome;
  at: Date;
  /** A dry run's record (`?dry_run=true`, `dryRun: true`): counted apart, never as ingested traffic. */
  dryRun?: boolean;
  /** An accepted record's recommended fields it left empty (api-contract.md F; the metric `ingest_recommended_field_missing_total`). */
  missingFields?: readonly string[];
  /**
   * For rejections: the error code and message, the first offending field and every field issue,
   * the record's permalink when known, and the rejected body (the record, or the request when it was
   * rejected whole) when it was read.
   */
  rejection?: { code: ErrorCode; message: string; field?: string; details?: FieldIssue[]; permalink?: string; body?: unknown };
}

/** Receives every ingestion event; must not block the request (aggregate in memory, flush later). */
export interface IngestRecorder {
  record(event: IngestEvent): void;
  /** Writes what is aggregated so far. */
  flush(): Promise<void>;
  /** Stops the flush timer and writes what is left. */
  close(): Promise<void>;
}

/**
 * The `Service-Ingest-Source` header of an ingestion request (REST and GraphQL): compared
 * case-insensitively after trimming; absent → `unspecified`; anything but pull/webhook is a 400.
 */
export function ingestSourceOf(header: string | null): IngestSourceName {
  if (header === null) return 'unspecified';
  const value = header.trim().toLowerCase();
  if (value === 'pull' || value === 'webhook') return value;
  throw new AppError('validation_failed', 'Service-Ingest-Source must be pull or webhook.', [
    { field: 'Service-Ingest-Source', issue: 'must be pull or webhook (or left out)' },
  ]);
}

/** One record's result as ingest accounting sees it. */
export interface ReportedResult {
  outcome: IngestOutcome;
  permalink?: string;
  /** An accepted record's recommended fields it left empty. */
  missingFields?: readonly string[];
  error?: { code: ErrorCode; message: string; details?: FieldIssue[] };
  /** The rejected body, when it was read. */
  body?: unknown;
}

/**
 * Reports the results of one ingestion request (REST route or GraphQL mutation) to the recorder:
 * one event per record, rejections with their code, field issues, permalink and body; a dry run's marked `dryRun`.
 */
export function reportIngest(
  recorder: IngestRecorder,
  { tenant, dryRun, ...request }: { tenant: TenantRef; source: IngestSourceName; kind: RecordKind; at: Date; dryRun?: boolean },
  results: readonly ReportedResult[],
): void {
  for (const r of results) {
    recorder.record({
      tenantId: tenant.id,
      tenantSlug: tenant.slug,
      ...request,
      ...(dryRun ? { dryRun: true } : {}),
      outcome: r.outcome,
      ...(r.missingFields?.length ? { missingFields: r.missingFields } : {}),
      ...(r.error
        ? {
            rejection: {
              code: r.error.code,
              message: r.error.message,
              field: r.error.details?.[0]?.field,
              details: r.error.details,
              permalink: r.permalink,
              body: r.body,
            },
          }
        : {}),
    });
  }
}
