/**
 * Upkeep of field coverage (db/field-coverage.ts), a step of the periodic event maintenance: each
 * hour's append-only rows (one per write statement) are rolled up into one, and hours that ended
 * before ingest health's retention (`countRetentionMs`) are dropped, so coverage is kept exactly as
 * long as ingest health's counts.
 */
import type { Database } from '../../db/database.js';
import { dropFieldCoverage, rollUpFieldCoverage } from '../../db/field-coverage.js';
import { countRetentionMs } from '../ingest-health/recorder.js';

/** One pass: returns how many rows were rolled up and how many dropped. */
export async function maintainFieldCoverage(db: Database, now: Date): Promise<{ rolledUp: number; dropped: number }> {
  const rolledUp = await rollUpFieldCoverage(db.sql);
  const dropped = await dropFieldCoverage(db.sql, new Date(now.getTime() - countRetentionMs));
  return { rolledUp, dropped };
}
