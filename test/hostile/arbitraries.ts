/**
 * Hostile values for property-based fuzzing (fast-check): strings with NUL, lone surrogates, SQL and
 * script payloads; huge and odd numbers; prototype-pollution keys; deep nesting; raw bodies that are
 * not JSON or not UTF-8. Values are generated from a JSON Schema (the OpenAPI document's request
 * bodies, bulk envelopes included) or a GraphQL input type (schema introspection): mostly close to
 * valid so requests reach the database, with hostile parts mixed in.
 */
import fc from 'fast-check';
import { toWellFormed } from '../../src/domain/declaration/fields.js';

/** Payloads that must be stored verbatim, never executed, and never reflected unescaped. */
export const injectionPayloads = [
  "'; DROP TABLE loads; --",
  "' OR '1'='1",
  '" OR 1=1 --',
  '1); DELETE FROM carriers WHERE (1=1',
  '$1::text; SELECT pg_sleep(10); --',
  "\\'; TRUNCATE tenants CASCADE; --",
  '<script>alert(1)</script>',
  '"><img src=x onerror=alert(1)>',
  'javascript:alert(1)',
  '{{7*7}}${7*7}#{7*7}',
  '${jndi:ldap://127.0.0.1/a}',
  '%s%s%s%n',
  '../../../../etc/passwd',
  '\r\nX-Injected: 1',
  'Robert\u2019); DROP TABLE Students;--',
] as const;

/** Odd characters: NUL, lone surrogates, BOM, bidi override, non-characters, emoji, combining marks. */
const oddStrings = ['\u0000', 'a\u0000b', '\uD800', '\uDFFF', 'x\uDBFFy', '\uFEFF', '\u202E', '\uFFFF', '😀', 'e\u0301', '\u00A0', '\t\n\r', ''] as const;

/** Keys that attack JavaScript objects. */
const pollutionKeys = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__'] as const;

export const hostileString: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...injectionPayloads) },
  { weight: 3, arbitrary: fc.constantFrom(...oddStrings) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 1, arbitrary: fc.tuple(fc.string({ maxLength: 5 }), fc.constantFrom(...oddStrings), fc.string({ maxLength: 5 })).map((p) => p.join('')) },
  { weight: 1, arbitrary: fc.constantFrom(...pollutionKeys) },
  { weight: 1, arbitrary: fc.integer({ min: 100, max: 5_000 }).map((n) => 'x'.repeat(n)) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 2_000 }).map((n) => '😀'.repeat(n)) },
);

/** Numbers JSON can carry (non-finite doubles become null in JSON). */
export const hostileNumber: fc.Arbitrary<number> = fc.oneof(
  fc.integer(),
  fc.double(),
  fc.constantFrom(0, -0, -1, 1e308, -1e308, 2 ** 31, -(2 ** 31) - 1, 2 ** 53 + 2, Number.MAX_SAFE_INTEGER, Number.MIN_VALUE, 1e-320, 0.1 + 0.2),
);

/** Date-time strings: valid, near-valid and not at all. */
export const hostileDateTime: fc.Arbitrary<string> = fc.oneof(
  fc.date({ min: new Date('1970-01-01T00:00:00Z'), max: new Date('2030-01-01T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString()),
  fc.constantFrom(
    '2026-11-23T10:00:00Z',
    '2026-11-23T10:00:00+14:00',
    '2026-11-23T10:00:00',
    '2026-02-30T10:00:00Z',
    '0000-01-01T00:00:00Z',
    '9999-12-31T23:59:59.999-12:00',
    '+275760-09-13T00:00:00Z',
    '10000-01-01T00:00:00Z',
    '2999-01-01T00:00:00Z',
    'now',
    '1e10',
  ),
  hostileString,
);

/** Any JSON value, with hostile leaves and pollution keys. */
export const hostileJson: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    hostileString,
    hostileNumber,
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(fc.oneof(hostileString, fc.constantFrom(...pollutionKeys)), tie('value'), { maxKeys: 4 }),
  ),
})).value;

/** `depth` levels of nesting around a value (the service allows 64). */
const nested = (depth: number, value: unknown): unknown => {
  let v = value;
  for (let i = 0; i < depth; i++) v = i % 2 ? [v] : { a: v };
  return v;
};

type Schema = Record<string, any>;

export interface SchemaContext {
  /** Resolves `#/components/schemas/X`. */
  resolve(ref: string): Schema;
  /** A value for a field name the fuzzer knows better than its schema (permalinks), or null. */
  special(field: string): fc.Arbitrary<unknown> | null;
}

