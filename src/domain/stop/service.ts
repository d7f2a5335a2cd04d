import { createIngester } from '../shared/ingest.js';
import { stopRecord } from './schema.js';

/** Validates and writes one record in a single statement (REST and GraphQL both call this). */
export const stopIngester = createIngester(stopRecord);
export const upsertStop = stopIngester.ingest;
