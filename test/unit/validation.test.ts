import fc from 'fast-check';
import { describe, expect, test } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { buildUpsertStatement } from '../../src/db/record-statements.js';
import { ingestSourceOf } from '../../src/domain/ingest-health/report.js';
import { loadLegRecord } from '../../src/domain/load-leg/schema.js';
import { recordTableOf } from '../../src/domain/ingestion/record-tables.js';
import { isInDateRange, isTimeZone } from '../../src/domain/declaration/fields.js';
import { createValidator, maxClockSkewMs, nulIssues, permalinkIssue, syncRunTimeIssue } from '../../src/domain/declaration/validate.js';
import { jsonDepth, parseJsonObject } from '../../src/domain/ingestion/json-body.js';
import { contractTables } from '../integration/rest/contract.js';
import { recordSpecs } from '../../src/domain/registry.js';
import { bodyOf, parentBodies } from '../factories/records.js';
import { carrierRecord } from '../../src/domain/carrier/schema.js';
import { stopRecord } from '../../src/domain/stop/schema.js';

const tenant = { id: '00000000-0000-0000-0000-000000000001', slug: 'acme', name: 'Acme', tmsUrlTemplate: null };
const now = new Date('2026-05-01T12:00:00Z');

describe('schemas match the contract tables', () => {
  test.each(recordSpecs.map((record) => [record.label, record] as const))('%s: the same fields, each with its x-service-importance', (_label, record) => {
    const fields = contractTables[record.kind];
    const shape = (record.body as unknown as { shape: Record<string, { meta(): Record<string, unknown> | undefined }> }).shape;
    expect(Object.keys(shape).sort()).toEqual(Object.keys(fields).sort());
    for (const [name, field] of Object.entries(fields)) expect(shape[name]!.meta()?.['x-service-importance'], name).toBe(field.importance);
  });
});

describe.each(recordSpecs.map((record) => [record.kind, record] as const))('the validator of %s (every kind of the registry)', (kind, record) => {
  const validate = createValidator(record);
  const full = () => bodyOf(kind, tenant, parentBodies(tenant), 'full');

  test('accepts a body with every contract field, and keeps fields beyond the contract as extra', () => {
    const body = full();
    expect(Object.keys(body).sort()).toEqual(Object.keys(contractTables[kind]).sort());
    const result = validate(tenant, { ...body, tms_custom: 1 });
    expect(result.ok ? result.record.extra : result.issues).toEqual({ tms_custom: 1 });
  });

  test('refuses a body without its own permalink, or with one of another tenant', () => {
    const { [record.permalinkField]: _permalink, ...rest } = full();
    expect(validate(tenant, rest)).toMatchObject({ ok: false, issues: expect.arrayContaining([{ field: record.permalinkField, issue: 'is required' }]) });
    const foreign = validate(tenant, { ...full(), [record.permalinkField]: 'X1-other' });
    expect(foreign).toMatchObject({ ok: false, issues: expect.arrayContaining([expect.objectContaining({ field: record.permalinkField })]) });
  });

  test('company_permalink of another tenant throws tenant_mismatch', () => {
    expect(() => validate(tenant, { ...full(), company_permalink: 'other' })).toThrow(expect.objectContaining({ code: 'tenant_mismatch' }));
  });
});

describe('permalinkIssue', () => {
  test('accepts <non-empty id>-<slug> for any id', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 1 }), (id) => {
        expect(permalinkIssue('f', `${id}-acme`, 'acme')).toBeNull();
      }),
    );
  });
  test('rejects anything not ending in -<slug>, and the bare suffix', () => {
    fc.assert(
      fc.property(fc.string(), (value) => {
        fc.pre(!value.endsWith('-acme'));
        expect(permalinkIssue('f', value, 'acme')).toEqual({ field: 'f', issue: expect.stringContaining('acme') });
      }),
    );
    expect(permalinkIssue('f', '-acme', 'acme')).not.toBeNull();
  });
});

describe('syncRunTimeIssue', () => {
  test('accepts up to exactly 5 minutes ahead and rejects one millisecond more', () => {
    expect(syncRunTimeIssue(new Date(now.getTime() + maxClockSkewMs), now)).toBeNull();
    expect(syncRunTimeIssue(new Date(now.getTime() + maxClockSkewMs + 1), now)).toMatchObject({ field: 'sync_run_time' });
    expect(syncRunTimeIssue(new Date('1990-01-01T00:00:00Z'), now)).toBeNull();
    expect(syncRunTimeIssue(null, now)).toBeNull();
  });
});

