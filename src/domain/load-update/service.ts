import { createIngester } from '../shared/ingest.js';
import { loadUpdateRecord } from './schema.js';

/** Validates and writes one record in a single statement (REST and GraphQL both call this). */
export const loadUpdateIngester = createIngester(loadUpdateRecord);
export const createLoadUpdate = loadUpdateIngester.ingest;
