/**
 * Every ingestion operation: the write (upsert or create) of every record kind in registry order, then
 * the delete of every kind that has one, children first (stops, legs, loads, carriers: the order a TMS
 * removes things in). REST routes, the OpenAPI document and GraphQL mutations are built from it.
 */
import { tracing } from '../../observability/tracing.js';
import { zeroCounts } from '../ingest-health/service.js';
import { recordSpecs, type RecordKind } from '../registry.js';
import type { RecordResult } from './ingest.js';
import { createOperation, type IngestOperation } from './operation.js';
import { actionsOf, writeActionOf, type IngestAction } from '../declaration/record.js';

/** How many of `results` had each outcome (`rejected`: a contract error). */
function outcomeCounts(results: readonly RecordResult[]) {
  const counts = zeroCounts();
  for (const result of results) counts[result.ok ? result.outcome.status : 'rejected']++;
  return counts;
}

/**
 * The use case in a span of its own while tracing is on (observability/tracing.ts): `ingest load
 * upsert`, with the request's tenant, source and record count, and the outcomes it answered.
 */
function traced(operation: IngestOperation): IngestOperation {
  const { spec, action, ingestion } = operation;
  const name = `ingest ${spec.kind} ${action}`;
  return {
    ...operation,
    ingestion: {
      ...ingestion,
      ingest(scope, records, options) {
        const tracer = tracing();
        if (!tracer) return ingestion.ingest(scope, records, options);
        const attributes = {
          'tms.ingest.kind': spec.kind,
          'tms.ingest.action': action,
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
    },
  };
}

export const ingestOperations: readonly IngestOperation[] = [
  ...recordSpecs.map((spec) => createOperation(spec, writeActionOf(spec))),
  ...recordSpecs
    .filter((spec) => actionsOf(spec).includes('delete'))
    .reverse()
    .map((spec) => createOperation(spec, 'delete')),
].map(traced);

/** The `action` operation of a record kind (it throws for an action the kind does not take). */
export function operationOf(kind: RecordKind, action: IngestAction): IngestOperation {
  const operation = ingestOperations.find((one) => one.spec.kind === kind && one.action === action);
  if (!operation) throw new Error(`${kind} has no ${action} operation`);
  return operation;
}
