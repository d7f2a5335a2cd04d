/**
 * One rule for every page size in the schema (docs/decisions/0017-page-sizes-and-hints.md): a field
 * that takes `first` (or `last`) declares its maximum with `pageSize(max)`, and a value below 0 or
 * above it is the client's error, `validation_failed` naming the argument, on every field alike,
 * never silently clamped. `guardPageSizes` wraps every such field's resolver, and refuses to build a
 * schema holding a paginated field without a declared maximum.
 */
import { createRequire } from 'node:module';
import type { GraphQLSchema } from 'graphql';
import { AppError } from '../errors.js';

// The `graphql` copy Pothos built the schema with (see string-arguments.ts).
const { defaultFieldResolver, isObjectType } = createRequire(import.meta.url)('graphql') as typeof import('graphql');

/** The arguments that size a page. */
const sizeArguments = ['first', 'last'] as const;

/** The field options declaring a paginated field's largest page (spread into the field's options). */
export const pageSize = (max: number) => ({ extensions: { maxPageSize: max } });

/** The error of a page size out of range, naming the argument (`first` or `last`) and the field. */
export const pageSizeError = (argument: string, max: number, coordinate: string) =>
  new AppError('validation_failed', `${argument} must be between 0 and ${max} (${coordinate}).`, [{ field: argument, issue: `must be between 0 and ${max}` }]);

/** The paginated fields of a schema (`Type.field`) with their maximum page size. */
export function paginatedFields(schema: GraphQLSchema): { type: string; field: string; arguments: string[]; max: number }[] {
  const found = [];
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    for (const field of Object.values(type.getFields())) {
      const sized = field.args.map((arg) => arg.name).filter((name) => (sizeArguments as readonly string[]).includes(name));
      if (!sized.length) continue;
      const max = field.extensions.maxPageSize;
      if (typeof max !== 'number')
        throw new Error(`${type.name}.${field.name} takes ${sized.join(' and ')} but declares no maximum: add pageSize(max) to its options`);
      found.push({ type: type.name, field: field.name, arguments: sized, max });
    }
  }
  return found;
}

/** Wraps the resolver of every paginated field, in place, to refuse a page size out of its range; returns the schema. */
export function guardPageSizes(schema: GraphQLSchema): GraphQLSchema {
  for (const { type, field: name, arguments: sized, max } of paginatedFields(schema)) {
    const field = (schema.getType(type) as import('graphql').GraphQLObjectType).getFields()[name]!;
    const resolve = field.resolve ?? defaultFieldResolver;
    field.resolve = (source, args: Record<string, unknown>, context, info) => {
      for (const argument of sized) {
        const value = args[argument];
        if (typeof value === 'number' && (value < 0 || value > max)) throw pageSizeError(argument, max, `${type}.${name}`);
      }
      return resolve(source, args, context, info);
    };
  }
  return schema;
}
