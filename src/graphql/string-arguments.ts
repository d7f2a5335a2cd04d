/**
 * One guard for every GraphQL argument that can carry text: PostgreSQL can neither store nor compare
 * text holding NUL (U+0000), so such an argument (`load(permalink)`, `loads(filter: {search})`,
 * `setStatusMapping(status)`, a cursor, …) is the client's error, `validation_failed` naming the
 * argument, as a NUL in a REST body is, instead of a database error answered as INTERNAL_SERVER_ERROR.
 *
 * Inputs derived from the zod body schemas (graphql/zod-input.ts) are left to their validator, which
 * already rejects NUL anywhere (with the input's field names) and counts the rejection in ingest
 * health like REST.
 */
import { createRequire } from 'node:module';
import type { GraphQLArgument, GraphQLSchema } from 'graphql';
import { validationFailed } from '../errors.js';
import { nulIssues } from '../domain/declaration/validate.js';

// The `graphql` copy Pothos built the schema with (CommonJS; see cli/print-schema.ts): its type checks
// are `instanceof` checks, which a second (ESM) copy would fail.
const { defaultFieldResolver, getNamedType, isInputObjectType, isObjectType } = createRequire(import.meta.url)('graphql') as typeof import('graphql');

/** Names of the input types that validate their own strings (registered by zodInput). */
export const selfValidatingInputs = new Set<string>();

const textScalars = new Set(['String', 'ID', 'JSON']);

/** Whether a value of the argument's type can hold a string this guard must check. */
function carriesText(arg: GraphQLArgument): boolean {
  const named = getNamedType(arg.type);
  if (selfValidatingInputs.has(named.name)) return false;
  return textScalars.has(named.name) || isInputObjectType(named);
}

/** Wraps the resolver (and a subscription's `subscribe`) of every field with a text argument, in place; returns the schema. */
export function guardStringArguments(schema: GraphQLSchema): GraphQLSchema {
  for (const type of Object.values(schema.getTypeMap())) {
    if (!isObjectType(type) || type.name.startsWith('__')) continue;
    for (const field of Object.values(type.getFields())) {
      const guarded = field.args.filter(carriesText).map((arg) => arg.name);
      if (!guarded.length) continue;
      const check = (args: Record<string, unknown>) => {
        const issues = guarded.flatMap((name) => nulIssues(args[name], name));
        if (issues.length) throw validationFailed(issues);
      };
      const resolve = field.resolve ?? defaultFieldResolver;
      field.resolve = (source, args: Record<string, unknown>, context, info) => {
        check(args);
        return resolve(source, args, context, info);
      };
      // A subscription's arguments are used when it starts, by `subscribe`.
      const subscribe = field.subscribe;
      if (subscribe) {
        field.subscribe = (source, args: Record<string, unknown>, context, info) => {
          check(args);
          return subscribe(source, args, context, info);
        };
      }
    }
  }
  return schema;
}
