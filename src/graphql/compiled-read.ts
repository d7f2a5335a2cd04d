/**
 * Compiled reads (docs/decisions/0034-compiled-load-page.md): a query operation whose every field is
 * in the compiler's list is answered by ONE SQL statement, compiled straight from the operation's
 * selection and typed arguments, in which PostgreSQL builds the whole `data` object as JSON; its text
 * goes into the response body as JSON.stringify would write it (`asJavaScriptWrites`, decision 0038),
 * without a second object graph. Any other operation (a
 * field not in the list, a directive, an argument a resolver would refuse, a cursor the tenant does
 * not have) is executed by the resolvers, as before: their answers and errors are the reference, and
 * test/integration/graphql/compiled-differential.test.ts holds the two to identical JSON.
 *
 * The list: the domain modules register the object types (`compiledType`, each with its explicit
 * fields) and root fields (`compiledRoot`) they compile; docs/reference/graphql.md lists them.
 * Everything around execution stays: authentication and tenancy (the context), rate limits and
 * admin audit (plugins before this one), complexity (checked here as the resolvers would, else
 * they answer the error), the response cache (after this one: it stores the text), error masking.
 * `X-GraphQL-Execution: compiled | resolvers` on every executed query says which path answered.
 */
import { createRequire } from 'node:module';
import type { DocumentNode, FieldNode, FragmentDefinitionNode, GraphQLObjectType, GraphQLSchema, SelectionSetNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { complexityFromQuery } from '@pothos/plugin-complexity';
import { LRUCache } from 'lru-cache';
import { getDatamodel } from '../db/generated/pothos-types.js';
import { columnOf, jsonFirst, jsonFloat, jsonObject, maxObjectKeys } from '../db/json-tree.js';
import { isoInstant, literal, quote } from '../db/sql-text.js';
import { recordSpecs } from '../domain/registry.js';
import { camelCase } from '../domain/declaration/fields.js';
import type { RecordSpec } from '../domain/declaration/record.js';
import { nulIssues } from '../domain/declaration/validate.js';
import type { TenantRef } from '../domain/declaration/tenant-ref.js';
import { complexityLimit } from './builder.js';
import type { RequestContext } from './context.js';

// The `graphql` copy Pothos built the schema with (see string-arguments.ts): its type checks are `instanceof` checks.
const graphql = createRequire(import.meta.url)('graphql') as typeof import('graphql');
const { Kind, OperationTypeNode, getArgumentValues, getNamedType, getOperationAST, getVariableValues, isLeafType, isObjectType } = graphql;

/** One field of a selection, merged over fragments: its response key, field name, coerced arguments and sub-selection. */
export interface Selection {
  key: string;
  name: string;
  args: Record<string, unknown>;
  /** The named type of the field's value. */
  type: string;
  selections: Selection[];
}

/** What a field's SQL may use: the tenant, parameters, fresh aliases, and conditions the answer needs. */
export interface Scope {
  tenant: TenantRef;
  /** The parameter holding the tenant id: every table a statement reads is matched on it. */
  tenantParam: string;
  /** The parameter holding the service clock's now (bound per request, like the tenant id). */
  nowParam: string;
  /** The app's settings a field may depend on (they are the same for every request of an app). */
  settings: CompiledSettings;
  /** Adds a parameter; returns its placeholder. */
  param(value: unknown): string;
  /** A fresh table alias. */
  alias(prefix: string): string;
  /** A condition (SQL boolean) without which the compiled answer is not the resolvers' (then they answer). */
  require(condition: string): void;
  /** The fields the compiler answers of an object type (registered and derived, `compiledFields`), or undefined. */
  fields(type: string): Readonly<Record<string, FieldSql>> | undefined;
}

/** Settings of the app the compiled SQL depends on. */
export interface CompiledSettings {
  payloadHistory: { days: number; perRecord: number };
}

/** The JSON (SQL) of one field of the row at `row`. */
export type FieldSql = (row: string, selection: Selection, scope: Scope) => string;
/** The JSON (SQL) of one root field. */
type RootSql = (selection: Selection, scope: Scope) => string;

/** Why an operation is not compiled (it goes to the resolvers). */
class Unanswered extends Error {}

/** Leaves the operation to the resolvers, saying why. */
export const unanswered = (reason: string): never => {
  throw new Unanswered(reason);
};

const types = new Map<string, Readonly<Record<string, FieldSql>>>();
const roots = new Map<string, RootSql>();

/** Registers an object type the compiler answers, with the fields it answers (its explicit list; several modules may add fields). */
export function compiledType(name: string, fields: Readonly<Record<string, FieldSql>>) {
  types.set(name, { ...types.get(name), ...fields });
}

/** Registers a root field of `Query` the compiler answers. */
export function compiledRoot(name: string, sql: RootSql) {
  roots.set(name, sql);
}

const models = (getDatamodel() as unknown as { datamodel: { models: Record<string, { fields: { name: string; kind: string; type: string }[] }> } }).datamodel
  .models;

/**
 * Fields read straight from a column of the Prisma model's table (`id`, `permalink`, …), each written as
 * its GraphQL type serialises it: DateTime as an ISO instant, Float without `-0`, an enum by its GraphQL
 * name (the stored value in upper case, `graphql/enums.ts`), JSON as stored.
 */
export function columnFields(model: string, names: readonly string[]): Record<string, FieldSql> {
  return Object.fromEntries(
    names.map((name) => {
      const field = models[model]?.fields.find((f) => f.name === name && f.kind !== 'object');
      if (!field) throw new Error(`compiled reads: ${model} has no column field ${name}`);
      const column = (row: string) => `${row}.${quote(columnOf(name))}`;
      const sql: FieldSql =
        field.type === 'DateTime'
          ? (row) => isoInstant(column(row))
          : field.type === 'Float'
            ? (row) => jsonFloat(column(row))
            : field.kind === 'enum'
              ? (row) => `upper(${column(row)}::text)`
              : column;
      return [name, sql];
    }),
  );
}

/** A to-one relation: the record of `table` (GraphQL `type`) that the row's `key` names, of the tenant, meeting `conditions`. */
export const parentOf =
  (type: string, table: string, key: string, conditions: (alias: string) => string[] = () => []): FieldSql =>
  (row, selection, scope) => {
    const a = scope.alias('p');
    const where = [`${a}.tenant_id = ${scope.tenantParam}`, `${a}.id = ${row}.${key}`, ...conditions(a)].join(' AND ');
    return jsonFirst({ value: objectSql(type, a, selection.selections, scope), rows: `${table} ${a} WHERE ${where}` });
  };

/** What Pothos keeps of a Prisma relation field (`t.relation`) in its extensions. */
interface PrismaRelation {
  isList: boolean;
  relationFromFields?: readonly string[];
}

/**
 * The fields of the schema's Prisma object types that the compiler derives instead of being told: every
 * field that exposes a column of its model (`t.expose…`: its SQL is the column's, `columnFields`), and,
 * on a record kind's type, every `t.relation` to a parent the kind declares (`parents` in its
 * `defineRecord`): a required parent as stored, an optional one only while it lives (a delete cascades to
 * the records under a required parent; an optional one's delete leaves them naming it). So a field or a
 * parent added to a kind is compiled with nothing to write; lists of children, derived fields and
 * arguments stay with the kind (`compiledType`).
 */
function derivedFields(schema: GraphQLSchema): Map<string, Record<string, FieldSql>> {
  const derived = new Map<string, Record<string, FieldSql>>();
  for (const type of Object.values(schema.getTypeMap())) {
    const model = type.extensions.pothosPrismaModel;
    if (!isObjectType(type) || typeof model !== 'string') continue;
    const spec = recordSpecs.find((k) => k.model === model) as RecordSpec | undefined;
    const fields: Record<string, FieldSql> = {};
    for (const [name, field] of Object.entries(type.getFields())) {
      const exposed = field.extensions.pothosExposedField;
      if (typeof exposed === 'string') {
        fields[name] = columnFields(model, [exposed])[exposed]!;
        continue;
      }
      const relation = field.extensions.pothosPrismaRelationField as PrismaRelation | undefined;
      const parent = relation && !relation.isList ? spec?.parents.find((p) => relation.relationFromFields?.includes(camelCase(p.column))) : undefined;
      if (parent) {
        const live = (a: string) => (parent.required ? [] : [`${a}.deleted_at IS NULL`]);
        fields[name] = parentOf(getNamedType(field.type).name, parent.table, parent.column, live);
      }
    }
    derived.set(type.name, fields);
  }
  return derived;
}

const derivedOf = new WeakMap<GraphQLSchema, Map<string, Record<string, FieldSql>>>();

/**
 * The fields the compiler answers of each object type of `schema`: those derived from the schema and the
 * declarations (`derivedFields`) and those the domain modules register (`compiledType`, which win).
 * test/unit/compiled-fields.test.ts holds this list and the schema's fields together.
 */
export function compiledFields(schema: GraphQLSchema): ReadonlyMap<string, Readonly<Record<string, FieldSql>>> {
  let all = derivedOf.get(schema);
  if (!all) {
    all = derivedFields(schema);
    for (const [type, fields] of types) all.set(type, { ...all.get(type), ...fields });
    derivedOf.set(schema, all);
  }
  return all;
}

/** The root fields of `Query` the compiler answers. */
export const compiledRoots = (): ReadonlySet<string> => new Set(roots.keys());

/** The JSON object of `type` for the row at `row` with the selected fields, in the selection's order. */
export function objectSql(type: string, row: string, selections: readonly Selection[], scope: Scope): string {
  const fields = scope.fields(type) ?? unanswered(`type ${type}`);
  return jsonObject(
    selections.map((s) => {
      if (s.name === '__typename') return [s.key, literal(type)] as const;
      const field = Object.hasOwn(fields, s.name) ? fields[s.name]! : unanswered(`${type}.${s.name}`);
      return [s.key, field(row, s, scope)] as const;
    }),
  );
}

/** The selection's fields by response key, fragments flattened (the executor's field collection, without directives). */
function collect(parent: GraphQLObjectType, set: SelectionSetNode, fragments: Map<string, FragmentDefinitionNode>, into: Map<string, FieldNode[]>) {
  for (const node of set.selections) {
    if (node.directives?.length) unanswered('a directive');
    if (node.kind === Kind.FIELD) {
      const key = node.alias?.value ?? node.name.value;
      into.set(key, [...(into.get(key) ?? []), node]);
    } else if (node.kind === Kind.INLINE_FRAGMENT) {
      if (node.typeCondition && node.typeCondition.name.value !== parent.name) unanswered('a fragment on another type');
      collect(parent, node.selectionSet, fragments, into);
    } else {
      const fragment = fragments.get(node.name.value);
      if (!fragment || fragment.typeCondition.name.value !== parent.name) unanswered('a fragment on another type');
      collect(parent, fragment!.selectionSet, fragments, into);
    }
  }
  return into;
}

function selectionsOf(
  parent: GraphQLObjectType,
  sets: readonly SelectionSetNode[],
  fragments: Map<string, FragmentDefinitionNode>,
  variables: Record<string, unknown>,
): Selection[] {
  const grouped = new Map<string, FieldNode[]>();
  for (const set of sets) collect(parent, set, fragments, grouped);
  if (grouped.size > maxObjectKeys) unanswered(`more than ${maxObjectKeys} fields in one object`);
  return [...grouped].map(([key, nodes]) => {
    const name = nodes[0]!.name.value;
    if (name === '__typename') return { key, name, args: {}, type: 'String', selections: [] };
    const field = parent.getFields()[name] ?? unanswered(`${parent.name}.${name}`);
    let args: Record<string, unknown>;
    try {
      args = getArgumentValues(field, nodes[0]!, variables);
    } catch {
      return unanswered('an argument the resolvers refuse');
    }
    // The resolvers' argument guards (string-arguments.ts, page-sizes.ts): their errors are theirs to answer.
    if (Object.entries(args).some(([arg, value]) => nulIssues(value, arg).length)) unanswered('a NUL in an argument');
    const max = field.extensions.maxPageSize;
    for (const size of ['first', 'last']) {
      const value = args[size];
      if (typeof value === 'number' && typeof max === 'number' && (value < 0 || value > max)) unanswered(`${size} out of range`);
    }
    const named = getNamedType(field.type);
    const subsets = nodes.flatMap((node) => (node.selectionSet ? [node.selectionSet] : []));
    if (isObjectType(named)) return { key, name, args, type: named.name, selections: selectionsOf(named, subsets, fragments, variables) };
    if (!isLeafType(named)) unanswered(`an abstract type (${named.name})`);
    return { key, name, args, type: named.name, selections: [] };
  });
}

/** The statement answering an operation: `data` is the JSON text of the whole `data` object; `ok` false means: ask the resolvers. */
export interface CompiledRead {
  text: string;
  params: unknown[];
}

/**
 * Compiles a query operation for `tenant`, or throws `Unanswered` (`compiledReason` reads it) when the
 * compiler does not answer it whole.
 */
export function compileRead(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | null | undefined,
  variables: Record<string, unknown> | null | undefined,
  tenant: TenantRef,
  settings: CompiledSettings,
  now: Date,
): CompiledRead {
  const operation = getOperationAST(document, operationName) ?? unanswered('no operation');
  if (operation.operation !== OperationTypeNode.QUERY) unanswered('not a query');
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions) if (definition.kind === Kind.FRAGMENT_DEFINITION) fragments.set(definition.name.value, definition);
  const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], variables ?? {});
  if (coerced.errors) unanswered('variables the executor refuses');
  const selections = selectionsOf(schema.getQueryType()!, [operation.selectionSet], fragments, coerced.coerced!);
  const params: unknown[] = [tenant.id, now.toISOString()];
  const checks: string[] = [];
  const aliases = new Map<string, number>();
  const scope: Scope = {
    tenant,
    tenantParam: '$1::uuid',
    nowParam: '$2::timestamptz',
    settings,
    param: (value) => `$${params.push(value)}`,
    alias(prefix) {
      const n = (aliases.get(prefix) ?? 0) + 1;
      aliases.set(prefix, n);
      return `${prefix}${n}`;
    },
    require: (condition) => void checks.push(condition),
    fields: (type) => compiledFields(schema).get(type),
  };
  const pairs = selections.map((s) => {
    if (s.name === '__typename') return [s.key, literal('Query')] as const;
    const root = roots.get(s.name) ?? unanswered(`Query.${s.name}`);
    return [s.key, root(s, scope)] as const;
  });
  // The tenant's and the clock's parameters are always bound (a request binds them), so the statement names
  // their types even where no field reads them (`{ __typename }` reads neither: PostgreSQL refuses an
  // untyped unused parameter, 42P18).
  checks.push(`${scope.tenantParam} IS NOT NULL`, `${scope.nowParam} IS NOT NULL`);
  return { text: `SELECT ${jsonObject(pairs)}::text AS data, ${checks.join(' AND ')} AS ok`, params };
}

