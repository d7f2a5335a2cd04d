/**
 * Overload detection: the event loop's lag (how late a 50 ms timer fires) and the number of queries
 * waiting for a database pool connection. Above either threshold new requests are shed with 503
 * at once instead of queueing behind the backlog until they time out.
 *
 * The embedded database (PGlite) runs its statements on this thread, so while it works the event loop
 * lags by its statements' time: a few concurrent bulk writes lag it past the threshold with nothing
 * wrong. The time the embedded database had work is taken out of the lag; its own backlog (calls queued
 * for its one connection) is what sheds there, as the pool's waiters do on PostgreSQL.
 */
import type { Database } from '../db/database.js';

export type OverloadReason = 'event_loop_lag' | 'db_pool_waiting';

export interface OverloadOptions {
  /** Lag above which requests are shed (0 = never). */
  lagMs: number;
  /** Pool waiters (on the embedded database: calls queued for its connection) above which requests are shed (0 = never). */
  dbWaiting: number;
  db: Database;
  sampleMs?: number;
}

export function createOverloadDetector({ lagMs, dbWaiting, db, sampleMs = 50 }: OverloadOptions) {
  let lag = 0;
  let timer: NodeJS.Timeout | null = null;
  if (lagMs > 0) {
    let expected = performance.now() + sampleMs;
    let databaseBusy = db.embeddedBusyMs() ?? 0;
    timer = setInterval(() => {
      const now = performance.now();
      const busy = db.embeddedBusyMs() ?? 0;
      lag = Math.max(0, now - expected - (busy - databaseBusy));
      databaseBusy = busy;
      expected = now + sampleMs;
    }, sampleMs);
    timer.unref();
  }
  return {
    /** Why a new request should be shed now, or null. */
    reason(): OverloadReason | null {
      if (lagMs > 0 && lag > lagMs) return 'event_loop_lag';
      if (dbWaiting > 0 && db.poolStats().waiting > dbWaiting) return 'db_pool_waiting';
      return null;
    },
    close() {
      if (timer) clearInterval(timer);
    },
  };
}
