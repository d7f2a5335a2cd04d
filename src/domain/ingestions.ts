/** The ingestion use case of every record kind, in registry order (REST routes and GraphQL mutations are built from it). */
import { recordSpecs } from './registry.js';
import { createIngestion, type Ingestion } from './shared/ingest.js';

export const ingestions: readonly Ingestion[] = recordSpecs.map((spec) => createIngestion(spec));
