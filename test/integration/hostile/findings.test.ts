/**
 * Regressions found by the fuzzer (fuzz.test.ts), kept as plain cases: each failed before its fix.
 */
import { describe, expect, test } from '../../fixtures.js';
import { loadBody, routes } from '../../factories/records.js';

describe('fuzzer findings', () => {
  test.for([
    ['an extra value', { extra_note: 'x\uDBFFy' }, 'extra_note'],
    ['a nested extra value', { tms_meta: { note: ['ok', '\uDFFF'] } }, 'tms_meta.note.1'],
    ['an extra key', { 'k\uD800': 1 }, 'k\uFFFD'],
    ['a contract text field', { customer_name: '\uDFFF' }, 'customer_name'],
  ] as const)('a lone surrogate in %s is validation_failed (was a 500 from jsonb), nothing stored', async ([, extra, field], { api, tenant, testApp }) => {
    const body = loadBody(tenant, extra);
    const res = await api.post(routes.load, body);
    expect(res.status, JSON.stringify(res.body)).toBe(400);
    expect(res.body.error.code).toBe('validation_failed');
    expect(res.body.error.details.map((d: { field: string }) => d.field)).toEqual([field]);
    const stored = await testApp.database.db.prisma.load.count({ where: { tenantId: tenant.id, permalink: String(body.native_system_load_permalink) } });
    expect(stored).toBe(0);
  });

  test('a well-formed surrogate pair (emoji) is stored verbatim', async ({ api, tenant, testApp }) => {
    const body = loadBody(tenant, { customer_name: 'Ship 🚚', extra_note: '😀' });
    expect((await api.post(routes.load, body)).status).toBe(200);
    const load = await testApp.database.db.prisma.load.findFirstOrThrow({
      where: { tenantId: tenant.id, permalink: String(body.native_system_load_permalink) },
    });
    expect([load.customerName, (load.extra as Record<string, unknown>).extra_note]).toEqual(['Ship 🚚', '😀']);
  });
});
