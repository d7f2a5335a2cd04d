/**
 * The service's surface as the hostile-input tests see it, derived, never listed by hand: REST
 * operations from the route registry and the OpenAPI document built from it, GraphQL root fields from
 * schema introspection. A route, bulk route, query or mutation added later is fuzzed and swept
 * without editing these tests.
 */
import fc from 'fast-check';
import { openApiDocument, restRoutes } from '../../src/routes.js';
import type { Route } from '../../src/http/route.js';
import type { TestApp } from '../helpers/app.js';
import { bodyEncoding, fromSchema, headerValue, hostileDateTime, hostileJson, hostileNumber, hostileString, type SchemaContext } from './arbitraries.js';

type Json = Record<string, any>;
const doc = openApiDocument as unknown as Json;

export const resolveRef = (ref: string): Json =>
  ref
    .replace(/^#\//, '')
    .split('/')
    .reduce((node: Json, key) => node[key], doc);
const deref = (node: Json): Json => (node?.$ref ? deref(resolveRef(node.$ref)) : node);

export interface RestOperation {
  route: Route;
  method: string;
  path: string;
  /** The OpenAPI operation (parameters resolved). */
  parameters: Json[];
  bodySchema: Json | null;
  name: string;
}

/** Every REST operation: the route registry, documented by the OpenAPI document (which must know each one). */
export function restOperations(): RestOperation[] {
  return restRoutes.map((route) => {
    const op = doc.paths?.[route.path]?.[route.method.toLowerCase()];
    if (!op) throw new Error(`${route.method} ${route.path} is served but not in the OpenAPI document`);
    return {
      route,
      method: route.method,
      path: route.path,
      parameters: (op.parameters ?? []).map(deref),
      bodySchema: op.requestBody?.content?.['application/json']?.schema ?? null,
      name: `${route.method} ${route.path}`,
    };
  });
}

/** Permalinks and TMS ids of the fuzzing tenant's stored records, by body field. */
export type Pool = Map<string, string[]>;

/** Field-name knowledge for generated values: permalinks that exist, that belong to the tenant, or not. */
export function schemaContext(slug: string, pool: Pool, otherSlug: string): SchemaContext {
  const snake = (field: string) => field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
  return {
    resolve: resolveRef,
    special(field) {
      const name = snake(field);
      const known = pool.get(name);
      if (name === 'company_permalink') return fc.constantFrom(slug, slug.toUpperCase(), otherSlug, `${slug}\u0000`, '');
      if (name.endsWith('_permalink')) {
        return fc.oneof(
          { weight: 4, arbitrary: known?.length ? fc.constantFrom(...known) : fc.constant(`P1-${slug}`) },
          { weight: 3, arbitrary: fc.stringMatching(/^[A-Z0-9]{1,8}$/).map((id) => `${id}-${slug}`) },
          { weight: 2, arbitrary: hostileString.map((id) => `${id}-${slug}`) },
          { weight: 1, arbitrary: fc.constantFrom(`X-${otherSlug}`, `X-${slug}-x`, '-', `-${slug}`) },
        );
      }
      if (known?.length) return fc.oneof(fc.constantFrom(...known), hostileString);
      return null;
    },
  };
}

export interface RestCase {
  method: string;
  path: string;
  headers: Record<string, string>;
  body: string | Uint8Array<ArrayBuffer> | undefined;
  /** The body's value before encoding (for the "nothing stored" check). */
  value: unknown;
}

const otherMethods = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'];

/** Requests against one REST operation: method, path, query, headers and body, each mostly sane, often hostile. */
/** A generated value as query-string text: objects as JSON (`String` throws on one whose `toString` key holds no function). */
const queryText = (value: unknown) => (typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value));

