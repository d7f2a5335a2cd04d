/** `IngestSourceHealth.series`: records per interval by outcome over the last 24 hours (the console's chart). */
import { describe, expect, test } from '../../fixtures.js';
import { loadBody, routes } from '../../factories/records.js';
import { gqlData, gqlError } from '../../factories/graphql.js';
import type { Api } from '../../helpers/app.js';

const pull = { 'service-ingest-source': 'pull' };

interface Point {
  start: string;
  processed: number;
  skipped: number;
  duplicate: number;
  rejected: number;
}

async function seriesOf(api: Api, intervalMinutes: number) {
  const data = await gqlData(
    api,
    'query ($m: Int) { ingestHealth { sources { source series(intervalMinutes: $m) { start processed skipped duplicate rejected } } } }',
    {
      m: intervalMinutes,
    },
  );
  return Object.fromEntries(data.ingestHealth.sources.map((s: { source: string; series: Point[] }) => [s.source, s.series])) as Record<string, Point[]>;
}

const total = (points: Point[], outcome: keyof Omit<Point, 'start'>) => points.reduce((sum, p) => sum + p[outcome], 0);

describe('ingest health series', () => {
  test('counts each source per interval by outcome, oldest first, with every interval present', async ({ api, tenant, testApp }) => {
    testApp.clock.freeze();
    try {
      for (let i = 0; i < 3; i++) expect((await api.post(routes.load, loadBody(tenant), pull)).status).toBe(200);
      expect((await api.post(routes.load, {}, pull)).status).toBe(400);
      const resent = loadBody(tenant);
      await api.post(routes.load, resent, pull);
      expect((await api.post(`${routes.load}?sync_run_time=2000-01-01T00:00:00Z`, resent, pull)).body.status).toBe('skipped');
      testApp.clock.advance(2 * 3_600_000);
      for (let i = 0; i < 2; i++) expect((await api.post(routes.load, loadBody(tenant))).status).toBe(200);

      const hourly = await seriesOf(api, 60);
      const points = hourly.PULL!;
      expect(points).toHaveLength(25);
      const starts = points.map((p) => Date.parse(p.start));
      expect(starts.every((s, i) => i === 0 || s - starts[i - 1]! === 3_600_000)).toBe(true);
      expect(starts[0]! % 3_600_000).toBe(0);
      expect(starts[0]).toBeLessThanOrEqual(testApp.clock.now().getTime() - 24 * 3_600_000);
      // The first burst lies two hours back: in the interval holding now - 2 h.
      const then = points.findIndex((p) => p.processed > 0);
      expect(points[then]).toMatchObject({ processed: 4, skipped: 1, rejected: 1, duplicate: 0 });
      expect(starts[then]).toBeLessThanOrEqual(testApp.clock.now().getTime() - 2 * 3_600_000);
      expect(total(points, 'processed')).toBe(4);
      expect(total(hourly.UNSPECIFIED!, 'processed')).toBe(2);
      expect(hourly.UNSPECIFIED!.at(-1)!.processed).toBe(2);
      expect(total(hourly.WEBHOOK!, 'processed') + total(hourly.WEBHOOK!, 'rejected')).toBe(0);

      const fine = await seriesOf(api, 5);
      expect(fine.PULL).toHaveLength(289);
      expect(total(fine.PULL!, 'processed')).toBe(4);
    } finally {
      testApp.clock.reset();
    }
  });

  test('an interval that is not a multiple of 5 minutes dividing a day is a validation error', async ({ api }) => {
    for (const m of [7, 0, 1445, 35]) {
      const { error } = await gqlError(api, 'query ($m: Int) { ingestHealth { sources { series(intervalMinutes: $m) { start } } } }', { m });
      expect(error.extensions, String(m)).toMatchObject({ code: 'validation_failed', details: [{ field: 'intervalMinutes' }] });
    }
  });
});
