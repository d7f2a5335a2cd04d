import { createIngester } from '../shared/ingest.js';
import { loadRecord } from './schema.js';

/** Validates and writes one record in a single statement (REST and GraphQL both call this). */
export const loadIngester = createIngester(loadRecord);
export const upsertLoad = loadIngester.ingest;
