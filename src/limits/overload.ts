/**
 * Overload detection: the event loop's lag (how late a 50 ms timer fires) and the number of queries
 * waiting for a database pool connection. Above either threshold new requests are shed with 503
 * at once instead of queueing behind the backlog until they time out.
 */
import type { Database } from '../db/database.js';

export type OverloadReason = 'event_loop_lag' | 'db_pool_waiting';

export interface OverloadOptions {
  /** Lag above which requests are shed (0 = never). */
  lagMs: number;
  /** Pool waiters above which requests are shed (0 = never; PostgreSQL only). */
  dbWaiting: number;
  db: Database;
  sampleMs?: number;
}

export function createOverloadDetector({ lagMs, dbWaiting, db, sampleMs = 50 }: OverloadOptions) {
  let lag = 0;
  let timer: NodeJS.Timeout | null = null;
  if (lagMs > 0) {
    let expected = performance.now() + sampleMs;
    timer = setInterval(() => {
      const now = performance.now();
      lag = Math.max(0, now - expected);
      expected = now + sampleMs;
    }, sampleMs);
    timer.unref();
  }
  return {
    /** Why a new request should be shed now, or null. */
    reason(): OverloadReason | null {
      if (lagMs > 0 && lag > lagMs) return 'event_loop_lag';
      if (dbWaiting > 0 && (db.poolStats()?.waiting ?? 0) > dbWaiting) return 'db_pool_waiting';
      return null;
    },
    close() {
      if (timer) clearInterval(timer);
    },
  };
}
