/**
 * Every ingestion operation: the write (upsert or create) of every record kind in registry order, then
 * the delete of every kind that has one, children first (stops, legs, loads, carriers: the order a TMS
 * removes things in). REST routes, the OpenAPI document and GraphQL mutations are built from it.
 */
import { recordSpecs, type RecordKind } from './registry.js';
import { createOperation, type IngestOperation } from './shared/operation.js';
import { actionsOf, writeActionOf, type IngestAction } from './shared/record.js';

export const ingestOperations: readonly IngestOperation[] = [
  ...recordSpecs.map((spec) => createOperation(spec, writeActionOf(spec))),
  ...recordSpecs
    .filter((spec) => actionsOf(spec).includes('delete'))
    .reverse()
    .map((spec) => createOperation(spec, 'delete')),
];

/** The `action` operation of a record kind (it throws for an action the kind does not take). */
export function operationOf(kind: RecordKind, action: IngestAction): IngestOperation {
  const operation = ingestOperations.find((one) => one.spec.kind === kind && one.action === action);
  if (!operation) throw new Error(`${kind} has no ${action} operation`);
  return operation;
}
