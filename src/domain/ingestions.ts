/**
 * The ingestion use case of every record kind, in registry order, then the delete operation of every
 * deletable kind (`shared/delete.ts`), children first (stops, legs, loads, carriers: the order a TMS
 * removes things in): REST routes, the OpenAPI document and GraphQL mutations are built from it.
 */
import { recordSpecs } from './registry.js';
import { deleteSpecOf, isDeletable } from './shared/delete.js';
import { createIngestion, type Ingestion } from './shared/ingest.js';

export const ingestions: readonly Ingestion[] = [
  ...recordSpecs.map((spec) => createIngestion(spec)),
  ...recordSpecs
    .filter(isDeletable)
    .reverse()
    .map((spec) => createIngestion(deleteSpecOf(spec))),
];
