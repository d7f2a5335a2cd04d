import { createIngester } from '../shared/ingest.js';
import { carrierRecord } from './schema.js';

/** Validates and writes one record in a single statement (REST and GraphQL both call this). */
export const carrierIngester = createIngester(carrierRecord);
export const upsertCarrier = carrierIngester.ingest;
