/** A REST route: what the router matches, what the pipeline checks, and the handler it calls. */
import type { z } from 'zod';
import type { RecordKind } from '../domain/shared/record.js';
import type { TenantRef } from '../domain/shared/tenant-ref.js';
import type { IngestSourceName } from '../domain/ingest-health/events.js';
import type { RequestScope } from '../context.js';

export interface RouteContext extends RequestScope {
  request: Request;
  url: URL;
  /** The key's tenant (routes with `auth: 'none'` get null). */
  tenant: TenantRef | null;
  /** The parsed JSON object body (POST routes). */
  body: Record<string, unknown>;
  source: IngestSourceName;
  /** Service clock at the start of the request. */
  now: Date;
}

/** Outcome a handler reports for ingest accounting: record-level, or per record of a bulk request. */
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
  query?: z.ZodType;
  /** Response schema of a 200. */
  response?: z.ZodType;
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
  /** Record kind of an ingestion route: its requests are counted in ingest health. */
  kind?: RecordKind;
  doc: RouteDoc;
  handle(ctx: RouteContext): Promise<RouteResult>;
}

export const defineRoute = (route: Route) => route;
