/**
 * The overload detector's rules on a clock of its own, sampled by hand: lag counts only while requests
 * are served and only when two samples in a row show it; the embedded database's time is not lag; only
 * requests' queued calls are a database backlog. (Through HTTP: test/integration/limits/overload.test.ts.)
 */
import { describe, expect, test } from 'vitest';
import { createOverloadDetector } from '../../src/limits/overload.js';

/** A detector with a 400 ms threshold, sampled by hand: `stall(ms)` moves the clock, then samples (its lag: `ms`). */
function detector({ dbWaiting = 0 } = {}) {
  let clock = 0;
  const database = { busyMs: 0, waiting: 0, waitingRequests: 0 };
  const overload = createOverloadDetector({
    lagMs: 400,
    dbWaiting,
    sampleMs: 0,
    now: () => clock,
    db: {
      embeddedBusyMs: () => database.busyMs,
      poolStats: () => ({ total: 1, idle: 0, waiting: database.waiting, waitingRequests: database.waitingRequests }),
    },
  });
  const stall = (ms: number, databaseMs = 0) => {
    clock += ms;
    database.busyMs += databaseMs;
    overload.sample();
  };
  return { overload, database, stall };
}

describe('overload detector', () => {
  test('an idle server never sheds, however late its samples (start-up, maintenance)', () => {
    const { overload, stall } = detector();
    for (let i = 0; i < 5; i++) stall(2000);
    expect(overload.overload()).toBeNull();
  });

  test('one stall while a request is served does not shed; a lag two samples in a row does, with the limit, the value and the threshold', () => {
    const { overload, stall } = detector();
    overload.received();
    stall(50);
    stall(1050);
    expect(overload.overload()).toBeNull();
    stall(950);
    expect(overload.overload()).toEqual({ limit: 'event_loop_lag', value: 950, threshold: 400 });
    stall(50);
    expect(overload.overload()).toBeNull();
  });

  test('a request received and answered between two samples counts as served', () => {
    const { overload, stall } = detector();
    overload.received();
    overload.answered();
    stall(1000);
    overload.received();
    overload.answered();
    stall(1000);
    expect(overload.overload()?.limit).toBe('event_loop_lag');
    stall(1000); // nothing received since: idle again
    expect(overload.overload()).toBeNull();
  });

  test('the time the embedded database held the thread is not lag', () => {
    const { overload, stall } = detector();
    overload.received();
    stall(1050, 1000);
    stall(1050, 1000);
    expect(overload.overload()).toBeNull();
  });

  test('requests’ calls waiting for the database shed; background calls waiting do not', () => {
    const { overload, database } = detector({ dbWaiting: 2 });
    database.waiting = 10;
    expect(overload.overload()).toBeNull();
    database.waitingRequests = 3;
    expect(overload.overload()).toEqual({ limit: 'db_pool_waiting', value: 3, threshold: 2 });
  });
});
