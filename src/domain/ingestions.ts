/**
 * The ingestion use case of every record kind, in registry order, then the delete operation of every
 * deletable kind (`shared/delete.ts`), children first (stops, legs, loads, carriers: the order a TMS
 * removes things in): REST routes, the OpenAPI document and GraphQL mutations are built from it.
 */
import { tracing } from '../observability/tracing.js';
import { recordSpecs } from './registry.js';
import { deleteSpecOf, isDeletable } from './shared/delete.js';
import { createIngestion, type Ingestion, type RecordResult } from './shared/ingest.js';

/** How many of `results` had each outcome (`rejected`: a contract error). */
function outcomeCounts(results: readonly RecordResult[]) {
  const counts = { processed: 0, skipped: 0, duplicate: 0, rejected: 0 };
  for (const result of results) counts[result.ok ? result.outcome.status : 'rejected']++;
  return counts;
}

/**
 * The use case in a span of its own while tracing is on (observability/tracing.ts): `ingest load
 * upsert`, with the request's tenant, source and record count, and the outcomes it answered.
 */
function traced(ingestion: Ingestion): Ingestion {
  const { kind, rest } = ingestion.spec;
  const name = `ingest ${kind} ${rest.action}`;
  return {
    ...ingestion,
    ingest(scope, records, options) {
      const tracer = tracing();
      if (!tracer) return ingestion.ingest(scope, records, options);
      const attributes = {
        'tms.ingest.kind': kind,
        'tms.ingest.action': rest.action,
        'tms.ingest.records': records.length,
        'tms.ingest.source': scope.source,
        'tms.ingest.dry_run': scope.dryRun,
        'tms.tenant': scope.tenant.slug,
      };
      return tracer.inSpan(
        name,
        attributes,
        () => ingestion.ingest(scope, records, options),
        (results) => {
          const counts = outcomeCounts(results);
          return {
            'tms.ingest.processed': counts.processed,
            'tms.ingest.skipped': counts.skipped,
            'tms.ingest.duplicate': counts.duplicate,
            'tms.ingest.rejected': counts.rejected,
          };
        },
      );
    },
  };
}

export const ingestions: readonly Ingestion[] = [
  ...recordSpecs.map((spec) => createIngestion(spec)),
  ...recordSpecs
    .filter(isDeletable)
    .reverse()
    .map((spec) => createIngestion(deleteSpecOf(spec))),
].map(traced);
