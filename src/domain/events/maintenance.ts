/**
 * Background upkeep of the change events, run by every instance on an interval (idempotent, so
 * instances may overlap): ingest-health transitions become `ingest_health.state_changed` events,
 * every tenant's events left unnumbered are numbered (sequencer.ts), events older than the
 * retention are deleted, and so are tombstones older than theirs (`ingestion/tombstones.ts`); field
 * coverage is rolled up per hour and kept as long as ingest health's counts (`data-quality/maintenance.ts`).
 */
import type { Clock } from '../../clock.js';
import type { Database } from '../../db/database.js';
import type { Logger } from '../../logger.js';
import type { IngestRecorder } from '../ingest-health/report.js';
import type { EventSequencer } from './sequencer.js';
import { purgeTombstones } from '../ingestion/tombstones.js';
import { maintainFieldCoverage } from '../data-quality/maintenance.js';
import { periodicJob } from '../../periodic.js';
import { recordIngestHealthStates } from './ingest-health-states.js';
import { pruneLoadEvents } from './service.js';

export interface EventMaintenanceOptions {
  db: Database;
  sequencer: Pick<EventSequencer, 'sweep'>;
  clock: Clock;
  logger: Logger;
  recorder: IngestRecorder;
  retentionMs: number;
  /** Tombstones older than this are purged with what hangs under them (`DELETED_RETENTION_DAYS`); absent: kept. */
  deletedRetentionMs?: number;
  degradedRejectionRate: number;
  /** 0 disables the timer (tests run it by hand). */
  intervalMs: number;
}

export function createEventMaintenance({
  db,
  sequencer,
  clock,
  logger,
  recorder,
  retentionMs,
  deletedRetentionMs,
  degradedRejectionRate,
  intervalMs,
}: EventMaintenanceOptions) {
  /**
   * One pass: each step on its own, so one that fails (logged, with its name) skips none of the others; a
   * pass with a failed step then fails as a whole (periodicJob logs it and the next tick tries again).
   */
  async function runOnce(): Promise<void> {
    const failed: string[] = [];
    const step = async <T>(name: string, work: () => Promise<T>, otherwise: T): Promise<T> => {
      try {
        return await work();
      } catch (error) {
        failed.push(name);
        logger.warn({ err: error, step: name }, `event maintenance: ${name} failed`);
        return otherwise;
      }
    };
    // This instance's accounting first, so its requests count in the states.
    await step('ingest accounting', () => recorder.flush(), undefined);
    const now = clock.now();
    const changed = await step('ingest health states', () => recordIngestHealthStates({ db, now, degradedRejectionRate }), 0);
    const numbered = await step('event numbering', () => sequencer.sweep(), 0);
    const pruned = await step('event retention', () => pruneLoadEvents(db, new Date(now.getTime() - retentionMs)), 0);
    const purged =
      deletedRetentionMs === undefined ? 0 : await step('tombstone purge', () => purgeTombstones(db, new Date(now.getTime() - deletedRetentionMs)), 0);
    const coverage = await step('field coverage', () => maintainFieldCoverage(db, now), { dropped: 0 });
    if (changed || numbered || pruned || purged || coverage.dropped) {
      logger.debug({ changed, numbered, pruned, purged, coverage }, 'event maintenance');
    }
    if (failed.length) throw new Error(`Event maintenance: ${failed.join(', ')} failed (the other steps ran).`);
  }

  const job = periodicJob('event maintenance', runOnce, intervalMs, logger);

  return {
    /** One pass now (tests; shutdown does not need one). */
    runOnce,
    close: job.close,
  };
}
