/**
 * Payload history (api-contract.md E, "Payload history"; docs/decisions/0016-payload-history.md): what
 * the TMS sent for a record. The rows are written by the ingestion use case's own statements
 * (ingestion/ingest.ts, db/payload-history.ts's `historyCte`); this module reads them and keeps the
 * table within its retention:
 * - a read answers the newest rows of a record, at most `PAYLOAD_HISTORY_PER_RECORD`, none older
 *   than `PAYLOAD_HISTORY_DAYS` days (exact, whatever the job has pruned yet);
 * - the maintenance job creates the coming days' partitions, drops the partitions of days past the
 *   retention, and trims the records written since its last pass to the per-record cap.
 */
import type { Clock } from '../../clock.js';
import type { Database } from '../../db/database.js';
import { createPayloadPartitions, dropPayloadPartitions, readPayloadHistory, trimPayloadHistory, type PayloadRow } from '../../db/payload-history.js';
import type { Logger } from '../../logger.js';
import { periodicJob } from '../../periodic.js';
import type { RecordKind } from '../registry.js';

export type { PayloadRow };

/** `PAYLOAD_HISTORY_DAYS` (0 = off) and `PAYLOAD_HISTORY_PER_RECORD`. */
export interface PayloadHistoryConfig {
  days: number;
  perRecord: number;
}

const dayMs = 86_400_000;

/** Days of partitions kept ready ahead: today and the next two (a job that stops for a day loses nothing). */
const daysAhead = 3;

/** The oldest receipt time the retention keeps at `now`. */
const keptSince = (config: PayloadHistoryConfig, now: Date) => new Date(now.getTime() - config.days * dayMs);

/**
 * The newest kept bodies of records of one kind (by permalink, newest first), at most `first` each
 * (and never more than the per-record cap). Off (`days` 0): nothing.
 */
export async function payloadHistoryOf(
  db: Database,
  config: PayloadHistoryConfig,
  q: { tenantId: string; kind: RecordKind; permalinks: readonly string[]; first: number; now: Date },
): Promise<Map<string, PayloadRow[]>> {
  const limit = Math.min(q.first, config.perRecord);
  if (config.days === 0 || limit === 0 || !q.permalinks.length) return new Map(q.permalinks.map((permalink) => [permalink, []]));
  return readPayloadHistory(db.sql, { tenantId: q.tenantId, kind: q.kind, permalinks: q.permalinks, limit, since: keptSince(config, q.now) });
}

export interface PayloadHistoryMaintenanceOptions {
  db: Database;
  clock: Clock;
  logger: Logger;
  config: PayloadHistoryConfig;
  /** 0 disables the timer (tests run it by hand). */
  intervalMs: number;
}

/**
 * The payload history's upkeep, run at start and on an interval by every instance (idempotent, so
 * instances may overlap): partitions for today and the next days, the days past the retention
 * dropped whole, and the records written since the previous pass trimmed to the per-record cap (the
 * first pass trims every record kept).
 */
export function createPayloadHistoryMaintenance({ db, clock, logger, config, intervalMs }: PayloadHistoryMaintenanceOptions) {
  let lastPass: Date | null = null;

  async function runOnce(): Promise<{ created: string[]; dropped: string[]; trimmed: number }> {
    const now = clock.now();
    const created = config.days > 0 ? await createPayloadPartitions(db.sql, now, daysAhead) : [];
    const dropped = await dropPayloadPartitions(db.sql, keptSince(config, now));
    // Receipt times are the requests' start: a margin covers requests still running at the last pass.
    const since = lastPass ? new Date(lastPass.getTime() - 5 * 60_000) : keptSince(config, now);
    const trimmed = config.days > 0 ? await trimPayloadHistory(db.sql, since, config.perRecord) : 0;
    lastPass = now;
    if (created.length || dropped.length || trimmed) logger.debug({ created, dropped, trimmed }, 'payload history maintenance');
    return { created, dropped, trimmed };
  }

  const job = periodicJob('payload history maintenance', runOnce, intervalMs, logger);

  return {
    /** One pass now (at start; tests). */
    runOnce,
    /** One pass now, its failure logged (at start: the server serves meanwhile). */
    run: job.run,
    close: job.close,
  };
}