describe('createValidator', () => {
  const validate = createValidator(carrierRecord);
  const valid = { native_system_carrier_permalink: 'C1-acme', native_system_carrier_id: 'C1' };

  test('max lengths hold at the limit and fail one over, for any characters', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 250, maxLength: 251, unit: 'grapheme-ascii' }), (name) => {
        const result = validate(tenant, { ...valid, carrier_name: name });
        expect(result.ok).toBe(name.length <= 250);
      }),
    );
  });

  test('range and format issues are worded by the service, one per field, whatever the bad value', () => {
    const validateStop = createValidator(stopRecord);
    const stop = {
      native_system_stop_permalink: 'S1-acme',
      native_system_stop_id: 'S1',
      native_system_load_leg_permalink: 'L1-acme',
      stop_sequence: 1,
      stop_type: 'pickup',
    };
    const outside = (min: number, max: number) =>
      fc.oneof(
        fc.double({ max: min, noNaN: true, noDefaultInfinity: true, maxExcluded: true }),
        fc.double({ min: max, noNaN: true, noDefaultInfinity: true, minExcluded: true }),
      );
    fc.assert(
      fc.property(
        outside(-90, 90),
        outside(-180, 180),
        fc.integer({ max: 0 }),
        fc.string().filter((v) => v !== 'pickup' && v !== 'delivery'),
        (lat, lon, sequence, type) => {
          const result = validateStop(tenant, { ...stop, latitude: lat, longitude: lon, stop_sequence: sequence, stop_type: type, arrived_at: 'soon' });
          expect(result.ok ? [] : result.issues).toEqual([
            { field: 'stop_sequence', issue: 'must be between 1 and 2147483647' },
            { field: 'stop_type', issue: 'must be one of pickup, delivery' },
            { field: 'latitude', issue: 'must be between -90 and 90' },
            { field: 'longitude', issue: 'must be between -180 and 180' },
            { field: 'arrived_at', issue: 'must be an ISO 8601 date-time with a zone, e.g. 2026-05-01T14:00:00Z' },
          ]);
        },
      ),
    );
  });

  test('splits extra fields from contract fields, keeping __proto__ as data', () => {
    const input = JSON.parse('{"native_system_carrier_permalink":"C1-acme","native_system_carrier_id":"C1","x":1,"__proto__":{"y":2}}');
    const result = validate(tenant, input);
    expect(result.ok && Object.keys(result.record.extra)).toEqual(['x', '__proto__']);
  });

  test('a missing field is "required"; only a field that takes null suggests sending null', () => {
    const result = validate(tenant, {});
    expect(result.ok).toBe(false);
    const issues = Object.fromEntries((result.ok ? [] : result.issues).map((i) => [i.field, i.issue]));
    expect(issues.native_system_carrier_permalink).toBe('is required'); // null is refused there
    expect(issues.native_system_carrier_id).toBe('is required (send null when unknown)');
    expect(validate(tenant, { native_system_carrier_permalink: null, native_system_carrier_id: null }).ok).toBe(false);
    expect(validate(tenant, { ...valid, native_system_carrier_id: null }).ok).toBe(true);
  });

  test('company_permalink of another tenant throws tenant_mismatch before any other check', () => {
    expect(() => validate(tenant, { company_permalink: 'other' })).toThrow(expect.objectContaining({ code: 'tenant_mismatch' }));
  });
});

describe('nulIssues', () => {
  test('finds NUL characters in nested values and names, by path', () => {
    expect(nulIssues({ a: { b: ['ok', 'x\u0000'] }, 'k\u0000': 1, c: 'fine' }).map((i) => i.field)).toEqual(['a.b.1', 'k\\u0000']);
    expect(nulIssues({ a: 1, b: null, c: [true] })).toEqual([]);
  });
});

describe('fields', () => {
  test('isInDateRange accepts years 0001..9999 in UTC only', () => {
    expect(isInDateRange('0001-01-01T00:00:00Z')).toBe(true);
    expect(isInDateRange('9999-12-31T23:59:59.999Z')).toBe(true);
    expect(isInDateRange('0000-12-31T23:59:59Z')).toBe(false);
    expect(isInDateRange('9999-12-31T23:59:59-01:00')).toBe(false);
  });
  test('isTimeZone knows IANA names only', () => {
    expect(isTimeZone('America/Chicago')).toBe(true);
    expect(isTimeZone('Nowhere/Special')).toBe(false);
    expect(isTimeZone('')).toBe(false);
  });
});

