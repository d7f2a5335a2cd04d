/**
 * The OpenAPI 3.1 document of the REST API, built by zod-openapi from the route list and the zod
 * schemas: field types, max lengths, nullability, required fields, examples and each field's
 * `x-service-importance` come from the schemas (zod's own JSON Schema output), error responses from
 * the error catalog. Nothing here lists fields by hand, so the document cannot drift from what the
 * service validates.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { createDocument, type ZodOpenApiOperationObject, type ZodOpenApiResponsesObject } from 'zod-openapi';
import { apiKeyChallenge, errorStatus, type ErrorCode } from '../errors.js';
import { projectRoot } from '../paths.js';
import { recordSpecs } from '../domain/registry.js';
import type { Route } from './route.js';
import { errorExamples, ErrorResponse, IngestHeaders, RequestHeaders, RequestIdHeader, RetryAfterHeader, AllowHeader } from './schemas.js';

/** What each error code means, as documented on the responses that can carry it. */
const errorDescriptions = {
  invalid_json: 'the body is not parseable JSON (or not UTF-8, or nested more than 64 levels) or not a JSON object',
  validation_failed:
    'a field, the query or a header is invalid (a query parameter the operation does not list, too); `details` lists every offending field or parameter. Any operation: the request is not valid HTTP/1.1 (a control byte in a header value or name), answered before it is read, and the connection is closed',
  unauthenticated: '`X-API-Key` is missing, unknown or revoked',
  tenant_mismatch: "`company_permalink` differs from the API key's tenant",
  forbidden: "the key may not do this (GraphQL only: the support engineers' key is read-only)",
  not_found: 'no such route',
  method_not_allowed: 'the route does not take this method (see the `Allow` header)',
  payload_too_large: "the body is over the route's size limit",
  unsupported_media_type: 'the Content-Type is not JSON',
  parent_not_found: 'a referenced parent record does not exist for this tenant',
  rate_limited: "the tenant's rate limit is exceeded, or too many failed API keys came from the client's address; retry after `Retry-After` seconds",
  internal: 'an unexpected failure; the body carries no detail',
  unavailable: 'the database is unreachable, or the service is overloaded and sheds new requests; nothing was written; retry after `Retry-After` seconds',
} as const satisfies Record<ErrorCode, string>;

/** The challenge of every 401 (RFC 9110 §11.6.1). */
const WwwAuthenticateHeader = z.literal(apiKeyChallenge).meta({
  header: {
    id: 'WWWAuthenticate',
    description: 'How to authenticate: an API key in the `X-API-Key` header (the `ApiKey` scheme, with the header named by its `header` parameter).',
  },
  examples: [apiKeyChallenge],
});

/** Headers that come with some error statuses (besides `X-Request-Id`, which every answer carries). */
const errorHeaders: Partial<Record<number, Record<string, z.ZodType>>> = {
  401: { 'WWW-Authenticate': WwwAuthenticateHeader },
  405: { Allow: AllowHeader },
  429: { 'Retry-After': RetryAfterHeader },
  503: { 'Retry-After': RetryAfterHeader },
};

/** The IETF draft's rate-limit headers (draft-ietf-httpapi-ratelimit-headers), on the answers of a rate-limited route. */
const rateLimitHeaders: Record<string, z.ZodType> = {
  'RateLimit-Policy': z
    .string()
    .optional()
    .meta({
      header: {
        id: 'RateLimitPolicy',
        description:
          'The tenant\'s ingestion limit, a token bucket counted in records: `"ingest";q=<bucket size>;w=<seconds to refill it>` (rate = q/w records per second; a bulk request costs its record count). Absent when the tenant has no limit, and on answers given before authentication (401, or 503 while the service sheds load).',
      },
      examples: ['"ingest";q=10000;w=10'],
    }),
  RateLimit: z
    .string()
    .optional()
    .meta({
      header: {
        id: 'RateLimit',
        description: 'The bucket after this request: `"ingest";r=<records left>;t=<seconds until full>`. Present whenever `RateLimit-Policy` is.',
      },
      examples: ['"ingest";r=9999;t=1'],
    }),
};

