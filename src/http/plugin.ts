/**
 * Serves every REST route as one Yoga plugin (and answers unknown paths with the JSON 404). Each request goes through one pipeline, in contract
 * order: route (404/405) → X-API-Key (401) → Service-Ingest-Source → Content-Type (415) → size (413)
 * → JSON (400) → handler (validation 400/403, parents 422). One catch turns any throw into the
 * contract's JSON error (database outages 503, else 500 without details); one finally reports the
 * outcome to ingest accounting. Handlers catch nothing.
 */
import type { Plugin } from 'graphql-yoga';
import { AppError, toAppError } from '../errors.js';
import { createRequestScope, type Services } from '../context.js';
import { parseIngestSource, reportIngest, type IngestOutcome, type IngestSourceName, type ReportedResult } from '../domain/ingest-health/events.js';
import type { TenantRef } from '../domain/shared/tenant-ref.js';
import { assertJsonContentType, parseJsonObject, readBodyText } from './request.js';
import { requestIdOf } from './request-id.js';
import { errorResponse, json } from './respond.js';
import type { Route, RouteContext } from './route.js';

/** Ingestion outcome(s) a handler's body reports: `status` of one record or `results` of a batch. */
function outcomesOf(body: unknown): ReportedResult[] {
  const b = body as { status?: IngestOutcome; permalink?: string; results?: unknown[] };
  if (Array.isArray(b.results)) return b.results.flatMap(outcomesOf);
  if (b.status) return [{ outcome: b.status, permalink: b.permalink }];
  const err = (body as { error?: { code: AppError['code']; message: string; details?: { field: string; issue: string }[] } }).error;
  if (err) return [{ outcome: 'rejected', error: err }];
  return [];
}

/** Paths other plugins answer; every other path is ours (unknown ones get the JSON 404). */
const foreignPaths = new Set(['/graphql', '/healthz', '/readyz', '/metrics']);

/** The record's own permalink in a (possibly invalid) body, for the rejection sample. */
function permalinkIn(body: Record<string, unknown>, kind: string): string | undefined {
  const value = body[`native_system_${kind}_permalink`];
  return typeof value === 'string' ? value : undefined;
}

export function useRestApi(routes: readonly Route[], services: Services): Plugin {
  const byPath = new Map<string, Map<string, Route>>();
  for (const route of routes) {
    const methods = byPath.get(route.path) ?? new Map<string, Route>();
    methods.set(route.method, route);
    byPath.set(route.path, methods);
  }
  const { config, auth, clock, recorder, logger } = services;

  async function serve(request: Request, url: URL): Promise<Response> {
    const started = performance.now();
    const requestId = requestIdOf(request);
    const methods = byPath.get(url.pathname);
    const route = methods?.get(request.method);
    const scope = createRequestScope(services, requestId, route ? `${route.method} ${route.path}` : url.pathname);
    let tenant: TenantRef | null = null;
    let source: IngestSourceName = 'unspecified';
    let response: Response;
    let reported: ReportedResult[] = [];
    const now = clock.now();
    let body: Record<string, unknown> = {};

    try {
      if (!methods) throw new AppError('not_found', `No route ${url.pathname}.`);
      if (!route) {
        const allow = [...methods.keys()].join(', ');
        throw new AppError('method_not_allowed', `${request.method} is not allowed on ${url.pathname}; use ${allow}.`, undefined, { Allow: allow });
      }
      if (route.auth === 'tenant') tenant = await auth.authenticateTenant(request.headers.get('x-api-key'));
        if (route.kind) {
        const parsed = parseIngestSource(request.headers.get('service-ingest-source'));
        if (!parsed) {
          throw new AppError('validation_failed', 'Service-Ingest-Source must be pull or webhook.', [
            { field: 'Service-Ingest-Source', issue: 'must be pull or webhook (or left out)' },
          ]);
        }
        source = parsed;
      }
      if (route.method === 'POST') {
        assertJsonContentType(request);
        body = parseJsonObject(await readBodyText(request, config.http.maxBodyBytes));
      }
      const ctx: RouteContext = { ...scope, request, url, tenant, body, source, now };
      const result = await route.handle(ctx);
      if (route.kind) reported = outcomesOf(result.body);
      response = json(result.status ?? 200, result.body, result.headers);
    } catch (thrown) {
      const error = toAppError(thrown);
      if (error.status >= 500) scope.log.error({ err: thrown }, 'request failed');
      if (route?.kind) reported = [{ outcome: 'rejected', error, permalink: permalinkIn(body, route.kind) }];
      response = errorResponse(error);
    }

    if (tenant && route?.kind) reportIngest(recorder, { tenant, source, kind: route.kind, at: now }, reported);
    scope.log.info(
      { method: request.method, path: url.pathname, status: response.status, ms: Math.round(performance.now() - started), tenant: tenant?.slug, source },
      'request',
    );
    return response;
  }

  return {
    onRequest({ request, url, endResponse }) {
      if (foreignPaths.has(url.pathname)) return;
      return serve(request, url).then(endResponse, (error) => {
        logger.error({ err: error }, 'unhandled REST failure');
        endResponse(errorResponse(new AppError('internal', 'An internal error occurred.')));
      });
    },
  };
}
