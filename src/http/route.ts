/** A REST route: what the router matches, what the pipeline checks, and the handler it calls. */
import type { z } from 'zod';
import type { RecordKind } from '../domain/registry.js';
import type { IngestOperation } from '../domain/ingestion/operation.js';
import type { TenantRef } from '../domain/declaration/tenant-ref.js';
import type { IngestRequest } from '../domain/ingestion/ingest-request.js';
import type { RequestScope } from '../context.js';

export interface RouteContext extends RequestScope {
  request: Request;
  url: URL;
  /** The key's tenant (routes with `auth: 'none'` get null). */
  tenant: TenantRef | null;
  /** The parsed JSON object body (POST routes). */
  body: Record<string, unknown>;
  /** The ingestion edge of an ingestion route's request (null on other routes). */
  ingest: IngestRequest | null;
  /** Service clock at the start of the request. */
  now: Date;
}

/** A handler's answer (the pipeline turns it into JSON). */
export interface RouteResult {
  body: unknown;
  status?: number;
  headers?: Record<string, string>;
}

/** Documentation the OpenAPI document is built from. */
export interface RouteDoc {
  summary: string;
  description?: string;
  tags: string[];
  requestBody?: z.ZodType;
  /** Response schema of a 200. */
  response?: z.ZodType;
  /** Example 200 body for the request body's example (default: the response schema's first `examples` entry). */
  responseExample?: (requestExample: unknown) => unknown;
  /** Error codes the route can answer besides the common ones. */
  errors?: string[];
  /** Whether the route takes the Service-Ingest-Source header. */
  ingestSource?: boolean;
}

export interface Route {
  method: 'GET' | 'POST';
  path: string;
  /** `tenant`: X-API-Key required; `none`: public (the OpenAPI document). */
  auth: 'tenant' | 'none';
  /**
   * The ingestion operation of an ingestion route: it reports its records to ingest accounting; the
   * pipeline reports through it only the requests rejected before the handler ran.
   */
  ingestion?: IngestOperation;
  /**
   * The query parameters the route takes (the OpenAPI document's `parameters`): any other is a 400
   * `validation_failed` naming it, with the parameter it most likely means. A route without one
   * (the OpenAPI document's own) ignores its query string.
   */
  query?: z.ZodObject;
  /** Largest body the route reads (default: the service's `maxBodyBytes`, 1 MiB). */
  maxBodyBytes?: number;
  /** What the 413 message tells a sender whose body is over `maxBodyBytes` (for example the bulk route to use). */
  tooLargeAdvice?: string;
  /** What the 400 tells a sender whose body is a JSON array rather than an object (the route or envelope to use). */
  arrayAdvice?: string;
  /**
   * Charged to the tenant's ingestion rate limit (src/limits): `records` tells what a request costs
   * (1 for a single record; a bulk envelope its record count, clamped to the route's limit). The
   * OpenAPI document gives such routes the 429 and the RateLimit headers.
   */
  rateLimit?: { records(body: Record<string, unknown>): number };
  doc: RouteDoc;
  handle(ctx: RouteContext): Promise<RouteResult>;
}

export const defineRoute = (route: Route) => route;

/** The record kind of an ingestion route (undefined for the others). */
export const kindOf = (route: Route): RecordKind | undefined => route.ingestion?.spec.kind;
