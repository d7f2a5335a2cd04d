/**
 * Behaviour every upsert route shares (carriers, loads, legs, stops): idempotent upsert by permalink,
 * absent vs null on update, extra fields kept and merged, and `sync_run_time` (honoured or ignored).
 * Stored state is read back from the database, since the REST answer only names the outcome.
 */
import { describe, expect, test } from '../../fixtures.js';
import type { Api, TestApp, TestTenant } from '../../helpers/app.js';
import { expectInvalid, expectProcessed } from './field-rules.js';
import { routes } from '../../factories/records.js';

type Body = Record<string, unknown>;
type Row = Record<string, unknown> & { extra: unknown; freshAt: Date };

export interface UpsertBehaviourOptions {
  route: string;
  permalinkField: string;
  validBody(api: Api, tenant: TestTenant): Promise<Body>;
  /** The stored rows with this permalink (of any tenant). */
  rows(testApp: TestApp, permalink: string): Promise<Row[]>;
  /** A recommended or optional body field and its column. */
  optional: { field: string; column: string; value: unknown };
  /** Whether the route honours `sync_run_time`. */
  syncRunTime: boolean;
}

export function describeUpsertBehaviour(o: UpsertBehaviourOptions) {
  const storedOf = async (testApp: TestApp, body: Body) => {
    const rows = await o.rows(testApp, body[o.permalinkField] as string);
    expect(rows).toHaveLength(1);
    return rows[0]!;
  };
  const at = (iso: string) => `${o.route}?sync_run_time=${encodeURIComponent(iso)}`;

  describe(`upsert behaviour of POST ${o.route}`, () => {
    test('posting the same permalink twice keeps one record: created, then updated', async ({ api, tenant, testApp }) => {
      const body = await o.validBody(api, tenant);
      const first = await api.post(o.route, body);
      // A load's answer also names the phase its status maps to (its load update's too; the other kinds have no phase).
      const phase = o.route === routes.load ? { phase: expect.any(String) } : {};
      expect(first.body).toEqual({
        status: 'processed',
        message: expect.stringContaining('created'),
        permalink: body[o.permalinkField],
        unknown_fields: [],
        suggestions: [],
        ...phase,
      });
      const second = await api.post(o.route, { ...body, [o.optional.field]: o.optional.value });
      expect(second.body).toEqual({
        status: 'processed',
        message: expect.stringContaining('updated'),
        permalink: body[o.permalinkField],
        unknown_fields: [],
        suggestions: [],
        ...phase,
      });
      expect((await storedOf(testApp, body))[o.optional.column]).toEqual(o.optional.value);
    });

    test('on update, an absent field keeps its stored value and a null clears it', async ({ api, tenant, testApp }) => {
      const body = await o.validBody(api, tenant);
      expectProcessed(await api.post(o.route, body));
      const stored = (await storedOf(testApp, body))[o.optional.column];
      expect(stored).not.toBeNull();

      const { [o.optional.field]: _left, ...withoutField } = body;
      expectProcessed(await api.post(o.route, withoutField));
      expect((await storedOf(testApp, body))[o.optional.column]).toEqual(stored);

      expectProcessed(await api.post(o.route, { ...body, [o.optional.field]: null }));
      expect((await storedOf(testApp, body))[o.optional.column]).toBeNull();
    });

    test('keeps fields beyond the contract verbatim in extra, unvalidated, and merges them by key', async ({ api, tenant, testApp }) => {
      const body = await o.validBody(api, tenant);
      const long = 'z'.repeat(5000);
      expectProcessed(await api.post(o.route, { ...body, tms_color: 'red', tms_meta: { a: 1 }, tms_note: long, tms_count: 3 }));
      expect((await storedOf(testApp, body)).extra).toEqual({ tms_color: 'red', tms_meta: { a: 1 }, tms_note: long, tms_count: 3 });

      expectProcessed(await api.post(o.route, { ...body, tms_meta: { b: 2 }, tms_count: null, tms_new: [1, 2] }));
      expect((await storedOf(testApp, body)).extra).toEqual({ tms_color: 'red', tms_meta: { b: 2 }, tms_note: long, tms_count: null, tms_new: [1, 2] });
    });

    test('keeps an extra field even when it is named __proto__', async ({ api, tenant, testApp }) => {
      const body = await o.validBody(api, tenant);
      const text = JSON.stringify(body).replace(/}$/, ',"__proto__":{"polluted":true}}');
      expectProcessed(await api.post(o.route, text));
      expect((await storedOf(testApp, body)).extra).toEqual(JSON.parse('{"__proto__":{"polluted":true}}'));
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    });

    test('a NUL character in an extra field (name or value) is a 400 naming it', async ({ api, tenant, testApp }) => {
      const body = await o.validBody(api, tenant);
      expectInvalid(await api.post(o.route, { ...body, tms_meta: { note: 'a\u0000b' } }), 'tms_meta.note', /NUL/);
      expectInvalid(await api.post(o.route, { ...body, 'bad\u0000key': 1 }), 'bad\\u0000key', /NUL/);
      expect(await o.rows(testApp, body[o.permalinkField] as string)).toHaveLength(0);
    });

    if (!o.syncRunTime) {
      test('ignores sync_run_time, even an invalid or older one', async ({ api, tenant, testApp }) => {
        const body = await o.validBody(api, tenant);
        expectProcessed(await api.post(at('2026-01-02T00:00:00Z'), body));
        expectProcessed(await api.post(at('2000-01-01T00:00:00Z'), { ...body, [o.optional.field]: o.optional.value }));
        expect((await storedOf(testApp, body))[o.optional.column]).toEqual(o.optional.value);
        expectProcessed(await api.post(at('not-a-date'), body));
      });
      return;
    }

    describe('sync_run_time', () => {
      test('older than the stored freshness: skipped, and nothing (fields, extra, freshness) is overwritten', async ({ api, tenant, testApp }) => {
        const body = await o.validBody(api, tenant);
        expectProcessed(await api.post(at('2026-01-02T00:00:00Z'), { ...body, tms_v: 1 }));
        const before = await storedOf(testApp, body);
        const res = await api.post(at('2026-01-01T23:59:59.999Z'), { ...body, [o.optional.field]: o.optional.value, tms_v: 2 });
        expect(res.status).toBe(200);
        expect(res.body).toEqual({
          status: 'skipped',
          message: expect.stringContaining('sync_run_time'),
          permalink: body[o.permalinkField],
          unknown_fields: ['tms_v'],
          suggestions: [],
        });
        expect(await storedOf(testApp, body)).toEqual(before);
      });

      test('equal to or newer than the stored freshness: processed, and the freshness moves to it', async ({ api, tenant, testApp }) => {
        const body = await o.validBody(api, tenant);
        expectProcessed(await api.post(at('2026-01-02T00:00:00Z'), body));
        expectProcessed(await api.post(at('2026-01-02T00:00:00Z'), { ...body, [o.optional.field]: o.optional.value }));
        expect((await storedOf(testApp, body))[o.optional.column]).toEqual(o.optional.value);
        expectProcessed(await api.post(at('2026-01-03T01:00:00+01:00'), body));
        expect((await storedOf(testApp, body)).freshAt.toISOString()).toBe('2026-01-03T00:00:00.000Z');
      });

      test('a new record is processed whatever its sync_run_time', async ({ api, tenant }) => {
        expectProcessed(await api.post(at('2001-01-01T00:00:00Z'), await o.validBody(api, tenant)));
      });

      test('a post without sync_run_time is applied and makes the record as fresh as the service clock', async ({ api, tenant, testApp }) => {
        const body = await o.validBody(api, tenant);
        expectProcessed(await api.post(at('2026-01-02T00:00:00Z'), body));
        expectProcessed(await api.post(o.route, { ...body, [o.optional.field]: o.optional.value }));
        const stored = await storedOf(testApp, body);
        expect(stored[o.optional.column]).toEqual(o.optional.value);
        // A sync that started before this event-driven write is skipped.
        const syncStart = new Date(stored.freshAt.getTime() - 1000).toISOString();
        expect((await api.post(at(syncStart), body)).body.status).toBe('skipped');
      });

      test('an invalid value is a 400 listed with the body issues, and nothing is stored', async ({ api, tenant, testApp }) => {
        const body = await o.validBody(api, tenant);
        for (const bad of ['yesterday', '2026-01-02', '2026-01-02T00:00:00', '', '0000-01-01T00:00:00Z']) {
          expectInvalid(await api.post(at(bad), body), 'sync_run_time');
        }
        const res = await api.post(at('nope'), { ...body, [o.optional.field]: 12345 });
        expectInvalid(res, 'sync_run_time');
        expectInvalid(res, o.optional.field);
        expect(await o.rows(testApp, body[o.permalinkField] as string)).toHaveLength(0);
      });

      test('up to 5 minutes ahead of the service clock is accepted; further ahead is a 400', async ({ api, tenant, testApp }) => {
        const body = await o.validBody(api, tenant);
        // The test clock runs 1 hour ahead: the rule reads the service clock, not the machine's.
        testApp.clock.advance(3_600_000);
        try {
          const now = testApp.clock.now().getTime();
          expectProcessed(await api.post(at(new Date(now + 4 * 60_000).toISOString()), body));
          expectInvalid(await api.post(at(new Date(now + 6 * 60_000).toISOString()), body), 'sync_run_time', /5 minutes/);
        } finally {
          testApp.clock.advance(-3_600_000);
        }
      });
    });
  });
}