describe('ingestSourceOf', () => {
  test('pull and webhook in any case and spacing; absent is unspecified; anything else validation_failed', () => {
    expect(ingestSourceOf(null)).toBe('unspecified');
    expect(ingestSourceOf(' PuLL ')).toBe('pull');
    expect(ingestSourceOf('WEBHOOK')).toBe('webhook');
    for (const bad of ['', 'push', 'unspecified', 'pull webhook']) {
      expect(() => ingestSourceOf(bad)).toThrow(expect.objectContaining({ code: 'validation_failed' }));
    }
  });
});

describe('request bodies', () => {
  test('jsonDepth ignores brackets inside strings, including escaped quotes', () => {
    expect(jsonDepth('{"a":[[1]]}')).toBe(3);
    expect(jsonDepth('{"a":"[[[[\\"[[["}')).toBe(1);
    expect(jsonDepth('"x"')).toBe(0);
  });
  test('parseJsonObject accepts objects only', () => {
    expect(parseJsonObject('{"a":1}')).toEqual({ a: 1 });
    for (const bad of ['[]', 'null', '1', '{', `${'['.repeat(65)}${']'.repeat(65)}`]) {
      expect(() => parseJsonObject(bad)).toThrow(expect.objectContaining({ code: 'invalid_json' }));
    }
  });
});

describe('upsert statement parameters', () => {
  const statement = buildUpsertStatement(recordTableOf(loadLegRecord));
  test('fixed parameters, then the rows as one JSON array: each value under its column (absent or undefined → null), each parent permalink beside it', () => {
    const params = statement.params({
      tenantId: tenant.id,
      now,
      syncRunTime: null,
      present: ['tms_id'],
      rows: [{ permalink: 'G1-acme', extra: { a: 1 }, values: { tms_id: 'G1', sequence: undefined }, parents: { load_id: 'L1-acme' } }],
    });
    expect(params).toEqual([tenant.id, now, expect.any(String), null, ['tms_id']]);
    const [row] = JSON.parse(params[2] as string) as Record<string, unknown>[];
    expect(row).toMatchObject({
      ord: 0,
      permalink: 'G1-acme',
      extra: { a: 1 },
      tms_id: 'G1',
      sequence: null,
      load_id_permalink: 'L1-acme',
      carrier_id_permalink: null,
    });
    // Every column travels, the absent ones as null (the keep-unless-sent rule reads `present`, not the row).
    expect(Object.keys(row!)).toHaveLength(3 + recordTableOf(loadLegRecord).columns.length + 2);
    expect(row!.status).toBeNull();
    expect(statement.text).toContain('$5');
    expect(statement.text).not.toContain('$6');
  });
  test('reads which parents were found, by column, in input order (rows the statement did not return were not written)', () => {
    expect(
      statement.read(
        [
          { ord: 1, inserted: true, load_id_found: true, carrier_id_found: null },
          { ord: 0, inserted: null, load_id_found: false, carrier_id_found: null },
        ],
        3,
      ),
    ).toEqual([
      { inserted: null, parents: { load_id: false, carrier_id: null } },
      { inserted: true, parents: { load_id: true, carrier_id: null } },
      { inserted: null, parents: { load_id: null, carrier_id: null } },
    ]);
  });
});

describe('loadConfig', () => {
  test('defaults, blank values as unset, and every problem reported at once', () => {
    const config = loadConfig({ PORT: '', DATABASE_POOL_SIZE: '5' });
    expect(config.http).toMatchObject({ port: 4000, maxBodyBytes: 1_048_576 });
    expect(config.db.poolSize).toBe(5);
    expect(config.admin).toBeNull();
    expect(() => loadConfig({ PORT: '99999', DATABASE_URL: 'mysql://x', ADMIN_API_KEY: 'short' })).toThrow(
      /PORT[\s\S]*DATABASE_URL[\s\S]*ADMIN_API_KEY|DATABASE_URL[\s\S]*PORT/,
    );
  });

  test('an invalid configuration throws a ConfigError (main.ts and the tenant CLI recognise it by class)', () => {
    expect(() => loadConfig({ PORT: 'x' })).toThrow(ConfigError);
    expect(() => loadConfig({ PORT: 'x' })).toThrow(expect.objectContaining({ name: 'ConfigError' }));
  });
});
