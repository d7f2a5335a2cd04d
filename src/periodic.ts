/**
 * A background job every instance runs on an interval (the event and payload-history maintenance):
 * one pass at a time, a failed pass logged and tried again at the next tick, the timer never keeping
 * the process alive, and `close` waiting for the pass under way. A pass is background work: on the
 * embedded database its calls wait behind requests' (src/db/database.ts).
 */
import { asBackgroundWork } from './db/database.js';
import type { Logger } from './logger.js';

export interface PeriodicJob {
  /** One pass now, or the pass already under way; its failure is logged, never thrown. */
  run(): Promise<void>;
  /** Stops the timer and waits for the pass under way. */
  close(): Promise<void>;
}

/** Runs `pass` every `intervalMs` (0: only through `run`, as tests do). `name` names it in the log line of a failed pass. */
export function periodicJob(name: string, pass: () => Promise<unknown>, intervalMs: number, logger: Logger): PeriodicJob {
  let running: Promise<void> | null = null;
  const run = () => {
    running ??= asBackgroundWork(pass)
      .then(
        () => undefined,
        (error: unknown) => logger.warn({ err: error }, `${name} failed; will retry`),
      )
      .finally(() => {
        running = null;
      });
    return running;
  };
  const timer = intervalMs > 0 ? setInterval(() => void run(), intervalMs) : null;
  timer?.unref();
  return {
    run,
    async close() {
      if (timer) clearInterval(timer);
      await running;
    },
  };
}