/** A value close to what `schema` accepts, with hostile variants mixed in. */
export function fromSchema(schema: Schema, ctx: SchemaContext, field = '', depth = 0): fc.Arbitrary<unknown> {
  if (schema.$ref) return fromSchema(ctx.resolve(schema.$ref), ctx, field, depth);
  const special = ctx.special(field);
  if (special) return fc.oneof({ weight: 4, arbitrary: special }, { weight: 1, arbitrary: hostileJson });
  if (schema.anyOf || schema.oneOf) return fc.oneof(...(schema.anyOf ?? schema.oneOf).map((s: Schema) => fromSchema(s, ctx, field, depth)));
  if (schema.allOf) return fromSchema(Object.assign({}, ...schema.allOf), ctx, field, depth);
  if (schema.enum)
    return fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom(...schema.enum) },
      { weight: 1, arbitrary: fc.constantFrom(...schema.enum).map((v) => (typeof v === 'string' ? v.toUpperCase() : v)) },
      { weight: 1, arbitrary: hostileString },
    );
  if (schema.const !== undefined) return fc.oneof(fc.constant(schema.const), hostileJson);
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  const wrong = { weight: 1, arbitrary: hostileJson };
  switch (type) {
    case 'null':
      return fc.constant(null);
    case 'string': {
      const max = schema.maxLength ?? 60;
      const plain = schema.format === 'date-time' ? hostileDateTime : fc.string({ minLength: schema.minLength ?? 0, maxLength: Math.min(max, 60) });
      return fc.oneof(
        { weight: 6, arbitrary: plain },
        { weight: 3, arbitrary: hostileString },
        { weight: 1, arbitrary: fc.constant('x'.repeat(max + 1)) },
        wrong,
      );
    }
    case 'integer':
    case 'number': {
      const min = schema.minimum ?? -1e6;
      const max = schema.maximum ?? 1e6;
      const valid = type === 'integer' ? fc.integer({ min: Math.max(min, -(2 ** 31)), max: Math.min(max, 2 ** 31 - 1) }) : fc.double({ min, max, noNaN: true });
      return fc.oneof({ weight: 5, arbitrary: valid }, { weight: 3, arbitrary: hostileNumber }, wrong);
    }
    case 'boolean':
      return fc.oneof({ weight: 4, arbitrary: fc.boolean() }, wrong);
    case 'array': {
      const items = schema.items ? fromSchema(schema.items, ctx, field, depth + 1) : hostileJson;
      const maxItems = schema.maxItems ?? 5;
      return fc.oneof(
        { weight: 6, arbitrary: fc.array(items, { minLength: schema.minItems ?? 0, maxLength: Math.min(maxItems, 6) }) },
        { weight: 1, arbitrary: fc.constant([]) },
        // One item over the limit (each a tiny object: the count matters, not the content).
        { weight: depth === 0 && schema.maxItems ? 1 : 0, arbitrary: fc.constant(Array.from({ length: maxItems + 1 }, () => ({}))) },
        wrong,
      );
    }
    default: {
      if (depth > 6) return hostileJson;
      const properties: Record<string, Schema> = schema.properties ?? {};
      const required = new Set<string>(schema.required ?? []);
      const entries = Object.entries(properties).map(([name, s]) => {
        const value = fromSchema(s, ctx, name, depth + 1);
        // Required fields are mostly present; others come and go.
        const presence = required.has(name)
          ? fc.oneof({ weight: 12, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) })
          : fc.boolean();
        return fc.tuple(fc.constant(name), presence, value);
      });
      const extras = fc.array(fc.tuple(fc.oneof(fc.constantFrom(...pollutionKeys), hostileString, fc.constant('company_permalink')), hostileJson), {
        maxLength: 3,
      });
      const object = fc.tuple(fc.tuple(...entries), extras, fc.integer({ min: 0, max: 20 })).map(([fields, extra, deep]) => {
        const o: Record<string, unknown> = {};
        for (const [name, present, value] of fields) if (present) o[name] = value;
        for (const [key, value] of extra) Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true });
        if (deep === 20)
          o.deep = nested(70, 1); // over the nesting limit
        else if (deep === 19) o.deep = nested(40, 'ok');
        return o;
      });
      return fc.oneof({ weight: 8, arbitrary: object }, wrong);
    }
  }
}