/** The reason an operation was left to the resolvers, or null when the error is not the compiler's. */
const compiledReason = (error: unknown) => (error instanceof Unanswered ? error.message : null);

/** The log line of an operation reading a compiled root field that the resolvers answered instead. */
const compiledFallback = 'graphql: an operation reading a compiled field answered by the resolvers';

/** Whether the operation's complexity is within the limits (else the resolvers answer the complexity error). */
function withinComplexity(schema: GraphQLSchema, document: DocumentNode, operationName: string | null | undefined, variables: unknown, ctx: object) {
  const operation = getOperationAST(document, operationName);
  if (!operation) return false;
  // complexityFromQuery reads the document's first operation: give it the executed one (and the fragments).
  const only = { ...document, definitions: [operation, ...document.definitions.filter((d) => d.kind === Kind.FRAGMENT_DEFINITION)] };
  const { complexity, depth, breadth } = complexityFromQuery(only, { schema, ctx, variables: (variables ?? {}) as Record<string, unknown> });
  return complexity <= complexityLimit.complexity && depth <= complexityLimit.depth && breadth <= complexityLimit.breadth;
}

/**
 * Whitespace outside JSON strings (a string is matched whole, so its own spaces stay): PostgreSQL
 * writes `{"a" : 1, "b" : [1, 2]}` (json_build_object, json_agg) and `{"a": 1}` (jsonb), JSON.stringify
 * writes `{"a":1,"b":[1,2]}`.
 */
