/**
 * Ingest accounting without a second round trip on the hot path: events are aggregated in memory
 * and flushed on an interval (and at shutdown) as additive upserts into one-minute buckets
 * (`count = count + excluded.count`), so several service instances on one database add up.
 */
import type { Clock } from '../../clock.js';
import type { Database } from '../../db/database.js';
import type { Logger } from '../../logger.js';
import type { IngestEvent, IngestRecorder } from './events.js';

/** Most recent rejections kept per tenant. */
export const rejectionSampleSize = 50;
const bucketMs = 60_000;

interface Pending {
  counts: Map<string, { tenantId: string; bucket: Date; source: string; kind: string; outcome: string; count: number }>;
  lastReceived: Map<string, { tenantId: string; source: string; at: Date }>;
  rejections: (IngestEvent & { rejection: NonNullable<IngestEvent['rejection']> })[];
}

const empty = (): Pending => ({ counts: new Map(), lastReceived: new Map(), rejections: [] });

export interface RecorderOptions {
  db: Database;
  clock: Clock;
  logger: Logger;
  /** 0 disables the timer (tests flush by hand). */
  flushIntervalMs: number;
}

export function createIngestRecorder({ db, logger, flushIntervalMs }: RecorderOptions): IngestRecorder {
  let pending = empty();
  let flushing: Promise<void> = Promise.resolve();

  function record(event: IngestEvent) {
    const bucket = new Date(Math.floor(event.at.getTime() / bucketMs) * bucketMs);
    const key = `${event.tenantId}|${bucket.getTime()}|${event.source}|${event.kind}|${event.outcome}`;
    const row = pending.counts.get(key);
    if (row) row.count++;
    else pending.counts.set(key, { tenantId: event.tenantId, bucket, source: event.source, kind: event.kind, outcome: event.outcome, count: 1 });
    const sourceKey = `${event.tenantId}|${event.source}`;
    const last = pending.lastReceived.get(sourceKey);
    if (!last || last.at < event.at) pending.lastReceived.set(sourceKey, { tenantId: event.tenantId, source: event.source, at: event.at });
    if (event.rejection) {
      pending.rejections.push(event as Pending['rejections'][number]);
      if (pending.rejections.length > rejectionSampleSize * 20) pending.rejections.splice(0, pending.rejections.length - rejectionSampleSize * 20);
    }
  }

  async function write(batch: Pending) {
    const counts = [...batch.counts.values()];
    if (counts.length) {
      await db.sql.query(
        `INSERT INTO ingest_counts (tenant_id, bucket_start, source, kind, outcome, count)
         SELECT * FROM unnest($1::uuid[], $2::timestamptz[], $3::text[], $4::text[], $5::text[], $6::int[])
         ON CONFLICT (tenant_id, bucket_start, source, kind, outcome) DO UPDATE SET count = ingest_counts.count + EXCLUDED.count`,
        [counts.map((c) => c.tenantId), counts.map((c) => c.bucket), counts.map((c) => c.source), counts.map((c) => c.kind), counts.map((c) => c.outcome), counts.map((c) => c.count)],
      );
    }
    const sources = [...batch.lastReceived.values()];
    if (sources.length) {
      await db.sql.query(
        `INSERT INTO ingest_sources (tenant_id, source, last_received_at)
         SELECT * FROM unnest($1::uuid[], $2::text[], $3::timestamptz[])
         ON CONFLICT (tenant_id, source) DO UPDATE SET last_received_at = GREATEST(ingest_sources.last_received_at, EXCLUDED.last_received_at)`,
        [sources.map((s) => s.tenantId), sources.map((s) => s.source), sources.map((s) => s.at)],
      );
    }
    if (batch.rejections.length) {
      const r = batch.rejections;
      await db.sql.query(
        `INSERT INTO ingest_rejections (tenant_id, source, kind, code, field, message, permalink, received_at)
         SELECT * FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::timestamptz[])`,
        [
          r.map((e) => e.tenantId),
          r.map((e) => e.source),
          r.map((e) => e.kind),
          r.map((e) => e.rejection.code),
          r.map((e) => e.rejection.field?.slice(0, 200) ?? null),
          r.map((e) => e.rejection.message.slice(0, 1000)),
          r.map((e) => e.rejection.permalink?.slice(0, 100) ?? null),
          r.map((e) => e.at),
        ],
      );
      // Keep only the most recent sample per tenant that just received rejections.
      await db.sql.query(
        `DELETE FROM ingest_rejections r USING (
           SELECT id FROM (
             SELECT id, row_number() OVER (PARTITION BY tenant_id ORDER BY received_at DESC, id) AS n
             FROM ingest_rejections WHERE tenant_id = ANY($1::uuid[])) ranked
           WHERE n > $2) old
         WHERE r.id = old.id`,
        [[...new Set(r.map((e) => e.tenantId))], rejectionSampleSize],
      );
    }
  }

  function flush(): Promise<void> {
    flushing = flushing.then(async () => {
      const batch = pending;
      pending = empty();
      if (!batch.counts.size && !batch.lastReceived.size && !batch.rejections.length) return;
      try {
        await write(batch);
      } catch (error) {
        // Keep the counts for the next flush rather than lose them.
        for (const [key, row] of batch.counts) {
          const current = pending.counts.get(key);
          if (current) current.count += row.count;
          else pending.counts.set(key, row);
        }
        for (const [key, last] of batch.lastReceived) if (!pending.lastReceived.has(key)) pending.lastReceived.set(key, last);
        pending.rejections.unshift(...batch.rejections);
        logger.warn({ err: error }, 'ingest accounting flush failed; will retry');
      }
    });
    return flushing;
  }

  const timer = flushIntervalMs > 0 ? setInterval(() => void flush(), flushIntervalMs) : null;
  timer?.unref();

  return {
    record,
    flush,
    async close() {
      if (timer) clearInterval(timer);
      await flush();
    },
  };
}