/** How a value becomes a request body: JSON (mostly) or raw text/bytes no JSON encoder would produce. */
export const bodyEncoding = (value: fc.Arbitrary<unknown>): fc.Arbitrary<string | Uint8Array<ArrayBuffer>> =>
  fc.oneof(
    { weight: 16, arbitrary: value.map((v) => JSON.stringify(v) ?? 'null') },
    { weight: 1, arbitrary: value.map((v) => (JSON.stringify(v) ?? '').slice(0, -1)) }, // truncated
    { weight: 1, arbitrary: value.map((v) => `\uFEFF${JSON.stringify(v)}`) }, // byte order mark
    {
      weight: 1,
      arbitrary: fc.tuple(value, fc.constantFrom([0xff], [0xc3, 0x28], [0xed, 0xa0, 0x80], [0xf8, 0x88, 0x80, 0x80, 0x80], [0xc0, 0xaf])).map(([v, bad]) => {
        const text = Buffer.from(JSON.stringify({ a: 'invalid utf-8 here: ', v }));
        const at = text.indexOf('here: ') + 6;
        return new Uint8Array(Buffer.concat([text.subarray(0, at), Buffer.from(bad), text.subarray(at)]));
      }),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '',
        'null',
        '[]',
        '"string"',
        '42',
        '{"a":1,"a":2}',
        '{"n": 1e999999}',
        '{"n": -123456789012345678901234567890123456789}',
        '{"n": NaN}',
        "{'single': 'quotes'}",
        '{"a":"\\ud800"}',
        '{"a":"\\u0000"}',
        '{"__proto__": {"polluted": true}}',
        '{"constructor": {"prototype": {"polluted": true}}}',
        '['.repeat(100_000),
        `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`,
        `{"big": "${'x'.repeat(1_100_000)}"}`,
      ),
    },
  );

/** Header values a client may send (ByteStrings: fetch refuses others, as HTTP parsers do). */
export const headerValue: fc.Arbitrary<string> = fc.oneof(
  fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)), maxLength: 300 }),
  fc.string({ unit: fc.integer({ min: 0x80, max: 0xff }).map((c) => String.fromCharCode(c)), maxLength: 20 }),
  fc.constantFrom('', ' ', 'x'.repeat(8_000), "' OR 1=1 --", '<script>'),
);

/* ------------------------------------------------------------------------------------------------
 * Valid values: what a field's schema accepts, pushed to its edges (issue 16: what validation
 * accepts must be storable).
 * ---------------------------------------------------------------------------------------------- */

const pad = (n: number, width = 2) => String(n).padStart(width, '0');

/**
 * ISO 8601 date-times validation accepts: any offset from -23:59 to +23:59 (PostgreSQL takes only
 * ±15:59 as text), 0 to 9 fraction digits, instants from year 0001 to 9999 in UTC, edges included.
 */
export const validDateTime: fc.Arbitrary<string> = fc
  .tuple(
    fc.oneof(
      { weight: 4, arbitrary: fc.integer({ min: Date.parse('1970-01-01T00:00:00Z'), max: Date.parse('2100-01-01T00:00:00Z') }) },
      { weight: 2, arbitrary: fc.integer({ min: Date.parse('0001-01-01T00:00:00Z'), max: Date.parse('9999-12-31T23:59:59.999Z') }) },
      { weight: 1, arbitrary: fc.constantFrom(Date.parse('0001-01-01T00:00:00Z'), Date.parse('9999-12-31T23:59:59.999Z'), Date.parse('2024-02-29T12:00:00Z')) },
    ),
    fc.oneof({ weight: 1, arbitrary: fc.constant(0) }, { weight: 3, arbitrary: fc.integer({ min: -(23 * 60 + 59), max: 23 * 60 + 59 }) }),
    fc.boolean(),
    fc.stringMatching(/^\d{0,9}$/),
  )
  .map(([instant, offset, zulu, digits]) => {
    // The wall-clock time at that offset, truncated to the second; the fraction is the instant's milliseconds (then any digits).
    const local = new Date(Math.floor(instant / 1000) * 1000 + offset * 60_000).toISOString();
    const ms = pad(instant % 1000 >= 0 ? instant % 1000 : 1000 + (instant % 1000), 3);
    const fraction = digits.length ? `.${(ms + digits).slice(0, digits.length)}` : '';
    const zone = offset === 0 && zulu ? 'Z' : `${offset < 0 ? '-' : '+'}${pad(Math.floor(Math.abs(offset) / 60))}:${pad(Math.abs(offset) % 60)}`;
    return `${local.slice(0, 19)}${fraction}${zone}`;
  })
  .filter(
    (value) => /^\d{4}-/.test(value) && Date.parse(value) >= Date.parse('0001-01-01T00:00:00Z') && Date.parse(value) <= Date.parse('9999-12-31T23:59:59.999Z'),
  );

