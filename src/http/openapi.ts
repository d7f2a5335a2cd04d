/**
 * The OpenAPI 3.1 document of the REST API, derived from the route list and the zod schemas (zod 4's
 * `z.toJSONSchema`): field types, max lengths, nullability, required fields and each field's
 * `x-service-importance` come from the schemas, error responses from the error catalog. Nothing here
 * lists fields by hand, so the document cannot drift from what the service validates.
 */
import { createRequire } from 'node:module';
import { z } from 'zod';
import { errorStatus, type ErrorCode } from '../errors.js';
import { ingestSources } from '../domain/ingest-health/events.js';
import type { Route } from './route.js';
import { ErrorResponse } from './schemas.js';

type Json = Record<string, unknown>;

/** What each error code means, as documented on the responses that can carry it. */
const errorDescriptions = {
  invalid_json: 'the body is not parseable JSON or not a JSON object',
  validation_failed: 'a field, the query or a header is invalid; `details` lists every offending field',
  unauthenticated: '`X-API-Key` is missing, unknown or revoked',
  tenant_mismatch: '`company_permalink` differs from the API key\'s tenant',
  forbidden: 'the key may not do this (GraphQL only: the support engineers\' key is read-only)',
  not_found: 'no such route',
  method_not_allowed: 'the route does not take this method (see the `Allow` header)',
  payload_too_large: 'the body is over the route\'s size limit',
  unsupported_media_type: 'the Content-Type is not JSON',
  parent_not_found: 'a referenced parent record does not exist for this tenant',
  rate_limited: 'the tenant\'s request rate is exceeded (see `Retry-After`)',
  internal: 'an unexpected failure; the body carries no detail',
  unavailable: 'the database is unreachable and nothing was written; retry after `Retry-After` seconds',
} as const satisfies Record<ErrorCode, string>;

/** Headers that come with some error statuses. */
const errorHeaders: Partial<Record<number, Json>> = {
  405: { Allow: { description: 'The methods the route takes.', schema: { type: 'string' } } },
  503: { 'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'integer' } } },
};

/** The errors every route of a kind can answer, besides those its `doc.errors` names. */
function commonErrors(route: Route): ErrorCode[] {
  const codes: ErrorCode[] = ['internal'];
  if (route.auth === 'tenant') codes.push('unauthenticated', 'unavailable');
  if (route.method === 'POST') codes.push('unsupported_media_type', 'payload_too_large', 'invalid_json', 'validation_failed');
  if (route.doc.query || route.doc.ingestSource) codes.push('validation_failed');
  return codes;
}

function routeErrors(route: Route): ErrorCode[] {
  for (const code of route.doc.errors ?? []) {
    if (!(code in errorStatus)) throw new Error(`${route.method} ${route.path} documents an unknown error code "${code}".`);
  }
  return [...new Set([...commonErrors(route), ...((route.doc.errors ?? []) as ErrorCode[])])];
}

/** Replaces every `#/$defs/…` reference with the component it is moved to. */
function toComponentRefs(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(toComponentRefs);
  if (!value || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, v]) => [
      key,
      key === '$ref' && typeof v === 'string' ? v.replace(/^#\/\$defs\//, '#/components/schemas/') : toComponentRefs(v),
    ]),
  );
}

/**
 * Converts zod schemas to JSON Schema; schemas with an `id` in their meta become shared components
 * (the same id converted twice must give the same schema).
 */
function createSchemaConverter() {
  const components: Record<string, Json> = {};
  function convert(schema: z.ZodType, io: 'input' | 'output'): Json {
    const { $schema: _dialect, $defs, ...root } = z.toJSONSchema(schema, { target: 'draft-2020-12', io, unrepresentable: 'any' }) as Json;
    for (const [id, definition] of Object.entries(($defs ?? {}) as Record<string, Json>)) {
      const component = toComponentRefs(definition) as Json;
      if (components[id] && JSON.stringify(components[id]) !== JSON.stringify(component)) {
        throw new Error(`Two different schemas are named "${id}" (input and output shapes differ?).`);
      }
      components[id] = component;
    }
    return toComponentRefs(root) as Json;
  }
  return { convert, components };
}

const camel = (words: string[]) => words.map((w, i) => (i ? w[0]!.toUpperCase() + w.slice(1) : w)).join('');

