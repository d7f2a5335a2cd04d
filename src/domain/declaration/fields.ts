/**
 * zod building blocks for the contract's field tables. Every body schema is built from these, so
 * REST validation, GraphQL inputs and the OpenAPI document share one definition of each field:
 * type, max length, nullability and importance (`x-service-importance`).
 */
import { z } from 'zod';

/** `native_system_load_permalink` → `nativeSystemLoadPermalink`: the GraphQL (and Prisma) name of a contract field or column. */
export const camelCase = (name: string) => name.replace(/_([a-z0-9])/g, (_, char: string) => char.toUpperCase());

export type Importance = 'required' | 'recommended' | 'optional';

/** The contract's field metadata, read by the OpenAPI and GraphQL derivations. */
export interface FieldMeta {
  [key: string]: unknown;
  'x-service-importance': Importance;
  description: string;
}

const meta = (importance: Importance, description: string): FieldMeta => ({
  'x-service-importance': importance,
  description: `${importance[0]!.toUpperCase()}${importance.slice(1)}. ${description}`,
});

/**
 * What a field feeds: the feature of the service that depends on it (api-contract.md F). Every
 * `recommended` field names one, once, in its declaration; the OpenAPI description (and through it
 * GraphQL's input descriptions), GraphQL `FieldCoverage.feeds` and the data-quality guide read it.
 */
export interface FieldOptions {
  feeds?: string;
}

/** The prefix of what a recommended field feeds when no feature reads it yet (it is only shown). */
export const shownOnlyPrefix = 'No feature reads it yet; only shown:';

/**
 * What a recommended field feeds when no feature of the service reads it (said honestly: its
 * importance may be wrong, or a feature is missing), naming where it is shown.
 */
export const shownOnly = (where: string) => `${shownOnlyPrefix} ${where}.`;

/** The feature each recommended field feeds, by its zod schema (read with `feedsOf`). */
const feedsBySchema = new WeakMap<z.ZodType, string>();

/** The feature a recommended field feeds; undefined for a field that names none (required and optional fields). */
export const feedsOf = (schema: z.ZodType): string | undefined => feedsBySchema.get(schema);

/**
 * What each field is, as its builder was told, without the importance prefix and without rules that
 * only concern a request (an output field's description reads it through `meaningOf`).
 */
const meanings = new WeakMap<z.ZodType, string>();
const described = <T extends z.ZodType>(schema: T, meaning: string): T => {
  meanings.set(schema, meaning);
  return schema;
};

/** What a body field is (its description without importance and request rules), for output types. */
export function meaningOf(schema: z.ZodType): string {
  const meaning = meanings.get(schema);
  if (meaning === undefined) throw new Error('zod field without a meaning: build it with the helpers of domain/declaration/fields.ts');
  return meaning;
}

/**
 * Presence follows importance: a `required` field must be present (null allowed unless the field is
 * non-nullable); `recommended` and `optional` fields may be left out.
 */
/** A field's zod type by its importance: a required field is present (maybe null), the others may be absent. */
type Presence<T extends z.ZodType, I extends Importance> = I extends 'required' ? z.ZodNullable<T> : z.ZodOptional<z.ZodNullable<T>>;

function presence<T extends z.ZodType, I extends Importance>(
  schema: T,
  importance: I,
  description: string,
  options: FieldOptions,
  more: Record<string, unknown> = {},
  requestRule = '',
) {
  const { feeds } = options;
  if ((importance === 'recommended') !== (feeds !== undefined)) {
    throw new Error(`"${description}": a recommended field names the feature it feeds ({ feeds }), and only a recommended one`);
  }
  const nullable = schema.nullable();
  const said = [description, requestRule, feeds === undefined ? '' : `Feeds: ${feeds}`].filter(Boolean).join(' ');
  const field = (importance === 'required' ? nullable : nullable.optional()).meta({
    ...meta(importance, said),
    ...(feeds === undefined ? {} : { 'x-service-feeds': feeds }),
    ...more,
  });
  if (feeds !== undefined) feedsBySchema.set(field, feeds);
  return described(field, description) as Presence<T, I>;
}

/** PostgreSQL text cannot hold U+0000: such a string is the client's error (400), not a failed write (500). */
export const hasNoNul = (value: string) => !value.includes('\u0000');
const noNul = { message: 'must not contain the NUL character (\\u0000)' };

/**
 * A lone UTF-16 surrogate (a JSON `\ud800` escape without its pair) is no character: jsonb refuses it
 * (a failed write) and text columns would store U+FFFD instead (not what was sent). The client's error.
 */
const loneSurrogate = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
export const isWellFormed = (value: string) => !loneSurrogate.test(value);
/** The string with each lone surrogate replaced by U+FFFD (for naming a field that holds one). */
export const toWellFormed = (value: string) => value.replace(new RegExp(loneSurrogate.source, 'g'), '\uFFFD');
export const notWellFormed = 'must be well-formed Unicode (no lone surrogate \\uD800-\\uDFFF)';

/** A string of at most `max` characters (JavaScript length) without NUL characters or lone surrogates. */
const string = (max: number) => z.string().max(max).refine(hasNoNul, noNul).refine(isWellFormed, { message: notWellFormed });

/** A string that is never null: the record's own permalink (schema-required). */
export const permalinkField = (description: string) => described(string(100).min(1).meta(meta('required', description)), description);

/** A nullable string with the contract's max length. */
export const text = <const I extends Importance>(max: number, importance: I, description: string, options: FieldOptions = {}) =>
  presence(string(max), importance, description, options);

/** A nullable integer ≥ 1 (sequences). */
export const position = <const I extends Importance>(importance: I, description: string, options: FieldOptions = {}) =>
  presence(z.int().min(1).max(2_147_483_647), importance, description, options);

