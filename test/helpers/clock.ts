import type { Clock } from '../../src/clock.js';

/** A clock that follows real time plus an offset the test can move (no sleeping), or stands still once frozen. */
export function createTestClock() {
  let offset = 0;
  let frozenAt: number | null = null;
  return {
    now: () => new Date((frozenAt ?? Date.now()) + offset),
    advance(ms: number) {
      offset += ms;
    },
    reset() {
      offset = 0;
      frozenAt = null;
    },
    /** Stops real time (only `advance` moves the clock): for tests of time-based limits on a slow machine. */
    freeze() {
      frozenAt = Date.now();
    },
  } satisfies Clock & Record<string, unknown>;
}
export type TestClock = ReturnType<typeof createTestClock>;
