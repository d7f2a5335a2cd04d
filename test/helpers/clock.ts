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

/** Runs `fn` with the clock `ms` ahead of the machine's (so a rule is shown to read the service clock), then sets it back. */
export async function withClockAhead<T>(clock: TestClock, ms: number, fn: (now: number) => Promise<T>): Promise<T> {
  clock.advance(ms);
  try {
    return await fn(clock.now().getTime());
  } finally {
    clock.advance(-ms);
  }
}
