/**
 * Derives GraphQL input types from the contract's zod body schemas, so the field rules have one
 * source. Input fields are the camelCase form of the REST body's snake_case names
 * (`native_system_load_permalink` → `nativeSystemLoadPermalink`); a received input is turned back
 * into the REST body, so the domain ingester's zod validator checks both transports alike
 * (presence of required-but-nullable fields, max lengths, ranges, permalink suffixes), and its
 * errors are renamed to the input's field names on the way out.
 *
 * GraphQL can express types, enums and non-null only; every other rule is left to the zod schema. The
 * "required but nullable: must be present" rule cannot be stated in GraphQL: an omitted field of that
 * kind counts as null (its description says so), so generated client types and the server agree.
 */
import type { z } from 'zod';
import { AppError, validationFailed, type FieldIssue } from '../errors.js';
import { builder } from './builder.js';
import { camelCase, enumDescriptionsOf } from '../domain/declaration/fields.js';
import { UnreadableRecord } from '../domain/ingestion/ingest.js';
import { sharedEnum } from './enums.js';
import { selfValidatingInputs } from './string-arguments.js';

type Def = { type: string; format?: string; innerType?: z.ZodType; entries?: Record<string, string> };
const defOf = (schema: z.ZodType) => (schema as unknown as { _zod: { def: Def } })._zod.def;

export interface ZodInputOptions {
  description: string;
  /** Body fields the input leaves out (a patch has no permalink). */
  omit?: readonly string[];
  /** Every field optional (patches: an absent field is left unchanged). */
  partial?: boolean;
  /** GraphQL enum name per enum field (default: the field name in PascalCase). */
  enumNames?: Record<string, string>;
  /** The description of `extra` (default: kept verbatim in the record's `extra`). */
  extraDescription?: string;
}

const pascal = (field: string) => field.replace(/(^|_)([a-z])/g, (_, __, c: string) => c.toUpperCase());

/** An enum field's values with their descriptions (`oneOf` gives every value one). */
function enumValues(field: string, schema: z.ZodType, def: Def): Record<string, string> {
  const descriptions = enumDescriptionsOf(schema) ?? {};
  return Object.fromEntries(
    Object.values(def.entries!).map((value) => {
      const about = descriptions[value];
      if (!about) throw new Error(`zod enum field ${field}: value ${value} has no description (build it with oneOf)`);
      return [value, about];
    }),
  );
}

/** The GraphQL type of one zod field, and whether GraphQL may require it. */
function graphqlTypeOf(field: string, schema: z.ZodType, options: ZodInputOptions) {
  let inner = schema;
  let nullable = false;
  // The description sits on the outermost wrapper the field builder made (`.partial()` adds one above it).
  let description = inner.description;
  for (let def = defOf(inner); def.type === 'optional' || def.type === 'nullable'; def = defOf(inner)) {
    nullable = true;
    inner = def.innerType!;
    description ??= inner.description;
  }
  const def = defOf(inner);
  if (!description) throw new Error(`zod field ${field} has no description`);
  const type =
    def.type === 'string'
      ? def.format === 'datetime'
        ? ('DateTime' as const)
        : ('String' as const)
      : def.type === 'number'
        ? def.format === 'safeint' || def.format === 'int32'
          ? ('Int' as const)
          : ('Float' as const)
        : def.type === 'boolean'
          ? ('Boolean' as const)
          : def.type === 'enum'
            ? sharedEnum(options.enumNames?.[field] ?? pascal(field), enumValues(field, schema, def), description)
            : null;
  if (!type) throw new Error(`zod field ${field}: type ${def.type} has no GraphQL input mapping`);
  // GraphQL cannot say "must be present, may be null": such a field is nullable here, and leaving it
  // out counts as null (REST keeps the presence rule).
  const nullIfOmitted = !options.partial && !schema.safeParse(undefined).success && schema.safeParse(null).success;
  return {
    type,
    required: !nullable && !options.partial,
    nullIfOmitted,
    description: nullIfOmitted ? `${description} Leaving it out counts as null (REST requires it to be present, null allowed).` : description,
  };
}

