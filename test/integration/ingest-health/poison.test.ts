/**
 * Issue 9, fuzzer finding: a NUL in a rejected record's permalink made every accounting flush fail
 * ("invalid byte sequence for encoding UTF8: 0x00"), retried forever, for every tenant, and lost at
 * shutdown. Text from a rejected body is made storable when recorded, and a row the database still
 * refuses is isolated and dropped alone.
 */
import { describe, expect, test } from '../../fixtures.js';
import { onCitus } from '../../setup/database.js';
import { carrierBody, routes, seed } from '../../factories/records.js';
import { apiFor, loggingApp, type TestApp } from '../../helpers/app.js';
import { storableText } from '../../../src/domain/ingest-health/recorder.js';
import type { RecordKind } from '../../../src/domain/registry.js';
import type { IngestOutcome } from '../../../src/domain/ingest-health/report.js';

async function storedCounts(testApp: TestApp, tenantId: string) {
  const rows = await testApp.database.db.prisma.ingestCount.groupBy({ by: ['outcome'], where: { tenantId }, _sum: { count: true } });
  return Object.fromEntries(rows.map((r) => [r.outcome, r._sum.count]));
}

describe('ingest accounting with hostile rejected bodies', () => {
  test('storableText replaces NUL and lone surrogates and never splits a surrogate pair', () => {
    expect(storableText('X\u0000-acme', 100)).toBe('X\uFFFD-acme');
    expect(storableText('a\uD800b\uDC00c', 100)).toBe('a\uFFFDb\uFFFDc');
    expect(storableText('😀😀😀', 2)).toBe('😀😀');
    expect(storableText('ok', 100)).toBe('ok');
  });

  test("a NUL in a rejected permalink is stored replaced, and other tenants' counts keep moving", async ({ testApp }) => {
    const { app } = await loggingApp(testApp);
    const a = await app.createTenant();
    const b = await app.createTenant();
    const apiA = apiFor(app, a.apiKey);
    const apiB = apiFor(app, b.apiKey);
    const bad = await apiA.post(routes.carrier, { native_system_carrier_permalink: `X\u0000-${a.slug}`, native_system_carrier_id: 'X' });
    expect(bad.status).toBe(400);
    await seed(apiB, routes.carrier, carrierBody(b));
    await app.app.services.recorder.flush();

    expect(await storedCounts(app, a.id)).toEqual({ rejected: 1 });
    expect(await storedCounts(app, b.id)).toEqual({ processed: 1 });
    const [rejection] = await app.database.db.prisma.ingestRejection.findMany({ where: { tenantId: a.id } });
    expect(rejection!.permalink).toBe(`X\uFFFD-${a.slug}`);

    // The next flush moves on (nothing was kept back to be retried).
    await seed(apiB, routes.carrier, carrierBody(b));
    await app.app.services.recorder.flush();
    expect(await storedCounts(app, b.id)).toEqual({ processed: 2 });
    const health = await apiA.graphql('{ ingestHealth { recentRejections { code permalink } } }');
    expect(health.body.data.ingestHealth.recentRejections).toEqual([{ code: 'validation_failed', permalink: `X\uFFFD-${a.slug}` }]);
  });

  test('hostile text in every stored rejection column (NUL, lone surrogates, over-long) is written at shutdown, nothing lost', async ({ testApp }) => {
    const { app, lines } = await loggingApp(testApp);
    const a = await app.createTenant();
    const apiA = apiFor(app, a.apiKey);
    const keys = [`k\u0000`, `\uD800`, 'x'.repeat(300)];
    for (const key of keys) {
      const res = await apiA.post(routes.carrier, {
        native_system_carrier_permalink: `${'\uDC00'.repeat(50)}\u0000${'x'.repeat(100)}-${a.slug}`,
        native_system_carrier_id: 'X',
        [key]: 1,
      });
      expect(res.status).toBe(400);
    }
    for (let i = 0; i < 3; i++) await seed(apiA, routes.carrier, carrierBody(a));
    await app.app.services.recorder.close();
    expect(await storedCounts(app, a.id)).toEqual({ processed: 3, rejected: 3 });
    const stored = await app.database.db.prisma.ingestRejection.findMany({ where: { tenantId: a.id } });
    expect(stored.map((r) => r.permalink)).toEqual(Array(3).fill(`${'\uFFFD'.repeat(51)}${'x'.repeat(49)}`));
    expect(lines.filter((l) => l.level >= 50)).toEqual([]);
  });

  // Not on Citus: a coordinator casts each value to its column's type before it routes the row, and a cast
  // cuts a varchar silently, so the too-long outcome is stored cut (`an_outcome_longe`) instead of refused.
  test.skipIf(onCitus())(
    'a row the database refuses is dropped alone (logged once, never retried); every other row is written (not on Citus)',
    async ({ testApp }) => {
      const { app, lines } = await loggingApp(testApp);
      const a = await app.createTenant();
      const b = await app.createTenant();
      const { recorder } = app.app.services;
      const event = (tenant: typeof a, kind: RecordKind) => ({
        tenantId: tenant.id,
        tenantSlug: tenant.slug,
        source: 'pull' as const,
        kind,
        outcome: 'processed' as const,
        at: app.clock.now(),
      });
      for (let i = 0; i < 5; i++) recorder.record(event(a, 'load'));
      // An outcome longer than its column (varchar(16)): refused by the database whatever is retried.
      recorder.record({ ...event(b, 'load'), outcome: 'an_outcome_longer_than_its_column' as IngestOutcome });
      recorder.record(event(b, 'carrier'));
      recorder.record({ ...event(b, 'stop'), outcome: 'rejected', rejection: { code: 'validation_failed', message: 'bad', permalink: 'P\u0000' } });
      await recorder.flush();

      expect(await storedCounts(app, a.id)).toEqual({ processed: 5 });
      expect(await storedCounts(app, b.id)).toEqual({ processed: 1, rejected: 1 });
      const dropped = lines.filter((l) => l.msg === 'ingest accounting dropped an event the database refuses to store');
      expect(dropped).toHaveLength(1);
      expect(dropped[0]!.level).toBe(50);

      recorder.record(event(a, 'load'));
      await recorder.flush();
      expect(await storedCounts(app, a.id)).toEqual({ processed: 6 });
      expect(lines.filter((l) => l.level >= 40)).toHaveLength(1);
    },
  );
});
