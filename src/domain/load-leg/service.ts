import { createIngester } from '../shared/ingest.js';
import { loadLegRecord } from './schema.js';

/** Validates and writes one record in a single statement (REST and GraphQL both call this). */
export const loadLegIngester = createIngester(loadLegRecord);
export const upsertLoadLeg = loadLegIngester.ingest;