export function restCase(op: RestOperation, ctx: SchemaContext, keys: { tenant: string; admin: string }): fc.Arbitrary<RestCase> {
  const queryParams = op.parameters.filter((p) => p.in === 'query');
  const query = fc.record({
    fixed: fc.tuple(
      ...queryParams.map((p) =>
        fc
          .option(p.schema?.format === 'date-time' ? hostileDateTime : fromSchema(p.schema ?? {}, ctx, p.name).map(queryText), { nil: undefined })
          .map((v) => [p.name as string, v] as const),
      ),
    ),
    extra: fc.array(fc.tuple(fc.oneof(hostileString, fc.constantFrom(...queryParams.map((p) => p.name), 'sync_run_time')), hostileString), { maxLength: 2 }),
  });
  const value = op.bodySchema ? fromSchema(op.bodySchema, ctx) : hostileJson;
  const path = fc.oneof(
    { weight: 20, arbitrary: fc.constant(op.path) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(`${op.path}/`, op.path.toUpperCase(), op.path.replace('/api/', '//api/'), `${op.path}%00`, `${op.path}/..%2f..%2f`),
    },
  );
  const method = fc.oneof({ weight: 20, arbitrary: fc.constant(op.method) }, { weight: 1, arbitrary: fc.constantFrom(...otherMethods) });
  const contentType = fc.oneof(
    { weight: 12, arbitrary: fc.constant('application/json') },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        'application/json; charset=utf-8',
        'APPLICATION/JSON',
        'application/vnd.tms+json',
        'text/plain',
        'application/x-www-form-urlencoded',
        'multipart/form-data; boundary=x',
        'application/jsonp',
        '',
      ),
    },
    { weight: 1, arbitrary: headerValue },
  );
  const headers = fc.record(
    {
      'x-api-key': fc.oneof(
        { weight: 12, arbitrary: fc.constant(keys.tenant) },
        { weight: 1, arbitrary: fc.constant(keys.admin) },
        { weight: 1, arbitrary: headerValue },
      ),
      'content-type': contentType,
      'service-ingest-source': fc.oneof(fc.constantFrom('pull', 'webhook', ' PULL ', 'Webhook'), headerValue),
      'x-request-id': headerValue,
      'x-tenant': headerValue,
    },
    { requiredKeys: [] },
  );
  return fc
    .tuple(
      method,
      path,
      query,
      headers,
      value.chain((v) => fc.tuple(fc.constant(v), bodyEncodingOf(v))),
      fc.integer({ min: 0, max: 30 }),
    )
    .map(([m, p, { fixed, extra }, h, [v, body], lie]) => {
      const params = new URLSearchParams();
      for (const [name, val] of fixed) if (val !== undefined) params.append(name, val);
      for (const [name, val] of extra) params.append(name, val);
      const qs = params.toString();
      const headers: Record<string, string> = { ...h };
      // A Content-Length that lies (beyond the body limit, or not the body's size).
      if (lie === 30) headers['content-length'] = '99999999999';
      else if (lie === 29) headers['content-length'] = '1';
      return { method: m, path: qs ? `${p}?${qs}` : p, headers, body: m === 'GET' ? undefined : body, value: v };
    });
}

const bodyEncodingOf = (v: unknown) => bodyEncoding(fc.constant(v));

/* ------------------------------------------------------------------------------------------------
 * GraphQL: root fields from introspection
 * ---------------------------------------------------------------------------------------------- */

export interface TypeRef {
  kind: string;
  name: string | null;
  ofType: TypeRef | null;
}
interface IntrospectionField {
  name: string;
  args: { name: string; type: TypeRef }[];
  type: TypeRef;
}
interface IntrospectionType {
  kind: string;
  name: string;
  fields: IntrospectionField[] | null;
  inputFields: { name: string; type: TypeRef }[] | null;
  enumValues: { name: string }[] | null;
}

export interface GraphQLSurface {
  types: Map<string, IntrospectionType>;
  queries: IntrospectionField[];
  mutations: IntrospectionField[];
}

const typeRefFragment = 'kind name ofType { kind name ofType { kind name ofType { kind name ofType { kind name } } } }';
const introspectionQuery = `{ __schema {
  queryType { name } mutationType { name }
  types { kind name enumValues { name } inputFields { name type { ${typeRefFragment} } }
    fields { name type { ${typeRefFragment} } args { name type { ${typeRefFragment} } } } } } }`;

/** The GraphQL schema as a client sees it: one introspection query through the app. */
export async function introspect(testApp: TestApp, apiKey: string): Promise<GraphQLSurface> {
  const res = await testApp.fetch('/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
    body: JSON.stringify({ query: introspectionQuery }),
  });
  const { data } = (await res.json()) as {
    data: { __schema: { queryType: { name: string }; mutationType: { name: string } | null; types: IntrospectionType[] } };
  };
  const types = new Map(data.__schema.types.map((t) => [t.name, t]));
  return {
    types,
    queries: types.get(data.__schema.queryType.name)!.fields!,
    mutations: data.__schema.mutationType ? types.get(data.__schema.mutationType.name)!.fields! : [],
  };
}

const typeString = (t: TypeRef): string => (t.kind === 'NON_NULL' ? `${typeString(t.ofType!)}!` : t.kind === 'LIST' ? `[${typeString(t.ofType!)}]` : t.name!);
const namedOf = (t: TypeRef): TypeRef => (t.ofType ? namedOf(t.ofType) : t);
const isRequired = (t: TypeRef) => t.kind === 'NON_NULL';

