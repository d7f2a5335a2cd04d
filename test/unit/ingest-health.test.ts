import { describe, expect, test } from 'vitest';
import { degradedMinimumRequests, healthState, windowStarts, zeroCounts, type HealthInput } from '../../src/domain/ingest-health/service.js';
import { bucketMs } from '../../src/domain/ingest-health/recorder.js';

const now = new Date('2026-11-23T12:02:30Z');
const input = (overrides: Partial<HealthInput> = {}): HealthInput => ({
  lastReceivedAt: new Date(now.getTime() - 60_000),
  staleAfterSeconds: 3600,
  lastHour: { ...zeroCounts(), processed: 100 },
  now,
  degradedRejectionRate: 0.2,
  ...overrides,
});

describe('healthState', () => {
  test('is NO_TRAFFIC for a source that never received anything, whatever else holds', () => {
    expect(healthState(input({ lastReceivedAt: null, lastHour: zeroCounts() }))).toBe('NO_TRAFFIC');
    expect(healthState(input({ lastReceivedAt: null, staleAfterSeconds: 0 }))).toBe('NO_TRAFFIC');
  });

  test('is STALE only once the silence exceeds the interval', () => {
    const at = (msAgo: number) => new Date(now.getTime() - msAgo);
    expect(healthState(input({ lastReceivedAt: at(3_600_000) }))).toBe('HEALTHY');
    expect(healthState(input({ lastReceivedAt: at(3_600_001) }))).toBe('STALE');
    expect(healthState(input({ lastReceivedAt: at(120_001), staleAfterSeconds: 120 }))).toBe('STALE');
  });

  test('STALE wins over DEGRADED', () => {
    const lastHour = { ...zeroCounts(), rejected: 50 };
    expect(healthState(input({ lastReceivedAt: new Date(now.getTime() - 7_200_000), lastHour }))).toBe('STALE');
  });

  test('is DEGRADED when the rejected share is strictly above the threshold', () => {
    const counts = (ok: number, rejected: number) => ({ processed: ok - 2, skipped: 1, duplicate: 1, rejected });
    expect(healthState(input({ lastHour: counts(8, 2) }))).toBe('HEALTHY'); // exactly 20%
    expect(healthState(input({ lastHour: counts(7, 3) }))).toBe('DEGRADED');
    expect(healthState(input({ lastHour: counts(70, 30), degradedRejectionRate: 0.5 }))).toBe('HEALTHY');
    expect(healthState(input({ lastHour: counts(7, 3), degradedRejectionRate: 0 }))).toBe('DEGRADED');
  });

  test(`needs at least ${degradedMinimumRequests} requests in the last hour to be DEGRADED`, () => {
    const allRejected = (n: number) => ({ ...zeroCounts(), rejected: n });
    expect(healthState(input({ lastHour: allRejected(degradedMinimumRequests - 1) }))).toBe('HEALTHY');
    expect(healthState(input({ lastHour: allRejected(degradedMinimumRequests) }))).toBe('DEGRADED');
    expect(healthState(input({ lastHour: zeroCounts() }))).toBe('HEALTHY');
  });
});

describe('windowStarts', () => {
  test('start at the bucket holding now minus the window, so a window never misses an event', () => {
    const { hour, day } = windowStarts(now);
    expect(hour.toISOString()).toBe('2026-11-23T11:00:00.000Z');
    expect(day.toISOString()).toBe('2026-11-22T12:00:00.000Z');
    expect(now.getTime() - hour.getTime()).toBeGreaterThanOrEqual(3_600_000);
    expect(now.getTime() - hour.getTime()).toBeLessThan(3_600_000 + bucketMs);
  });
});
