/**
 * Derives GraphQL input types from the contract's zod body schemas, so the field rules have one
 * source. Input fields keep the REST body's snake_case names: a REST body pasted as the `input`
 * variable is a valid input, and the domain ingester's zod validator checks both transports alike
 * (presence of required-but-nullable fields, max lengths, ranges, permalink suffixes).
 *
 * GraphQL can express types, enums and non-null only; every other rule (and the "required but
 * nullable: must be present" rule, which GraphQL cannot state) is left to the zod schema.
 */
import type { z } from 'zod';
import { validationFailed, type FieldIssue } from '../errors.js';
import { builder } from './builder.js';
import { sharedEnum } from './enums.js';

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
}

const pascal = (field: string) => field.replace(/(^|_)([a-z])/g, (_, __, c: string) => c.toUpperCase());

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
            ? sharedEnum(options.enumNames?.[field] ?? pascal(field), Object.values(def.entries!), description)
            : null;
  if (!type) throw new Error(`zod field ${field}: type ${def.type} has no GraphQL input mapping`);
  return { type, required: !nullable && !options.partial, description };
}

const extraDescription =
  'Fields beyond the contract, as in a REST body: accepted, not validated, and kept verbatim in the record\'s `extra` (merged by key).';

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
  const known = new Set(Object.keys(shape));

  const type = builder.inputType(name, {
    description: options.description,
    fields: (t) => ({
      ...Object.fromEntries(fields.map(([field, { type, required, description }]) => [field, t.field({ type: type as 'String', required, description })])),
      extra: t.field({ type: 'JSON', description: extraDescription }),
    }),
  });

  function toBody(input: Record<string, unknown>): Record<string, unknown> {
    const { extra, ...given } = input;
    const body: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(given)) body[key] = value instanceof Date ? value.toISOString() : value;
    if (extra == null) return body;
    const issues: FieldIssue[] = [];
    if (!isPlainObject(extra)) issues.push({ field: 'extra', issue: 'must be an object of extra fields' });
    else {
      for (const key of Object.keys(extra)) {
        if (known.has(key) || key === 'extra') issues.push({ field: `extra.${key}`, issue: 'is an input field: send it as one, not in extra' });
      }
    }
    if (issues.length) throw validationFailed(issues);
    return { ...(extra as Record<string, unknown>), ...body };
  }

  return { type, toBody };
}
