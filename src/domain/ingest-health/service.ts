/**
 * Ingest health of one tenant (api-contract.md B "Ingest health"): per source, its state, last
 * received time and outcome counts over the last hour and day (dry runs counted apart, E "Dry run"); the TMS statuses its loads carry that
 * have no phase mapping; its most recent rejections. Read by GraphQL `ingestHealth`.
 *
 * Freshness: the read first flushes this instance's recorder, so everything this instance accepted
 * before the read is counted. Other instances' unflushed counts (at most one flush interval,
 * `INGEST_FLUSH_INTERVAL_MS`) show up on their next flush.
 */
import type { Database } from '../../db/database.js';
import { AppError, type FieldIssue } from '../../errors.js';
import { recordKinds, type RecordKind } from '../registry.js';
import { ingestOutcomes, ingestSources, type IngestOutcome, type IngestRecorder, type IngestSourceName } from './report.js';
import { bucketOf, rejectionSampleSize } from './recorder.js';

export type HealthState = 'HEALTHY' | 'DEGRADED' | 'STALE' | 'NO_TRAFFIC';

export type OutcomeCounts = Record<IngestOutcome, number>;

/**
 * Fewest requests in the last hour before a rejection rate can make a source DEGRADED: one bad
 * record out of three is noise, not a broken integration.
 */
export const degradedMinimumRequests = 10;

/** Longest unmapped-status list returned (most frequent first). */
export const unmappedStatusLimit = 100;

const hourMs = 3_600_000;
const dayMs = 24 * hourMs;

export interface HealthInput {
  /** Last request on this source; null when it was never used. */
  lastReceivedAt: Date | null;
  /** The tenant's expected interval for this source. */
  staleAfterSeconds: number;
  lastHour: OutcomeCounts;
  now: Date;
  /** `config.ingest.degradedRejectionRate`: rejected share above which the source is DEGRADED. */
  degradedRejectionRate: number;
}

/**
 * The state of one source, first match wins: NO_TRAFFIC (never used), STALE (silent for longer than
 * the expected interval), DEGRADED (at least `degradedMinimumRequests` requests in the last hour and
 * a rejected share strictly above the threshold), else HEALTHY.
 */
export function healthState({ lastReceivedAt, staleAfterSeconds, lastHour, now, degradedRejectionRate }: HealthInput): HealthState {
  if (!lastReceivedAt) return 'NO_TRAFFIC';
  if (now.getTime() - lastReceivedAt.getTime() > staleAfterSeconds * 1000) return 'STALE';
  const total = ingestOutcomes.reduce((sum, outcome) => sum + lastHour[outcome], 0);
  if (total >= degradedMinimumRequests && lastHour.rejected / total > degradedRejectionRate) return 'DEGRADED';
  return 'HEALTHY';
}

/**
 * Where the "last hour" and "last day" windows start: at the bucket holding `now - window`, so a
 * window covers its full length plus at most one bucket (`bucketMs`, 5 minutes) and misses nothing.
 */
export function windowStarts(now: Date) {
  return { hour: bucketOf(new Date(now.getTime() - hourMs)), day: bucketOf(new Date(now.getTime() - dayMs)) };
}

export const zeroCounts = (): OutcomeCounts => ({ processed: 0, skipped: 0, duplicate: 0, rejected: 0 });

export interface KindCounts {
  kind: RecordKind;
  lastHour: OutcomeCounts;
  lastDay: OutcomeCounts;
}

export interface SourceHealth {
  source: IngestSourceName;
  state: HealthState;
  lastReceivedAt: Date | null;
  staleAfterSeconds: number;
  lastHour: OutcomeCounts;
  lastDay: OutcomeCounts;
  /** Record kinds with requests in the last day, in posting order. */
  byKind: KindCounts[];
  /** Dry-run records (`?dry_run=true`) by the outcome they were answered: counted apart, in none of the above. */
  dryRun: { lastHour: OutcomeCounts; lastDay: OutcomeCounts };
}

