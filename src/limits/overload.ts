/**
 * Overload detection, on what clients cause: the event loop's lag (how late a 50 ms timer fires) while
 * requests are being served, two samples in a row, and the number of requests' queries waiting for a database connection.
 * Above either threshold new requests are shed with 503 at once instead of queueing behind the backlog
 * until they time out.
 *
 * What is not load does not shed:
 * - an idle server: a sample counts its lag only when a request was in flight during it (received, not
 *   yet answered), so the start-up's own work, a maintenance pass or a collection that held the loop
 *   while no client waited is not overload;
 * - a single stall: a lag counts when two samples in a row show it, so one long task (a request's first
 *   use of a code path, a garbage collection) does not shed the requests that arrive after it; a backlog
 *   of work lags every sample;
 * - the embedded database (PGlite) runs its statements on this thread, so while it works the event
 *   loop lags by their time: a few concurrent bulk writes lag it past the threshold with nothing wrong.
 *   The time a call held its connection is taken out of the lag; what sheds there is its backlog of
 *   requests' calls queued for its one connection, as the pool's waiters do on PostgreSQL (background
 *   calls wait behind requests' and are not counted: src/db/database.ts).
 */
import type { Database } from '../db/database.js';

export type OverloadLimit = 'event_loop_lag' | 'db_pool_waiting';

/** Why a request is shed: the limit, what was measured and its threshold. */
export interface Overload {
  limit: OverloadLimit;
  value: number;
  threshold: number;
}

export interface OverloadOptions {
  /** Lag above which requests are shed (0 = never). */
  lagMs: number;
  /** Pool waiters (on the embedded database: requests' calls queued for its connection) above which requests are shed (0 = never). */
  dbWaiting: number;
  db: Pick<Database, 'embeddedBusyMs' | 'poolStats'>;
  /** How often the lag is sampled (0: only through `sample`, as the unit test does). */
  sampleMs?: number;
  now?: () => number;
}

export function createOverloadDetector({ lagMs, dbWaiting, db, sampleMs = 50, now = () => performance.now() }: OverloadOptions) {
  /** The lag of the last two samples: the smaller (a lag that lasted), and the last. */
  let lag = 0;
  let previous = 0;
  let inFlight = 0;
  /** Whether a request was received since the last sample (it may have been answered already). */
  let received = false;
  let expected = now() + sampleMs;
  let databaseBusy = db.embeddedBusyMs() ?? 0;
  /** One sample: how late it comes after the last, less the time the embedded database held the thread. */
  const sample = () => {
    const at = now();
    const busy = db.embeddedBusyMs() ?? 0;
    const serving = received || inFlight > 0;
    const late = serving ? Math.max(0, at - expected - (busy - databaseBusy)) : 0;
    lag = Math.min(late, previous);
    previous = late;
    received = false;
    databaseBusy = busy;
    expected = at + sampleMs;
  };
  const timer = lagMs > 0 && sampleMs > 0 ? setInterval(sample, sampleMs) : null;
  timer?.unref();
  return {
    /** The limit a new request would be shed by now, or null. */
    overload(): Overload | null {
      if (lagMs > 0 && lag > lagMs) return { limit: 'event_loop_lag', value: Math.round(lag), threshold: lagMs };
      const waiting = db.poolStats().waitingRequests;
      if (dbWaiting > 0 && waiting > dbWaiting) return { limit: 'db_pool_waiting', value: waiting, threshold: dbWaiting };
      return null;
    },
    /** A request was admitted: it is in flight until `answered`. */
    received() {
      inFlight++;
      received = true;
    },
    answered() {
      inFlight--;
    },
    sample,
    close() {
      if (timer) clearInterval(timer);
    },
  };
}
