/**
 * Hostile values for property-based fuzzing (fast-check): strings with NUL, lone surrogates, SQL and
 * script payloads; huge and odd numbers; prototype-pollution keys; deep nesting; raw bodies that are
 * not JSON or not UTF-8. Values are generated from a JSON Schema (the OpenAPI document's request
 * bodies, bulk envelopes included) or a GraphQL input type (schema introspection): mostly close to
 * valid so requests reach the database, with hostile parts mixed in.
 */
import fc from 'fast-check';

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