/** A nullable number within a range (coordinates). */
export const number = <const I extends Importance>(min: number, max: number, importance: I, description: string, options: FieldOptions = {}) =>
  presence(z.number().min(min).max(max), importance, description, options);

/** Instants PostgreSQL and JavaScript both represent exactly: years 0001 to 9999 in UTC. */
const earliest = Date.parse('0001-01-01T00:00:00Z');
const latest = Date.parse('9999-12-31T23:59:59.999Z');
/** True for an ISO 8601 date-time whose instant lies between years 0001 and 9999 (UTC). */
export const isInDateRange = (value: string) => {
  const time = Date.parse(value);
  return time >= earliest && time <= latest;
};

/**
 * The same instant in UTC (`2026-11-25T10:00:00+16:00` → `2026-11-24T18:00:00.000Z`), at the
 * millisecond precision of the columns; a value that is no date-time is left for the format check.
 */
const toUtc = (value: string) => {
  const time = Date.parse(value);
  return Number.isNaN(time) ? value : new Date(time).toISOString();
};

/**
 * The OpenAPI document shows a date-time as `format: date-time` (RFC 3339, which API references render
 * as "date-time") without zod's 400-character regex, which readers took for the rule (issue 37): the
 * service validates with zod whatever the document says.
 */
const withoutPattern = ({ jsonSchema }: { jsonSchema: { pattern?: string } }) => {
  delete jsonSchema.pattern;
};

/**
 * An ISO 8601 date-time with a zone (`Z` or any offset up to ±23:59), years 0001 to 9999 once in UTC,
 * normalised to UTC: PostgreSQL refuses offsets beyond ±15:59 as text, so no offset ever reaches SQL.
 */
export const isoDateTime = () =>
  z.iso
    .datetime({ offset: true })
    .refine(isInDateRange, { message: 'must lie between the years 0001 and 9999 (UTC)' })
    .overwrite(toUtc)
    .meta({ override: withoutPattern });

/** A nullable ISO 8601 date-time with a zone (`Z` or an offset). */
export const dateTime = <const I extends Importance>(importance: I, description: string, options: FieldOptions = {}) =>
  presence(
    isoDateTime(),
    importance,
    description,
    options,
    {},
    'Any offset from -23:59 to +23:59 is accepted; the instant is stored in UTC, to the millisecond (further digits are dropped).',
  );

/**
 * A nullable value from a fixed list, each value with its description (`x-enumDescriptions`: shown by
 * API reference pages, and the descriptions of the GraphQL enum's values).
 */
export const oneOf = <const T extends Record<string, string>, const I extends Importance>(
  values: T,
  importance: I,
  description: string,
  options: FieldOptions = {},
) => presence(z.enum(Object.keys(values) as [keyof T & string, ...(keyof T & string)[]]), importance, description, options, { 'x-enumDescriptions': values });

/** The value descriptions of a field built by `oneOf`. */
export const enumDescriptionsOf = (schema: z.ZodType): Record<string, string> | undefined =>
  z.globalRegistry.get(schema)?.['x-enumDescriptions'] as Record<string, string> | undefined;

/**
 * The shape of an IANA zone name this service accepts: `UTC`, or an `Area/Location` name of one of
 * the tz database's geographic areas (`America/Chicago`, `America/Argentina/Buenos_Aires`). Legacy
 * names the runtime also knows (`CST`, `EST`, `EST5EDT`, `US/Central`, `Etc/GMT+6`, `GMT`) are
 * refused: they are aliases or fixed offsets, not a facility's zone (docs/decisions/0017-page-sizes-and-hints.md).
 */
const zoneName = /^(?:UTC|(?:Africa|America|Antarctica|Arctic|Asia|Atlantic|Australia|Europe|Indian|Pacific)(?:\/[A-Za-z0-9_+-]+){1,2})$/;

const validZones = new Map<string, boolean>();
/** True for an IANA `Area/Location` zone name (or `UTC`) the runtime knows (cached: the check builds a formatter). */
export function isTimeZone(name: string): boolean {
  let valid = validZones.get(name);
  if (valid === undefined) {
    try {
      new Intl.DateTimeFormat('en-US', { timeZone: name });
      valid = zoneName.test(name);
    } catch {
      valid = false;
    }
    if (validZones.size < 10_000) validZones.set(name, valid);
  }
  return valid;
}

/** A nullable IANA time zone name (JSON Schema cannot list them: the description says so). */
export const timeZone = <const I extends Importance>(importance: I, description: string, options: FieldOptions = {}) =>
  presence(
    z
      .string()
      .max(64)
      .refine(isTimeZone, { message: 'must be an IANA time zone name such as America/Chicago (Area/Location, or UTC; not an abbreviation such as CST)' })
      .meta({ examples: ['America/Chicago'] }),
    importance,
    description,
    options,
    {},
    'Must be an `Area/Location` time zone name of the IANA tz database that the service knows (such as `America/Chicago`), or `UTC`, not a legacy abbreviation or alias (`CST`, `EST`, `EST5EDT`, `US/Central`, `Etc/GMT+6`); anything else is a 400 `validation_failed`.',
  );

/**
 * Options for a cross-field rule (`superRefine`): it runs even when other fields failed, so one 400
 * lists every offending field, but only once the fields it reads are valid themselves.
 */
export const whenValid = (fields: readonly string[]) => ({
  when: (payload: z.core.ParsePayload) =>
    typeof payload.value === 'object' && payload.value !== null && !payload.issues.some((issue) => fields.includes(String(issue.path?.[0]))),
});

/** The fields of a body schema (the shape, for derivations). */