const extraDescription = "Fields beyond the contract, as in a REST body: accepted, not validated, and kept verbatim in the record's `extra` (merged by key).";

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * An input type with one field per body field (plus `extra`), built from the zod object's shape, and
 * `toBody`, which turns a received input back into the REST body it stands for: dates as ISO 8601
 * strings, `extra` merged in. An `extra` that is not an object, or names an input field, is a
 * validation_failed.
 */
export function zodInput(name: string, body: z.ZodType, options: ZodInputOptions) {
  const shape = (body as unknown as z.ZodObject).shape as Record<string, z.ZodType>;
  const fields = Object.entries(shape)
    .filter(([field]) => !options.omit?.includes(field))
    .map(([field, schema]) => [field, graphqlTypeOf(field, schema, options)] as const);
  const bodyField = new Map(fields.map(([field]) => [camelCase(field), field]));
  const nullIfOmitted = fields.filter(([, { nullIfOmitted }]) => nullIfOmitted).map(([field]) => field);
  const inputField = new Map(fields.map(([field]) => [field, camelCase(field)]));
  // An `extra` key may name a field neither way: it would be read as that field.
  const known = new Set([...Object.keys(shape), ...bodyField.keys()]);

  selfValidatingInputs.add(name); // its validator rejects NUL with the input's field names
  const type = builder.inputType(name, {
    description: options.description,
    fields: (t) => ({
      ...Object.fromEntries(
        fields.map(([field, { type, required, description }]) => [camelCase(field), t.field({ type: type as 'String', required, description })]),
      ),
      extra: t.field({ type: 'JSON', description: options.extraDescription ?? extraDescription }),
    }),
  });

  /** The REST body of an input, or the problems of its `extra` (with the body of its input fields). */
  function read(input: Record<string, unknown>): { body: Record<string, unknown>; issues: FieldIssue[] } {
    const { extra, ...given } = input;
    const body: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(given)) body[bodyField.get(key) ?? key] = value instanceof Date ? value.toISOString() : value;
    for (const field of nullIfOmitted) if (!Object.hasOwn(body, field)) body[field] = null;
    if (extra == null) return { body, issues: [] };
    const issues: FieldIssue[] = [];
    if (!isPlainObject(extra)) issues.push({ field: 'extra', issue: 'must be an object of extra fields' });
    else {
      for (const key of Object.keys(extra)) {
        if (known.has(key) || key === 'extra') issues.push({ field: `extra.${key}`, issue: 'is an input field: send it as one, not in extra' });
      }
    }
    return issues.length ? { body, issues } : { body: { ...(extra as Record<string, unknown>), ...body }, issues };
  }

  /** The REST body an input stands for; a bad `extra` is a validation_failed. */
  function toBody(input: Record<string, unknown>): Record<string, unknown> {
    const { body, issues } = read(input);
    if (issues.length) throw validationFailed(issues);
    return body;
  }

  /** The record an ingestion input stands for: its REST body, or the record unreadable (a bad `extra`), its error naming the input's fields. */
  function toRecord(input: Record<string, unknown>): Record<string, unknown> | UnreadableRecord {
    const { body, issues } = read(input);
    return issues.length ? new UnreadableRecord(body, validationFailed(issues)) : body;
  }

  /** The same error, its field details named as the input names them (`bol_number` → `bolNumber`). */
  function renameFields(error: unknown): unknown {
    if (!(error instanceof AppError) || !error.details) return error;
    const details = error.details.map((d) => ({ ...d, field: inputField.get(d.field) ?? d.field }));
    if (error.code !== 'validation_failed') return new AppError(error.code, error.message, details, error.headers);
    // The message lists the fields again, renamed; a hint after the list is kept.
    const listed = validationFailed(error.details).message;
    return validationFailed(details, error.message.startsWith(listed) ? error.message.slice(listed.length) : '');
  }

  return { type, toBody, toRecord, renameFields, inputField: (field: string) => inputField.get(field) ?? field };
}
