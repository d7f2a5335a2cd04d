/**
 * Upkeep of field coverage (db/field-coverage.ts), a step of the periodic event maintenance: hours that
 * ended before ingest health's retention (`countRetentionMs`) are dropped, so coverage is kept exactly
 * as long as ingest health's counts. (The counting itself is the tenant's pass over the write log:
 * docs/decisions/0051-derived-from-the-log.md.)
 */
import type { Database } from '../../db/database.js';
import { dropFieldCoverage } from '../../db/field-coverage.js';
import { countRetentionMs } from '../ingest-health/recorder.js';

/** One pass: returns how many rows were dropped. */
export async function maintainFieldCoverage(db: Database, now: Date): Promise<{ dropped: number }> {
  return { dropped: await dropFieldCoverage(db.sql, new Date(now.getTime() - countRetentionMs)) };
}
