/**
 * The embedded database's call scheduler: its one connection shared out call by call, requests' calls
 * ahead of background work (`asRequestWork`, `asBackgroundWork`).
 */
import { AsyncLocalStorage } from 'node:async_hooks';

/** Whose work a database call is: a request's (a client waits for it) or the service's own background work. */
const workOf = new AsyncLocalStorage<'request' | 'background'>();

/**
 * Runs `fn`, and everything it starts, as a request's work: on the embedded database its calls go ahead
 * of background calls queued for the one connection, and they are the backlog overload shedding counts.
 * Work started outside any request (timers, start-up, maintenance) is background work.
 */
export const asRequestWork = <T>(fn: () => T): T => workOf.run('request', fn);

/** Runs `fn` as background work even when a request started it (the table statistics' ANALYZE). */
export const asBackgroundWork = <T>(fn: () => T): T => workOf.run('background', fn);

/**
 * After this many request calls in a row with background calls waiting, one background call goes next:
 * requests go first, but a steady stream of them never holds the service's own work back for good.
 */
const requestCallsPerBackgroundCall = 8;

/**
 * The embedded database's one connection, shared out call by call (every query, script and transaction
 * takes it through these three methods, the Prisma adapter's included; PGlite runs them one at a time
 * anyway): requests' calls first, background calls when none waits (see `requestCallsPerBackgroundCall`).
 * Counts how many of each wait, and for how long so far a call has held the connection.
 */
export function shareConnection() {
  const waiting = { request: [] as (() => void)[], background: [] as (() => void)[] };
  let held = false;
  /** Held for a background call, while the event loop turns once before it starts (not busy). */
  let yielding = false;
  let requestsInARow = 0;
  let busySince = 0;
  let busyBefore = 0;
  /** Hands the connection to the next request call, if one waits and it is requests' turn. */
  const nextRequest = () => {
    if (waiting.request.length === 0 || (waiting.background.length > 0 && requestsInARow >= requestCallsPerBackgroundCall)) return false;
    requestsInARow++;
    waiting.request.shift()!();
    return true;
  };
  const handOver = () => {
    busyBefore += performance.now() - busySince;
    busySince = performance.now();
    if (nextRequest()) return;
    if (waiting.background.length === 0) {
      held = false;
      return;
    }
    // A background call first lets the event loop turn once (a call's statements run on this thread,
    // and the next would start at once): requests that arrived meanwhile queue their calls, and go first.
    yielding = true;
    setImmediate(() => {
      yielding = false;
      busySince = performance.now();
      if (nextRequest()) return;
      requestsInARow = 0;
      waiting.background.shift()!();
    });
  };
  const share =
    <A extends unknown[], R>(call: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      if (held) await new Promise<void>((resolve) => waiting[workOf.getStore() ?? 'background'].push(resolve));
      else {
        held = true;
        busySince = performance.now();
      }
      try {
        return await call(...args);
      } finally {
        handOver();
      }
    };
  return {
    /** `call`, taking the connection for each of its runs (what wraps the connection's methods). */
    share,
    held: () => held,
    waiting: () => ({ requests: waiting.request.length, all: waiting.request.length + waiting.background.length }),
    busyMs: () => busyBefore + (held && !yielding ? performance.now() - busySince : 0),
  };
}