export interface UnmappedStatus {
  status: string;
  loadCount: number;
}

export interface RecentRejection {
  code: string;
  message: string;
  field: string | null;
  /** Every offending field of the error, when it named fields. */
  details: FieldIssue[] | null;
  permalink: string | null;
  /** The rejected body as stored (see recorder.ts `maxRejectedBodyChars`), when it was read. */
  body: unknown;
  bodyTruncated: boolean;
  source: IngestSourceName;
  kind: RecordKind;
  at: Date;
}

export interface IngestHealth {
  sources: SourceHealth[];
  unmappedStatusCounts: UnmappedStatus[];
  recentRejections: RecentRejection[];
}

export interface ReadIngestHealthOptions {
  db: Database;
  /** This instance's recorder, flushed before reading. */
  recorder: IngestRecorder;
  tenantId: string;
  now: Date;
  degradedRejectionRate: number;
}

/**
 * The TMS statuses of the tenant's live loads that have no phase mapping, most frequent first (at
 * most `unmappedStatusLimit`), each with its number of loads: ingest health's report, and data
 * quality's `unmapped_status` finding.
 */
export async function readUnmappedStatuses(db: Database, tenantId: string): Promise<UnmappedStatus[]> {
  const rows = await db.sql.query<{ status: string; load_count: unknown }>(
    `SELECT min(btrim(status)) AS status, count(*)::int8 AS load_count
     FROM loads WHERE tenant_id = $1 AND deleted_at IS NULL AND phase = 'UNMAPPED' AND btrim(coalesce(status, '')) <> ''
     GROUP BY lower(btrim(status)) ORDER BY load_count DESC, status LIMIT $2`,
    [tenantId, unmappedStatusLimit],
  );
  return rows.map((u) => ({ status: u.status, loadCount: Number(u.load_count) }));
}

/** Reads the tenant's ingest health as of `now`. */
export async function readIngestHealth({ db, recorder, tenantId, now, degradedRejectionRate }: ReadIngestHealthOptions): Promise<IngestHealth> {
  await recorder.flush();
  const windows = windowStarts(now);
  const [intervals, sources, counts, unmapped, rejections] = await Promise.all([
    db.sql.query<{ pull: number; webhook: number; unspecified: number }>(
      `SELECT pull_stale_seconds AS pull, webhook_stale_seconds AS webhook, unspecified_stale_seconds AS unspecified FROM tenants WHERE id = $1`,
      [tenantId],
    ),
    db.sql.query<{ source: IngestSourceName; last_received_at: Date }>(`SELECT source, last_received_at FROM ingest_sources WHERE tenant_id = $1`, [tenantId]),
    db.sql.query<{ source: IngestSourceName; kind: RecordKind; outcome: IngestOutcome; dry_run: boolean; hour: unknown; day: unknown }>(
      `SELECT source, kind, outcome, dry_run, coalesce(sum(count) FILTER (WHERE bucket_start >= $3), 0)::int8 AS hour, sum(count)::int8 AS day
       FROM ingest_counts WHERE tenant_id = $1 AND bucket_start >= $2
       GROUP BY source, kind, outcome, dry_run`,
      [tenantId, windows.day, windows.hour],
    ),
    readUnmappedStatuses(db, tenantId),
    db.sql.query<Omit<RecentRejection, 'at' | 'bodyTruncated'> & { received_at: Date; body_truncated: boolean }>(
      `SELECT code, message, field, details, permalink, body, body_truncated, source, kind, received_at FROM ingest_rejections
       WHERE tenant_id = $1 ORDER BY received_at DESC, id LIMIT $2`,
      [tenantId, rejectionSampleSize],
    ),
  ]);
  const staleAfter = intervals[0];
  if (!staleAfter) throw new AppError('not_found', 'The tenant does not exist.');

  return {
    sources: ingestSources.map((source) => {
      const lastHour = zeroCounts();
      const lastDay = zeroCounts();
      const byKind = new Map<RecordKind, KindCounts>();
      const dryRun = { lastHour: zeroCounts(), lastDay: zeroCounts() };
      for (const row of counts) {
        if (row.source !== source) continue;
        if (row.dry_run) {
          dryRun.lastHour[row.outcome] += Number(row.hour);
          dryRun.lastDay[row.outcome] += Number(row.day);
          continue;
        }
        const kind = byKind.get(row.kind) ?? { kind: row.kind, lastHour: zeroCounts(), lastDay: zeroCounts() };
        byKind.set(row.kind, kind);
        for (const [window, value] of [
          [lastHour, row.hour],
          [lastDay, row.day],
          [kind.lastHour, row.hour],
          [kind.lastDay, row.day],
        ] as const) {
          window[row.outcome] += Number(value);
        }
      }
      const lastReceivedAt = sources.find((s) => s.source === source)?.last_received_at ?? null;
      return {
        source,
        state: healthState({ lastReceivedAt, staleAfterSeconds: staleAfter[source], lastHour, now, degradedRejectionRate }),
        lastReceivedAt,
        staleAfterSeconds: staleAfter[source],
        lastHour,
        lastDay,
        byKind: recordKinds.flatMap((kind) => byKind.get(kind) ?? []),
        dryRun,
      };
    }),
    unmappedStatusCounts: unmapped,
    recentRejections: rejections.map((r) => ({
      code: r.code,
      message: r.message,
      field: r.field,
      details: r.details,
      permalink: r.permalink,
      body: r.body,
      bodyTruncated: r.body_truncated,
      source: r.source,
      kind: r.kind,
      at: r.received_at,
    })),
  };
}

