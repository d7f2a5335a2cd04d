/**
 * The ingestion use case of every record kind, in registry order, each followed by its delete
 * operation when it has one (`shared/delete.ts`): REST routes and GraphQL mutations are built from it.
 */
import { recordSpecs } from './registry.js';
import { deleteSpecOf, isDeletable } from './shared/delete.js';
import { createIngestion, type Ingestion } from './shared/ingest.js';

export const ingestions: readonly Ingestion[] = recordSpecs.flatMap((spec) =>
  isDeletable(spec) ? [createIngestion(spec), createIngestion(deleteSpecOf(spec))] : [createIngestion(spec)],
);