/** The errors every route of a kind can answer, besides those its `doc.errors` names. */
function commonErrors(route: Route): ErrorCode[] {
  // Every route may be shed with 503 while the service is overloaded, and refuses malformed HTTP with 400.
  const codes: ErrorCode[] = ['validation_failed', 'internal', 'unavailable'];
  if (route.auth === 'tenant') codes.push('unauthenticated');
  // 429: a rate-limited route's tenant bucket, or (any keyed route) too many failed keys from the address.
  if (route.auth === 'tenant' || route.rateLimit) codes.push('rate_limited');
  if (route.method === 'POST') codes.push('unsupported_media_type', 'payload_too_large', 'invalid_json');
  return codes;
}

function routeErrors(route: Route): ErrorCode[] {
  for (const code of route.doc.errors ?? []) {
    if (!(code in errorStatus)) throw new Error(`${route.method} ${route.path} documents an unknown error code "${code}".`);
  }
  return [...new Set([...commonErrors(route), ...((route.doc.errors ?? []) as ErrorCode[])])];
}

const camel = (words: string[]) => words.map((w, i) => (i ? w[0]!.toUpperCase() + w.slice(1) : w)).join('');

/** `POST /api/v1/loads/upsert` → `postLoadsUpsert`. */
const operationId = (route: Route) =>
  camel([
    route.method.toLowerCase(),
    ...route.path
      .replace(/^\/api\/v1\//, '')
      .split(/[^A-Za-z0-9]+/)
      .filter(Boolean),
  ]);

/** The first `examples` entry of a schema's meta (the body examples live next to the fields). */
const exampleOf = (schema: z.ZodType | undefined): unknown => (schema ? (z.globalRegistry.get(schema)?.examples as unknown[] | undefined)?.[0] : undefined);

/**
 * What Node's HTTP server answers itself, before the service reads the request (src/http/client-error.ts):
 * no body, no `X-Request-Id`, and the connection is closed. Any operation can get them.
 */
const transportResponses: ZodOpenApiResponsesObject = {
  '408': {
    description:
      'The headers (`HTTP_HEADERS_TIMEOUT_MS`, 10 s) or the whole request (`HTTP_REQUEST_TIMEOUT_MS`, 30 s) arrived too slowly. No body; the connection is closed.',
  },
  '431': { description: "The request's header section is over 16 KiB. No body; the connection is closed." },
};

/** Error responses grouped by status: one response per status, naming its codes, with one example per code. */
function errorResponses(codes: ErrorCode[], example: (code: ErrorCode) => unknown, extraHeaders: Record<string, z.ZodType> = {}): ZodOpenApiResponsesObject {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) byStatus.set(errorStatus[code], [...(byStatus.get(errorStatus[code]) ?? []), code]);
  return Object.fromEntries(
    [...byStatus]
      .sort(([a], [b]) => a - b)
      .map(([status, group]) => [
        String(status),
        {
          description: group.map((code) => `\`${code}\`: ${errorDescriptions[code]}.`).join(' '),
          headers: z.object({ 'X-Request-Id': RequestIdHeader, ...errorHeaders[status], ...(status === 401 ? {} : extraHeaders) }),
          content: {
            'application/json': {
              schema: ErrorResponse,
              examples: Object.fromEntries(group.map((code) => [code, { summary: errorDescriptions[code], value: example(code) }])),
            },
          },
        },
      ]),
  );
}

export interface OpenApiInfo {
  title: string;
  version: string;
  description?: string;
}

const packageVersion = (JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as { version: string }).version;

const defaultInfo: OpenApiInfo = {
  title: 'tms-ingest',
  version: packageVersion,
  description: [
    'Ingestion API for transport management systems. Post carriers, loads, load legs, stops and load updates',
    "(in that order the first time); every request carries the tenant's `X-API-Key`.",
    'Each body field carries `x-service-importance`: `required` (rejected without it; present, `null` allowed',
    'unless the field is non-nullable), `recommended` (a feature depends on it) or `optional` (stored and shown).',
    "Fields not described here are accepted and kept verbatim in the record's `extra` (a delete's in its payload",
    'history only). No string may hold NUL (U+0000) or a lone surrogate (`\\ud800` without its pair), in a',
    'described field or an unknown one, value or key: PostgreSQL cannot store them, so the request is a 400 `validation_failed` naming the field.',
    'Date-times are stored as their instant in UTC, to the millisecond, whatever offset they were sent with.',
    'Each operation takes the query parameters it lists and no other: an unknown one (`sync_runtime`) is a 400 `validation_failed`',
    'naming it, with the parameter it most likely means, so a typo never goes unnoticed.',
    'Every non-200 answer is an `ErrorResponse` and carries `X-Request-Id`, except the 408 and 431 the HTTP server answers itself',
    '(no body; the connection is closed). A request that is not valid HTTP/1.1 (a control byte in a header) answers 400 `validation_failed`',
    'and its connection is closed; every 401 carries `WWW-Authenticate: ApiKey realm="tms-ingest", header="X-API-Key"`. Unknown paths answer 404 `not_found`',
    '(its message points to `GET /`, the start page listing GraphiQL, this document, its reference page and health);',
    'a known path with any other method (`OPTIONS` included, and `HEAD` where the path takes no `GET`) answers 405 `method_not_allowed`',
    "with `Allow` listing the path's methods; `HEAD` on a `GET` path answers what `GET` would, without the body (RFC 9110).",
    'REST routes do not answer CORS preflights: they are meant for servers.',
  ].join(' '),
};

