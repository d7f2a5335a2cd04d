import type { Clock } from '../../src/clock.js';

/** A clock that follows real time plus an offset the test can move (no sleeping). */
export function createTestClock() {
  let offset = 0;
  return {
    now: () => new Date(Date.now() + offset),
    advance(ms: number) {
      offset += ms;
    },
    reset() {
      offset = 0;
    },
  } satisfies Clock & Record<string, unknown>;
}
export type TestClock = ReturnType<typeof createTestClock>;