/** One interval of a source's time series: its start and outcome counts. */
export interface SeriesPoint extends OutcomeCounts {
  start: Date;
}

/** Interval lengths a series may use: whole 5-minute buckets that divide a day (5 min to 24 h). */
export const seriesIntervalMinutes = { min: 5, max: 1440 } as const;

/**
 * Records of one source per interval by outcome over the last 24 hours, oldest first, every interval
 * present (zeros included), for charts (the console, customers' dashboards). Intervals are aligned to
 * multiples of their length since the epoch; the first one holds the start of the 24-hour window.
 */
export async function readIngestSeries(options: {
  db: Database;
  recorder: IngestRecorder;
  tenantId: string;
  source: IngestSourceName;
  now: Date;
  intervalMinutes: number;
}): Promise<SeriesPoint[]> {
  const { db, recorder, tenantId, source, now, intervalMinutes } = options;
  const { min, max } = seriesIntervalMinutes;
  if (!Number.isInteger(intervalMinutes) || intervalMinutes < min || intervalMinutes > max || intervalMinutes % 5 !== 0 || 1440 % intervalMinutes !== 0) {
    throw new AppError('validation_failed', `The interval must be a multiple of 5 minutes that divides a day (${min} to ${max}).`, [
      { field: 'intervalMinutes', issue: 'must be a multiple of 5 that divides 1440' },
    ]);
  }
  await recorder.flush();
  const intervalMs = intervalMinutes * 60_000;
  const first = Math.floor((now.getTime() - dayMs) / intervalMs) * intervalMs;
  const rows = await db.sql.query<{ bucket_start: Date; outcome: IngestOutcome; count: unknown }>(
    `SELECT bucket_start, outcome, sum(count)::int8 AS count FROM ingest_counts
     WHERE tenant_id = $1 AND source = $2 AND bucket_start >= $3 AND NOT dry_run GROUP BY bucket_start, outcome`,
    [tenantId, source, new Date(first)],
  );
  const points: SeriesPoint[] = [];
  for (let start = first; start <= now.getTime(); start += intervalMs) points.push({ start: new Date(start), ...zeroCounts() });
  for (const row of rows) {
    const point = points[Math.floor((new Date(row.bucket_start).getTime() - first) / intervalMs)];
    if (point) point[row.outcome] += Number(row.count);
  }
  return points;
}