/** Tag descriptions: one tag per record kind (its label, described by its declaration), plus the document itself. */
const tagDescriptions: Record<string, string> = {
  ...Object.fromEntries(recordSpecs.map((spec) => [spec.label, spec.rest.about])),
  Meta: 'About the API itself.',
};

/** The document served at GET /api/v1/openapi.json; build it once per route list. */
export function buildOpenApiDocument(routes: readonly Route[], info: OpenApiInfo = defaultInfo) {
  function operation(route: Route): ZodOpenApiOperationObject {
    const { doc } = route;
    const requestExample = exampleOf(doc.requestBody);
    const responseExample = doc.responseExample?.(requestExample) ?? exampleOf(doc.response);
    return {
      operationId: operationId(route),
      summary: doc.summary,
      ...(doc.description ? { description: doc.description } : {}),
      tags: doc.tags,
      security: route.auth === 'tenant' ? [{ ApiKey: [] }] : [],
      requestParams: {
        ...(route.query ? { query: route.query } : {}),
        header: doc.ingestSource ? IngestHeaders : RequestHeaders,
      },
      ...(doc.requestBody ? { requestBody: { required: true, content: { 'application/json': { schema: doc.requestBody, example: requestExample } } } } : {}),
      responses: {
        '200': {
          description: 'Done; for writes, only after the write has committed.',
          headers: z.object({ 'X-Request-Id': RequestIdHeader, ...(route.rateLimit ? rateLimitHeaders : {}) }),
          content: { 'application/json': { schema: doc.response ?? z.unknown(), example: responseExample } },
        },
        ...errorResponses(
          routeErrors(route),
          (code) => errorExamples[code](requestExample as Record<string, unknown> | undefined, doc.tags[0] ?? '', route),
          route.rateLimit ? rateLimitHeaders : {},
        ),
        ...transportResponses,
      },
    };
  }

  const paths: Record<string, Record<string, ZodOpenApiOperationObject>> = {};
  for (const route of routes) {
    paths[route.path] ??= {};
    paths[route.path]![route.method.toLowerCase()] = operation(route);
  }
  const tags = [...new Set(routes.flatMap((r) => r.doc.tags))];
  const undescribed = tags.filter((name) => !tagDescriptions[name]);
  if (undescribed.length) throw new Error(`Tags without a description: ${undescribed.join(', ')}.`);

  return createDocument({
    openapi: '3.1.0',
    info: {
      ...info,
      contact: { name: 'tms-ingest maintainers' },
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: '/', description: 'The server that serves this document (locally http://localhost:4000 after `npm start`).' }],
    tags: tags.map((name) => ({ name, description: tagDescriptions[name] })),
    paths,
    components: {
      securitySchemes: {
        ApiKey: { type: 'apiKey', in: 'header', name: 'X-API-Key', description: "The tenant's API key (`npm run tenant -- create`)." },
      },
    },
  });
}

export type OpenApiDocument = ReturnType<typeof buildOpenApiDocument>;

/** The response schema of GET /api/v1/openapi.json. */
export const OpenApiDocumentSchema = z.looseObject({ openapi: z.string(), info: z.looseObject({}), paths: z.looseObject({}) }).meta({
  id: 'OpenApiDocument',
  description: 'An OpenAPI 3.1 document.',
  examples: [{ openapi: '3.1.0', info: { title: 'tms-ingest', version: packageVersion }, paths: {} }],
});