const spacing = /("(?:[^"\\]|\\.)*")|\s+/g;

/**
 * What PostgreSQL may write otherwise than JSON.stringify besides spacing, each a number token (after
 * `:`, `,` or `[`) or an object key (a match inside a string is harmless: it only costs the exact path): a number in exponent notation (float8 writes `1e-05`, JS
 * `1e-5`; float8 switches to it from 1e15, JS from 1e21), a jsonb numeric JS writes in exponent notation
 * (22 digits and more, or below 1e-6), a fraction with a trailing zero (`1.50`), and an integer-like object
 * key (a JavaScript object lists those first, in ascending order; jsonb by length).
 */
const unlikeJavaScript = /[:,[]\s*-?(?:\d+(?:\.\d+)?e|\d{22}|0\.000000|\d+\.\d*0(?=[\s,\]}]|$))|[{,]\s*"(?:0|[1-9]\d*)"\s*:/;

/**
 * The compiled JSON text as JSON.stringify writes the same value, byte for byte (what the resolvers'
 * answer is): without PostgreSQL's spacing, or, when the text holds something JavaScript writes
 * differently (rare: see `unlikeJavaScript`), parsed and written by JSON.stringify itself.
 */
const asJavaScriptWrites = (text: string): string => (unlikeJavaScript.test(text) ? JSON.stringify(JSON.parse(text)) : text.replace(spacing, '$1'));

/** A result whose body is the compiled JSON text, as JSON.stringify writes it (Yoga writes a result's own `stringify`). */
const compiledResult = (text: string) => {
  const data = asJavaScriptWrites(text);
  return {
    stringify: () => `{"data":${data}}`,
    /** Parsed only if a plugin reads it (none on the request path does). */
    get data() {
      return JSON.parse(data) as Record<string, unknown>;
    },
  };
};

export type ExecutionPath = 'compiled' | 'resolvers';

export interface CompiledReadsOptions {
  schema: GraphQLSchema;
  /** false: every operation goes to the resolvers (tests compare the two paths with it). */
  enabled: boolean;
  /** Counts the path of every executed query (for /metrics). */
  count?: (path: ExecutionPath) => void;
}

export function useCompiledReads({ schema, enabled, count }: CompiledReadsOptions): Plugin<RequestContext> {
  const paths = new WeakMap<Request, ExecutionPath>();
  const decisions = new WeakMap<DocumentNode, LRUCache<string, CompiledRead | string>>();
  /** The compiled statement of an operation, or why the resolvers answer it. */
  const decide = (document: DocumentNode, operationName: string | null | undefined, variables: unknown, tenant: TenantRef, ctx: RequestContext) => {
    try {
      if (!withinComplexity(schema, document, operationName, variables, ctx)) unanswered('over the complexity limits');
      return compileRead(schema, document, operationName, variables as Record<string, unknown>, tenant, ctx.services.config, ctx.now);
    } catch (error) {
      const reason = compiledReason(error);
      if (reason === null) throw error;
      return reason;
    }
  };
  return {
    onExecute({ args, executeFn, setExecuteFn }) {
      const ctx = args.contextValue;
      const document = args.document as DocumentNode;
      const operationName = args.operationName as string | null | undefined;
      const operation = getOperationAST(document, operationName);
      if (operation?.operation !== OperationTypeNode.QUERY || !ctx.request) return;
      const answeredBy = (path: ExecutionPath) => {
        paths.set(ctx.request, path);
        count?.(path);
      };
      const byResolvers = (executeArgs: Parameters<typeof executeFn>[0]): Promise<unknown> => {
        answeredBy('resolvers');
        return Promise.resolve(executeFn(executeArgs) as unknown);
      };
      const tenant = ctx.actor?.tenant;
      // What the compiler does with this operation depends on the document, the variables and the tenant's
      // TMS link template only: decided once per such key (Yoga hands the same DocumentNode for the same text).
      let decided: CompiledRead | string;
      if (!enabled) decided = 'compiled reads are off';
      else if (!tenant) decided = 'no tenant';
      else {
        let cache = decisions.get(document);
        if (!cache) decisions.set(document, (cache = new LRUCache<string, CompiledRead | string>({ max: 64 })));
        const key = `${operationName ?? ''}\n${tenant.tmsUrlTemplate ?? ''}\n${JSON.stringify(args.variableValues ?? {})}`;
        decided = cache.get(key) ?? decide(document, operationName, args.variableValues, tenant, ctx);
        cache.set(key, decided);
      }
      if (typeof decided === 'string') {
        const fields = operation.selectionSet.selections.flatMap((s) => (s.kind === Kind.FIELD && roots.has(s.name.value) ? [s.name.value] : []));
        if (fields.length && enabled) ctx.log.info({ fields, reason: decided }, compiledFallback);
        setExecuteFn(byResolvers as typeof executeFn);
        return;
      }
      // The statement with this request's tenant id and clock (the parameters that differ between requests sharing a decision).
      const compiled = { text: decided.text, params: [tenant!.id, ctx.now.toISOString(), ...decided.params.slice(2)] };
      const byCompiled = async (executeArgs: Parameters<typeof executeFn>[0]): Promise<unknown> => {
        let row: { data: string; ok: boolean } | undefined;
        try {
          [row] = await ctx.services.db.sql.query<{ data: string; ok: boolean }>(compiled.text, compiled.params);
        } catch (error) {
          // The resolvers answer what a failure is (an outage: `unavailable`), as for any read.
          ctx.log.warn({ err: error }, 'graphql: the compiled statement failed; the resolvers answer');
          return byResolvers(executeArgs);
        }
        // A condition the answer needs does not hold (a cursor the tenant does not have): the resolvers' error.
        if (!row?.ok) return byResolvers(executeArgs);
        answeredBy('compiled');
        return compiledResult(row.data);
      };
      setExecuteFn(byCompiled as typeof executeFn);
    },
    onResponse({ request, response }) {
      const path = paths.get(request);
      if (path) response.headers.set('x-graphql-execution', path);
    },
  };
}