/** `POST /api/v1/loads/upsert` → `postLoadsUpsert`. */
const operationId = (route: Route) =>
  camel([route.method.toLowerCase(), ...route.path.replace(/^\/api\/v1\//, '').split(/[^A-Za-z0-9]+/).filter(Boolean)]);

const jsonContent = (schema: Json) => ({ 'application/json': { schema } });

const requestIdHeader = { $ref: '#/components/headers/RequestId' };

export interface OpenApiInfo {
  title: string;
  version: string;
  description?: string;
}

const packageVersion = (createRequire(import.meta.url)('../../package.json') as { version: string }).version;

const defaultInfo: OpenApiInfo = {
  title: 'tms-ingest',
  version: packageVersion,
  description: [
    'Ingestion API for transport management systems. Post carriers, loads, load legs, stops and load updates',
    '(in that order the first time); every request carries the tenant\'s `X-API-Key`.',
    'Each body field carries `x-service-importance`: `required` (rejected without it; present, `null` allowed',
    'unless the field is non-nullable), `recommended` (a feature depends on it) or `optional` (stored and shown).',
    'Fields not described here are accepted and kept verbatim in the record\'s `extra`.',
    'Every non-200 answer is `ErrorResponse`. Unknown paths answer 404 `not_found`; a known path with',
    'another method answers 405 `method_not_allowed` with `Allow`.',
  ].join(' '),
};

/** The document served at GET /api/v1/openapi.json; build it once per route list. */
export function buildOpenApiDocument(routes: readonly Route[], info: OpenApiInfo = defaultInfo) {
  const schemas = createSchemaConverter();
  const errorSchema = schemas.convert(ErrorResponse, 'output');

  function errorResponses(codes: ErrorCode[]) {
    const byStatus = new Map<number, ErrorCode[]>();
    for (const code of codes) byStatus.set(errorStatus[code], [...(byStatus.get(errorStatus[code]) ?? []), code]);
    return Object.fromEntries(
      [...byStatus].sort(([a], [b]) => a - b).map(([status, group]) => [
        String(status),
        {
          description: group.map((code) => `\`${code}\`: ${errorDescriptions[code]}.`).join(' '),
          headers: { 'X-Request-Id': requestIdHeader, ...errorHeaders[status] },
          content: jsonContent({
            allOf: [errorSchema, { type: 'object', properties: { error: { type: 'object', properties: { code: { enum: group } } } } }],
          }),
        },
      ]),
    );
  }

  function queryParameters(query: z.ZodType | undefined): Json[] {
    if (!query) return [];
    const { properties = {}, required = [] } = schemas.convert(query, 'input') as { properties?: Record<string, Json>; required?: string[] };
    return Object.entries(properties).map(([name, { description, ...schema }]) => ({
      name,
      in: 'query',
      required: required.includes(name),
      ...(description ? { description } : {}),
      schema,
    }));
  }

  function operation(route: Route): Json {
    const { doc } = route;
    const headers: Json[] = [{ $ref: '#/components/parameters/RequestId' }];
    if (doc.ingestSource) headers.push({ $ref: '#/components/parameters/ServiceIngestSource' });
    return {
      operationId: operationId(route),
      summary: doc.summary,
      ...(doc.description ? { description: doc.description } : {}),
      tags: doc.tags,
      security: route.auth === 'tenant' ? [{ ApiKey: [] }] : [],
      parameters: [...queryParameters(doc.query), ...headers],
      ...(doc.requestBody ? { requestBody: { required: true, content: jsonContent(schemas.convert(doc.requestBody, 'input')) } } : {}),
      responses: {
        '200': {
          description: 'Done; for writes, only after the write has committed.',
          headers: { 'X-Request-Id': requestIdHeader },
          content: jsonContent(doc.response ? schemas.convert(doc.response, 'output') : {}),
        },
        ...errorResponses(routeErrors(route)),
      },
    };
  }

  const paths: Record<string, Record<string, Json>> = {};
  for (const route of routes) (paths[route.path] ??= {})[route.method.toLowerCase()] = operation(route);

  const routeLevel = (code: ErrorCode) => ({
    description: `\`${code}\`: ${errorDescriptions[code]}.`,
    headers: { 'X-Request-Id': requestIdHeader, ...errorHeaders[errorStatus[code]] },
    content: jsonContent(errorSchema),
  });

  return {
    openapi: '3.1.0',
    info,
    tags: [...new Set(routes.flatMap((r) => r.doc.tags))].map((name) => ({ name })),
    paths,
    components: {
      schemas: schemas.components,
      securitySchemes: {
        ApiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: 'The tenant\'s API key (`npm run tenant -- create`).' },
      },
      headers: {
        RequestId: {
          description: 'The request id: the caller\'s `X-Request-Id` when it is sane, else a new UUID. Quote it to support.',
          schema: { type: 'string' },
        },
      },
      parameters: {
        RequestId: { name: 'X-Request-Id', in: 'header', required: false, description: 'Your id for the request, echoed on the response (1–128 of `A-Z a-z 0-9 _ . : -`).', schema: { type: 'string', maxLength: 128 } },
        ServiceIngestSource: {
          name: 'Service-Ingest-Source',
          in: 'header',
          required: false,
          description: 'Which path of the TMS sent the request, so each path\'s health is monitored separately (compared case-insensitively; absent counts as `unspecified`).',
          schema: { type: 'string', enum: ingestSources.filter((s) => s !== 'unspecified') },
        },
      },
      // Answers that belong to no operation: unknown paths and wrong methods.
      responses: { NotFound: routeLevel('not_found'), MethodNotAllowed: routeLevel('method_not_allowed') },
    },
  };
}

export type OpenApiDocument = ReturnType<typeof buildOpenApiDocument>;

/** The response schema of GET /api/v1/openapi.json. */
export const OpenApiDocumentSchema = z
  .looseObject({ openapi: z.string(), info: z.looseObject({}), paths: z.looseObject({}) })
  .meta({ id: 'OpenApiDocument', description: 'An OpenAPI 3.1 document.' });