/** A value for a GraphQL input type: mostly valid in type, hostile in content, sometimes of the wrong type. */
function graphqlValue(surface: GraphQLSurface, t: TypeRef, ctx: SchemaContext, field: string, depth = 0): fc.Arbitrary<unknown> {
  const wrong = { weight: 1, arbitrary: hostileJson };
  if (t.kind === 'NON_NULL')
    return fc.oneof({ weight: 20, arbitrary: graphqlValue(surface, t.ofType!, ctx, field, depth) }, { weight: 1, arbitrary: fc.constant(null) });
  if (t.kind === 'LIST') return fc.oneof({ weight: 6, arbitrary: fc.array(graphqlValue(surface, t.ofType!, ctx, field, depth + 1), { maxLength: 4 }) }, wrong);
  const type = surface.types.get(t.name!)!;
  if (type.kind === 'ENUM')
    return fc.oneof({ weight: 8, arbitrary: fc.constantFrom(...type.enumValues!.map((v) => v.name)) }, { weight: 1, arbitrary: hostileString }, wrong);
  if (type.kind === 'INPUT_OBJECT') {
    if (depth > 4) return hostileJson;
    const fields = type.inputFields!.map((f) =>
      fc.tuple(
        fc.constant(f.name),
        isRequired(f.type) ? fc.oneof({ weight: 12, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }) : fc.boolean(),
        graphqlValue(surface, f.type, ctx, f.name, depth + 1),
      ),
    );
    const object = fc.tuple(...fields).map((entries) => Object.fromEntries(entries.filter(([, present]) => present).map(([name, , value]) => [name, value])));
    return fc.oneof({ weight: 10, arbitrary: object }, wrong);
  }
  const special = ctx.special(field);
  const scalar: Record<string, fc.Arbitrary<unknown>> = {
    String: special ?? fc.oneof(fc.string({ maxLength: 30 }), hostileString),
    ID: special ?? hostileString,
    Int: fc.oneof(fc.integer({ min: -5, max: 120 }), hostileNumber),
    Float: hostileNumber,
    Boolean: fc.boolean(),
    DateTime: hostileDateTime,
    JSON: hostileJson,
  };
  return fc.oneof({ weight: 8, arbitrary: scalar[type.name] ?? hostileJson }, wrong);
}

/**
 * A selection of the type's scalar fields and its object and list fields down to `levels` object
 * levels (fields with required arguments left out).
 */
export function selection(surface: GraphQLSurface, t: TypeRef, levels = 2, depth = 0): string {
  const type = surface.types.get(namedOf(t).name!)!;
  if (type.kind !== 'OBJECT') return '';
  const parts = ['__typename'];
  for (const f of type.fields!) {
    if (f.args.some((a) => isRequired(a.type))) continue;
    const named = surface.types.get(namedOf(f.type).name!)!;
    if (named.kind === 'OBJECT') {
      if (depth < levels) parts.push(`${f.name} ${selection(surface, f.type, levels, depth + 1)}`);
    } else parts.push(f.name);
  }
  return `{ ${parts.join(' ')} }`;
}

export interface GraphQLCase {
  query: string;
  variables: Record<string, unknown>;
  headers: Record<string, string>;
}

/** Operations calling one root field with generated arguments (passed as typed variables). */
export function graphqlCase(
  surface: GraphQLSurface,
  kind: 'query' | 'mutation',
  field: IntrospectionField,
  ctx: SchemaContext,
  keys: { tenant: string; admin: string; slug: string },
): fc.Arbitrary<GraphQLCase> {
  const args = field.args.map((a) =>
    fc.tuple(
      fc.constant(a),
      isRequired(a.type) ? fc.oneof({ weight: 15, arbitrary: fc.constant(true) }, { weight: 1, arbitrary: fc.constant(false) }) : fc.boolean(),
      graphqlValue(surface, a.type, ctx, a.name),
    ),
  );
  const headers = fc.record(
    {
      'x-api-key': fc.oneof(
        { weight: 14, arbitrary: fc.constant(keys.tenant) },
        { weight: 2, arbitrary: fc.constant(keys.admin) },
        { weight: 1, arbitrary: headerValue },
      ),
      'x-tenant': fc.oneof(fc.constant(keys.slug), headerValue),
      'service-ingest-source': fc.oneof(fc.constantFrom('pull', 'webhook'), headerValue),
    },
    { requiredKeys: ['x-api-key'] },
  );
  const sel = selection(surface, field.type);
  return fc.tuple(fc.tuple(...args), headers).map(([given, h]) => {
    const used = given.filter(([, present]) => present);
    const defs = used.map(([a]) => `$${a.name}: ${typeString(a.type)}`).join(', ');
    const call = used.map(([a]) => `${a.name}: $${a.name}`).join(', ');
    const query = `${kind} Fuzz${defs ? `(${defs})` : ''} { ${field.name}${call ? `(${call})` : ''} ${sel} }`;
    return { query, variables: Object.fromEntries(used.map(([a, , v]) => [a.name, v])), headers: { ...h } };
  });
}
