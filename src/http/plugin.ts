/**
 * Serves every REST route as one Yoga plugin (and answers unknown paths with the JSON 404). Each
 * request goes through one pipeline, in contract order: route (404; the 405s are `methods.ts`'s) → X-API-Key (401) →
 * dry_run, Service-Ingest-Source, the query's parameter names (400) → Content-Type (415) → size (413) → JSON (400) → handler (validation
 * 400/403, parents 422). A throw becomes the contract's JSON error (database outages 503, else 500
 * without details). Ingest accounting is the ingestion use case's: the pipeline opens the request's
 * ingestion edge (`domain/ingestion/ingest-request.ts`) and reports through it only the requests
 * rejected before the handler ran.
 */
import type { Plugin } from 'graphql-yoga';
import { AppError, toAppError } from '../errors.js';
import { createRequestScope, type Services } from '../context.js';
import { openIngestRequest, type IngestRequest } from '../domain/ingestion/ingest-request.js';
import type { TenantRef } from '../domain/declaration/tenant-ref.js';
import { noRouteMessage } from './pages.js';
import { isServicePath } from './paths.js';
import { assertJsonContentType, queryCheck, readBodyText } from './request.js';
import { parseJsonObject } from '../domain/ingestion/json-body.js';
import { requestIdOf } from './request-id.js';
import { requestAsSent } from './head.js';
import { errorResponse, json } from './respond.js';
import type { Route, RouteContext } from './route.js';
import type { Logger } from '../logger.js';
import { clientAddress } from './limits.js';
import type { Charge } from '../limits/limits.js';

export function useRestApi(routes: readonly Route[], services: Services): Plugin {
  const byMethodAndPath = new Map(routes.map((route) => [`${route.method} ${route.path}`, route]));
  const queryChecks = new Map(routes.flatMap((route) => (route.query ? [[route, queryCheck(route.query)] as const] : [])));
  const { config, auth, clock, logger } = services;

  /** A throw as the contract's error (a fault is logged; its details stay out of the answer). */
  function failure(thrown: unknown, log: Logger): AppError {
    const error = toAppError(thrown);
    if (error.status >= 500) log.error({ err: thrown }, 'request failed');
    return error;
  }

  /** The handler's answer; it reports its records itself (the ingestion use case), so a throw here is never a request rejection. */
  async function handled(route: Route, ctx: RouteContext): Promise<Response> {
    try {
      const result = await route.handle(ctx);
      return json(result.status ?? 200, result.body, result.headers);
    } catch (thrown) {
      return errorResponse(failure(thrown, ctx.log));
    }
  }

  async function serve(request: Request, url: URL): Promise<Response> {
    const started = performance.now();
    const requestId = requestIdOf(request);
    const route = byMethodAndPath.get(`${request.method} ${url.pathname}`);
    const scope = createRequestScope(services, requestId, route ? `${route.method} ${route.path}` : url.pathname);
    let tenant: TenantRef | null = null;
    let ingest: IngestRequest | null = null;
    const now = clock.now();
    let body: Record<string, unknown> = {};
    // Whether `body` holds what the client sent (a rejection keeps it in ingest health).
    let bodyRead = false;
    let charge: Charge | undefined;
    let ctx: RouteContext | undefined;
    let rejection: Response | undefined;

    // The pipeline before the handler; a throw rejects the request whole.
    try {
      // A known path with another method never gets here (methods.ts answers it with 405).
      if (!route) throw new AppError('not_found', noRouteMessage(url.pathname));
      if (route.auth === 'tenant') {
        tenant = await services.limits.guardAuthentication(clientAddress(request), () => auth.authenticateTenant(request.headers.get('x-api-key')));
      }
      // Reads dry_run and Service-Ingest-Source (the edge reports a bad one as the request's rejection itself).
      if (route.ingestion && tenant) {
        ingest = openIngestRequest(route.ingestion, {
          services,
          tenant,
          requestId,
          headers: request.headers,
          query: url.search.slice(1),
          now,
          dryRun: url.searchParams.getAll('dry_run'),
        });
      }
      queryChecks.get(route)?.(url.searchParams);
      if (route.method === 'POST') {
        assertJsonContentType(request);
        body = parseJsonObject(await readBodyText(request, route.maxBodyBytes ?? config.http.maxBodyBytes, route.tooLargeAdvice), route.arrayAdvice);
        bodyRead = true;
      }
      if (route.rateLimit && tenant) {
        charge = await services.limits.chargeRecords(tenant, route.rateLimit.records(body));
        if (charge.error) throw charge.error;
      }
      ctx = { ...scope, request, url, tenant, body, ingest, now };
    } catch (thrown) {
      const error = failure(thrown, scope.log);
      ingest?.reject(error, bodyRead ? body : undefined);
      rejection = errorResponse(error);
    }
    const response = ctx && route ? await handled(route, ctx) : rejection!;
    // Every answer of a rate-limited route carries the limit's state (a request refused before the
    // charge, e.g. a 415, costs one record: otherwise junk would be free).
    if (route?.rateLimit && tenant) {
      charge ??= await services.limits.chargeRecords(tenant, 1);
      for (const [name, value] of Object.entries(charge.headers)) response.headers.set(name, value);
    }

    scope.log.info(
      {
        method: requestAsSent(request).method,
        path: url.pathname,
        status: response.status,
        ms: Math.round(performance.now() - started),
        tenant: tenant?.slug,
        source: ingest?.scope.source ?? 'unspecified',
        ...(ingest?.scope.dryRun ? { dryRun: true } : {}),
      },
      'request',
    );
    return response;
  }

  return {
    onRequest({ request, url, endResponse }) {
      if (isServicePath(url.pathname)) return;
      return serve(request, url).then(endResponse, (error) => {
        logger.error({ err: error }, 'unhandled REST failure');
        endResponse(errorResponse(new AppError('internal', 'An internal error occurred.')));
      });
    },
  };
}
