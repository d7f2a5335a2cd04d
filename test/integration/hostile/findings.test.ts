/**
 * Regressions found by the fuzzers (fuzz.test.ts, valid-values.test.ts, and the external fuzzer of
 * issue 16), kept as plain cases: each failed before its fix.
 */
import { recordSpecs } from '../../../src/domain/registry.js';
import { openApiDocument } from '../../../src/routes.js';
import { bulkRestPath, restPath } from '../../../src/domain/declaration/record.js';
import { describe, expect, testWith } from '../../fixtures.js';
import { bodyMaker, loadBody, routes } from '../../factories/records.js';
import { toInput } from '../../factories/graphql.js';

/** Webhook endpoints may name 127.0.0.1 here (the foreign-endpoint case creates one). */
const test = testWith({ env: { WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true' } });

type Json = Record<string, unknown>;

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

/** Every date-time field of every kind (the columns of type timestamptz). */
const dateFields = recordSpecs.flatMap((spec) =>
  Object.entries(spec.columns as Record<string, { column: string; type: string }>)
    .filter(([, c]) => c.type === 'timestamptz')
    .map(([field, { column }]) => ({ kind: spec.kind, table: spec.table, field, column })),
);

describe('issue 16: what validation accepts is stored', () => {
  test('the date-time fields are known (the sweep below is not empty)', () => {
    expect(dateFields.map((f) => `${f.kind}.${f.field}`).sort()).toEqual([
      'load_update.eta',
      'load_update.occurred_at',
      'stop.appointment_end',
      'stop.appointment_start',
      'stop.arrived_at',
      'stop.departed_at',
    ]);
  });

  test.for(dateFields.map((f) => [`${f.kind}.${f.field}`, f] as const))(
    '%s: any offset validation accepts (±23:59, PostgreSQL takes ±15:59) is stored as the same instant in UTC',
    async ([, { kind, table, field, column }], { api, tenant, testApp }) => {
      const make = await bodyMaker(api, tenant);
      const spec = recordSpecs.find((s) => s.kind === kind)!;
      for (const value of ['2026-11-25T10:00:00+16:00', '2026-11-25T10:00:00.5-23:59', '2026-11-25T10:00:00+23:59', '0001-01-02T00:00:00+23:59']) {
        const body = make(kind, { [field]: value });
        const res = await api.post(restPath(spec), body);
        expect(res.status, `${value}: ${JSON.stringify(res.body)}`).toBe(200);
        // The instant as milliseconds since the epoch (a Date read back for year 0001 is not trustworthy in every driver).
        const [row] = await testApp.database.db.sql.query<{ ms: number | string }>(
          `SELECT extract(epoch FROM ${column}) * 1000 AS ms FROM ${table} WHERE tenant_id = $1 AND permalink = $2`,
          [tenant.id, res.body.permalink],
        );
        expect(Number(row!.ms), value).toBe(Date.parse(value));
      }
    },
  );

  test('validation and the columns agree: every text field fits its column, every number its column type', async ({ testApp }) => {
    const columns = await testApp.database.db.sql.query<{ table_name: string; column_name: string; data_type: string; max: number | null }>(
      `SELECT table_name, column_name, data_type, character_maximum_length AS max FROM information_schema.columns WHERE table_schema = current_schema()`,
      [],
    );
    const columnOf = (table: string, column: string) => columns.find((c) => c.table_name === table && c.column_name === column)!;
    let checked = 0;
    for (const spec of recordSpecs) {
      // The request body schema as the served document gives it: what validation accepts.
      const properties = (openApiDocument.components?.schemas?.[spec.body.meta()!.id as string] as { properties: Record<string, Json> }).properties;
      for (const [field, { column, type }] of Object.entries(spec.columns as Record<string, { column: string; type: string }>)) {
        const schema = properties[field]!;
        const accepted = (schema.anyOf as Json[] | undefined)?.find((s) => s.type !== 'null') ?? schema;
        const stored = columnOf(spec.table, column);
        expect(stored, `${spec.table}.${column}`).toBeDefined();
        if (type === 'text') {
          // Validation counts UTF-16 code units, the column characters: a string that fits validation fits the column.
          expect(typeof accepted.maxLength, `${spec.kind}.${field} has a max length`).toBe('number');
          if (stored.max !== null) expect(accepted.maxLength as number, `${spec.kind}.${field} vs ${spec.table}.${column}`).toBeLessThanOrEqual(stored.max);
        }
        if (type === 'int') {
          expect(stored.data_type).toBe('integer');
          expect([accepted.minimum, accepted.maximum]).toEqual([1, 2 ** 31 - 1]);
        }
        if (type === 'float8') expect(stored.data_type, `${spec.table}.${column}`).toBe('double precision');
        if (type === 'timestamptz') expect(stored.data_type).toBe('timestamp with time zone');
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(50);
  });
});

describe('issue 16: one record the database refuses does not fail its bulk request', () => {
  /**
   * A record the database refuses although validation accepted it: the test database gets a CHECK
   * constraint refusing permalinks that start with POISON (this file's database only).
   */
  const poisoned = new Set<string>();
  const poison = async (testApp: { database: { db: { sql: { query: (text: string, params: unknown[]) => Promise<unknown> } } } }, table: string) => {
    if (poisoned.has(table)) return;
    poisoned.add(table);
    await testApp.database.db.sql.query(`ALTER TABLE ${table} ADD CONSTRAINT ${table}_poison CHECK (permalink NOT LIKE 'POISON%')`, []);
  };

  test.for(recordSpecs.flatMap((spec) => (['start', 'middle', 'end'] as const).map((at) => [spec.kind, at] as const)))(
    '%s bulk route, the refused record at the %s: it answers internal, the others are written',
    async ([kind, at], { api, tenant, testApp }) => {
      const spec = recordSpecs.find((s) => s.kind === kind)!;
      await poison(testApp, spec.table);
      const make = await bodyMaker(api, tenant);
      const records = Array.from({ length: 5 }, () => make(kind));
      const badIndex = { start: 0, middle: 2, end: 4 }[at];
      const good = records[badIndex]![spec.permalinkField] as string;
      records[badIndex] = { ...records[badIndex], [spec.permalinkField]: `POISON${good}` };
      const res = await api.post(bulkRestPath(spec), { records });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      res.body.results.forEach((result: { status?: string; error?: { code: string; message: string } }, i: number) => {
        if (i === badIndex) expect(result.error, JSON.stringify(result)).toEqual({ code: 'internal', message: expect.stringContaining('could not be stored') });
        else expect(result.status, JSON.stringify(result)).toBe('processed');
      });
      const stored = await testApp.database.db.sql.query<{ permalink: string }>(
        `SELECT permalink FROM ${spec.table} WHERE tenant_id = $1 AND permalink = ANY($2::text[])`,
        [tenant.id, records.map((r) => r[spec.permalinkField])],
      );
      expect(stored.map((r) => r.permalink).sort()).toEqual(
        records
          .filter((_, i) => i !== badIndex)
          .map((r) => r[spec.permalinkField])
          .sort(),
      );
    },
  );

  test('the GraphQL bulk mutation too: the refused input answers internal, the others are written', async ({ api, tenant, testApp }) => {
    await poison(testApp, 'loads');
    const inputs = [loadBody(tenant), loadBody(tenant), loadBody(tenant)];
    inputs[1]!.native_system_load_permalink = `POISON${String(inputs[1]!.native_system_load_permalink)}`;
    const res = await api.graphql('mutation ($inputs: [LoadInput!]!) { bulkUpsertLoads(inputs: $inputs) { index status permalink error { code } } }', {
      inputs: inputs.map(toInput),
    });
    expect(res.body.errors, JSON.stringify(res.body)).toBeUndefined();
    expect(res.body.data.bulkUpsertLoads.map((r: { status: string; error: { code: string } | null }) => r.error?.code ?? r.status)).toEqual([
      'PROCESSED',
      'internal',
      'PROCESSED',
    ]);
    expect(await testApp.database.db.prisma.load.count({ where: { tenantId: tenant.id } })).toBe(2);
  });

  test('a single record the database refuses still answers 500 internal, and nothing is stored', async ({ api, tenant, testApp }) => {
    await poison(testApp, 'loads');
    const body = loadBody(tenant);
    body.native_system_load_permalink = `POISON${String(body.native_system_load_permalink)}`;
    const res = await api.post(routes.load, body);
    expect(res.status).toBe(500);
    expect(res.body.error.code).toBe('internal');
    expect(await testApp.database.db.prisma.load.count({ where: { tenantId: tenant.id } })).toBe(0);
  });
});

describe('issue 16: bulk requests with a bad sync_run_time', () => {
  test.for(recordSpecs.filter((spec) => spec.freshness === 'sync_run_time').map((spec) => [spec.kind, spec] as const))(
    '%s: 400 validation_failed for the request (as the single route), nothing written',
    async ([kind, spec], { api, tenant, testApp }) => {
      const make = await bodyMaker(api, tenant);
      const records = [make(kind), make(kind)];
      for (const path of [restPath(spec), bulkRestPath(spec)]) {
        const res = await api.post(`${path}?sync_run_time=yesterday`, path === restPath(spec) ? records[0] : { records });
        expect(res.status, `${path}: ${JSON.stringify(res.body)}`).toBe(400);
        expect(res.body.error).toMatchObject({ code: 'validation_failed', details: [{ field: 'sync_run_time' }] });
      }
      const stored = await testApp.database.db.sql.query(`SELECT 1 FROM ${spec.table} WHERE tenant_id = $1 AND permalink = ANY($2::text[])`, [
        tenant.id,
        records.map((r) => r[spec.permalinkField]),
      ]);
      expect(stored).toEqual([]);
    },
  );
});

describe('issue 16: GraphQL never shows internal text', () => {
  test("webhookEndpoint with an unknown, malformed or another tenant's id answers null, deliveries selected", async ({ api, otherApi }) => {
    const created = await otherApi.graphql(
      'mutation { createWebhookEndpoint(input: { url: "http://127.0.0.1:9/hook", eventTypes: ["load.created"] }) { endpoint { id } } }',
    );
    const foreign = created.body.data?.createWebhookEndpoint?.endpoint?.id as string;
    expect(foreign, JSON.stringify(created.body)).toMatch(/^[0-9a-f-]{36}$/);
    for (const id of [foreign, '00000000-0000-4000-8000-000000000001', 'not-a-uuid']) {
      const res = await api.graphql('query ($id: ID!) { webhookEndpoint(id: $id) { id url deliveries { id attempts { httpStatus } } } }', { id });
      expect(res.body, id).toEqual({ data: { webhookEndpoint: null } });
    }
  });
});
