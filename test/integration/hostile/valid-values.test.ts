/**
 * Valid-value property test (issue 16): every ingestion route, single and bulk, gets bodies whose
 * every field holds a value validation accepts, pushed to its edges: date-times with any offset up
 * to ±23:59 and years 0001–9999, integers and numbers at their bounds, texts exactly at their max
 * length in 1-, 2- and 3-byte characters (emoji, CJK, combining marks, controls), and unknown
 * fields with any JSON. Nothing may answer 5xx, no bulk record may fail as `internal`, and a
 * processed record's date-times are stored as the instants sent. Generated from the OpenAPI
 * document's request schemas, so a new field or route is covered without editing this test.
 *
 * `npm test` runs a few cases per route (FUZZ_RUNS, default 25); `npm run fuzz` runs it with the
 * fuzzer's counts. Replay a failure with `FUZZ_SEED=<seed> [FUZZ_PATH=<path>] npm run fuzz`.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { recordSpecOf, recordSpecs, type RecordKind } from '../../../src/domain/registry.js';
import { kindOf } from '../../../src/http/route.js';
import { validFromSchema, validDateTime, validText, type ValidContext } from '../../hostile/arbitraries.js';
import { expectRestContract, fuzzEnv, fuzzPath, fuzzRuns, fuzzSeed, seededTenant, send } from '../../hostile/harness.js';
import { resolveRef, restOperations, type Pool } from '../../hostile/surface.js';
import { createTestApp, type TestApp, type TestTenant } from '../../helpers/app.js';

console.log(`valid values: seed ${fuzzSeed}, ${fuzzRuns} cases per route (replay: FUZZ_SEED=${fuzzSeed} npm run fuzz)`);

let testApp: TestApp;
let tenant: TestTenant;
let pool: Pool;

beforeAll(async () => {
  testApp = await createTestApp({ env: fuzzEnv });
  ({ tenant, pool } = await seededTenant(testApp));
}, 120_000);

afterAll(async () => testApp?.close());

const zones = [
  'UTC',
  'America/Chicago',
  'Asia/Kathmandu',
  'Pacific/Chatham',
  'Pacific/Kiritimati',
  'America/Argentina/Buenos_Aires',
  ...Intl.supportedValuesOf('timeZone').slice(0, 20),
];

/** Valid values for the fields whose rules a JSON Schema cannot say: permalinks, the tenant slug, zone names. */
function context(kind: RecordKind): ValidContext {
  const own = recordSpecOf[kind].permalinkField;
  const slug = tenant.slug;
  const id = fc.stringMatching(/^[A-Za-z0-9._]{1,12}$/);
  return {
    resolve: resolveRef,
    special(field) {
      if (field === own)
        return fc.oneof(
          id.map((v) => `V${v}-${slug}`),
          fc.constantFrom(...(pool.get(field) ?? [`V1-${slug}`])),
        );
      if (field === 'company_permalink') return fc.constantFrom(slug, null);
      if (field.endsWith('_permalink')) {
        const known = pool.get(field);
        return known?.length ? fc.constantFrom(...known) : fc.constant(null);
      }
      if (field === 'timezone') return fc.constantFrom(...zones, null);
      const known = pool.get(field);
      if (known?.length) return fc.oneof(fc.constantFrom(...known), validText(0, 100));
      return null;
    },
  };
}

/** Date-time columns per kind (field → column), for the stored-instant check. */
const dateColumns = (kind: RecordKind) =>
  Object.entries(recordSpecOf[kind].columns as Record<string, { column: string; type: string }>).filter(([, c]) => c.type === 'timestamptz');

/** The routes that write values: upserts and creates, single and bulk (a delete's body is a permalink only; the fuzzer and the delete tests cover it). */
const operations = restOperations().filter((op) => kindOf(op.route) && op.bodySchema && !/delete$/.test(op.path));
const timeout = 120_000 + fuzzRuns * 400;

describe('valid values: whatever validation accepts is stored, never a 5xx', () => {
  test('every upsert and create route is covered (single and bulk)', () => {
    expect(operations.length).toBe(recordSpecs.length * 2);
  });

  const processed = new Map<RecordKind, number>();

  test.for(operations.map((op) => [op.name, op] as const))('%s', { timeout }, async ([name, op]) => {
    const kind = kindOf(op.route)!;
    const spec = recordSpecOf[kind];
    const honours = op.parameters.some((p) => p.in === 'query' && p.name === 'sync_run_time');
    const body = validFromSchema(op.bodySchema!, context(kind));
    await fc.assert(
      fc.asyncProperty(body, fc.option(validDateTime, { freq: 4 }), async (value, sync) => {
        const path = honours && sync ? `${op.path}?sync_run_time=${encodeURIComponent(sync)}` : op.path;
        const answer = await send(testApp, path, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': tenant.apiKey },
          body: JSON.stringify(value),
        });
        expectRestContract(answer);
        const results: { status?: string; permalink?: string; error?: { code: string } }[] =
          answer.body.results ?? (answer.status === 200 ? [answer.body] : []);
        const records: Record<string, unknown>[] = (value as { records?: Record<string, unknown>[] }).records ?? [value as Record<string, unknown>];
        for (const [i, result] of results.entries()) {
          expect(result.error?.code, `${name}: record ${i} ${JSON.stringify(result)}`).not.toBe('internal');
          if (result.status !== 'processed') continue;
          processed.set(kind, (processed.get(kind) ?? 0) + 1);
          // The row holds the last processed record with this permalink (results are in request order).
          const later = results.slice(i + 1).some((r) => r.status === 'processed' && r.permalink === result.permalink);
          if (later) continue;
          const sent = records[i]!;
          for (const [field, { column }] of dateColumns(kind)) {
            if (typeof sent[field] !== 'string') continue;
            const [row] = await testApp.database.db.sql.query<{ ms: number | string }>(
              `SELECT extract(epoch FROM ${column}) * 1000 AS ms FROM ${spec.table} WHERE tenant_id = $1 AND permalink = $2`,
              [tenant.id, result.permalink],
            );
            expect(Number(row!.ms), `${name}: ${field} ${String(sent[field])}`).toBe(Date.parse(sent[field]));
          }
        }
      }),
      { numRuns: fuzzRuns, seed: fuzzSeed, path: fuzzPath, endOnFailure: true },
    );
  });

  test('every kind had records processed (the values reached the database)', () => {
    for (const kind of new Set(operations.map((op) => kindOf(op.route)!))) expect(processed.get(kind) ?? 0, kind).toBeGreaterThan(0);
  });
});