/** Characters a text field takes: ASCII, accents, CJK, astral (2 UTF-16 units), combining marks, controls, BOM, bidi. */
const validChar = fc.oneof(
  { weight: 4, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom('é', '中', '😀', '🚚', 'e\u0301', '\uFEFF', '\u202E', '\uFFFF', '\u0001', '\u007F', '\t', '\r\n', '"', "'", '\\', '%'),
  },
);

/** The longest prefix of `value` (whole code points) within `max` UTF-16 units. */
const within = (value: string, max: number) => {
  let out = '';
  for (const ch of value) {
    if (out.length + ch.length > max) break;
    out += ch;
  }
  return out;
};

/** A text validation accepts: at most `max` UTF-16 units, no NUL, no lone surrogate; often exactly at the limit. */
export function validText(min: number, max: number): fc.Arbitrary<string> {
  const clean = (s: string) => toWellFormed(s).replaceAll('\u0000', '');
  const pad = (s: string) => (s.length >= min ? s : s + 'x'.repeat(min - s.length));
  return fc.oneof(
    { weight: 4, arbitrary: fc.array(validChar, { maxLength: Math.min(max, 40) }).map((chars) => pad(within(clean(chars.join('')), max))) },
    // Exactly at the limit, with characters of 1, 2 (astral) and 3 UTF-8 bytes.
    { weight: 2, arbitrary: fc.constantFrom('x', 'é', '中', '😀').map((ch) => pad(ch.repeat(Math.floor(max / ch.length)))) },
  );
}

/** Field-name knowledge for valid values: permalinks of stored parents, the tenant slug, zone names. */
export interface ValidContext {
  resolve(ref: string): Schema;
  special(field: string): fc.Arbitrary<unknown> | null;
}

/** JSON values without NUL or lone surrogates (keys included): what an unknown field may carry. */
const validJson: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    validText(0, 60),
    fc.double({ noNaN: true, noDefaultInfinity: true }),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.dictionary(validText(1, 20), tie('value'), { maxKeys: 3 }),
  ),
})).value;

/** A value `schema` accepts, at its edges (nullable fields sometimes null, optional ones sometimes absent). */
export function validFromSchema(schema: Schema, ctx: ValidContext, field = ''): fc.Arbitrary<unknown> {
  if (schema.$ref) return validFromSchema(ctx.resolve(schema.$ref), ctx, field);
  const special = ctx.special(field);
  if (special) return special;
  if (schema.anyOf || schema.oneOf) return fc.oneof(...(schema.anyOf ?? schema.oneOf).map((s: Schema) => validFromSchema(s, ctx, field)));
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  switch (type) {
    case 'null':
      return fc.constant(null);
    case 'string':
      return schema.format === 'date-time' ? validDateTime : validText(schema.minLength ?? 0, schema.maxLength ?? 200);
    case 'integer': {
      const min = schema.minimum ?? -(2 ** 31);
      const max = schema.maximum ?? 2 ** 31 - 1;
      return fc.oneof(fc.integer({ min, max }), fc.constantFrom(min, max));
    }
    case 'number': {
      const min = schema.minimum ?? -1e308;
      const max = schema.maximum ?? 1e308;
      return fc.oneof(fc.double({ min, max, noNaN: true }), fc.constantFrom(min, max, 0, Number.MIN_VALUE, -Number.MIN_VALUE, 1e-300));
    }
    case 'boolean':
      return fc.boolean();
    case 'array':
      return fc.array(validFromSchema(schema.items, ctx, field), {
        minLength: Math.max(schema.minItems ?? 0, 1),
        maxLength: Math.min(schema.maxItems ?? 5, 5),
      });
    case 'object': {
      const required = new Set<string>(schema.required ?? []);
      const entries = Object.entries<Schema>(schema.properties ?? {}).map(([name, s]) =>
        fc.tuple(fc.constant(name), required.has(name) ? fc.constant(true) : fc.boolean(), validFromSchema(s, ctx, name)),
      );
      const known = new Set(Object.keys(schema.properties ?? {}));
      const extras = fc.dictionary(
        validText(1, 30).filter((k) => !known.has(k)),
        validJson,
        { maxKeys: 2 },
      );
      return fc.tuple(fc.tuple(...entries), extras).map(([fields, extra]) => {
        const o: Record<string, unknown> = {};
        for (const [key, value] of Object.entries(extra)) Object.defineProperty(o, key, { value, enumerable: true, writable: true, configurable: true });
        for (const [name, present, value] of fields) if (present) o[name] = value;
        return o;
      });
    }
    default:
      return validJson;
  }
}
