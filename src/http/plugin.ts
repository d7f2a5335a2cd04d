/**
 * Serves every REST route as one Yoga plugin (and answers unknown paths with the JSON 404). Each
 * request goes through one pipeline, in contract order: route (404/405) → X-API-Key (401) →
 * Service-Ingest-Source → Content-Type (415) → size (413) → JSON (400) → handler (validation
 * 400/403, parents 422). One catch turns any throw into the contract's JSON error (database outages
 * 503, else 500 without details). Ingest accounting is the ingestion use case's: the pipeline only
 * hands it the requests rejected before the handler ran.
 */
import type { Plugin } from 'graphql-yoga';
import { AppError, toAppError } from '../errors.js';
import { createRequestScope, type Services } from '../context.js';
import { ingestSourceOf, type IngestSourceName } from '../domain/ingest-health/events.js';
import type { TenantRef } from '../domain/shared/tenant-ref.js';
import { ingestScopeOf } from './ingest-route.js';
import { noRouteMessage } from './pages.js';
import { isServicePath } from './paths.js';
import { assertJsonContentType, parseJsonObject, readBodyText } from './request.js';
import { requestIdOf } from './request-id.js';
import { errorResponse, json } from './respond.js';
import type { Route, RouteContext } from './route.js';
import { clientAddress } from './limits.js';
import type { Charge } from '../limits/limits.js';

export function useRestApi(routes: readonly Route[], services: Services): Plugin {
  const byPath = new Map<string, Map<string, Route>>();
  for (const route of routes) {
    const methods = byPath.get(route.path) ?? new Map<string, Route>();
    methods.set(route.method, route);
    byPath.set(route.path, methods);
  }
  const { config, auth, clock, logger } = services;

  async function serve(request: Request, url: URL): Promise<Response> {
    const started = performance.now();
    const requestId = requestIdOf(request);
    const methods = byPath.get(url.pathname);
    const route = methods?.get(request.method);
    const scope = createRequestScope(services, requestId, route ? `${route.method} ${route.path}` : url.pathname);
    let tenant: TenantRef | null = null;
    let source: IngestSourceName = 'unspecified';
    let response: Response;
    const now = clock.now();
    let body: Record<string, unknown> = {};
    let handling = false;
    let charge: Charge | undefined;

    try {
      if (!methods) throw new AppError('not_found', noRouteMessage(url.pathname));
      if (!route) {
        const allow = [...methods.keys()].join(', ');
        throw new AppError('method_not_allowed', `${request.method} is not allowed on ${url.pathname}; use ${allow}.`, undefined, { Allow: allow });
      }
      if (route.auth === 'tenant') {
        tenant = await services.limits.guardAuthentication(clientAddress(request), () => auth.authenticateTenant(request.headers.get('x-api-key')));
      }
      if (route.ingestion) source = ingestSourceOf(request.headers.get('service-ingest-source'));
      if (route.method === 'POST') {
        assertJsonContentType(request);
        body = parseJsonObject(await readBodyText(request, route.maxBodyBytes ?? config.http.maxBodyBytes, route.tooLargeAdvice));
      }
      if (route.rateLimit && tenant) {
        charge = await services.limits.chargeRecords(tenant, route.rateLimit.records(body));
        if (charge.error) throw charge.error;
      }
      const ctx: RouteContext = { ...scope, request, url, tenant, body, source, now };
      handling = true;
      const result = await route.handle(ctx);
      response = json(result.status ?? 200, result.body, result.headers);
    } catch (thrown) {
      const error = toAppError(thrown);
      if (error.status >= 500) scope.log.error({ err: thrown }, 'request failed');
      // Once the handler runs, the use case has reported its records.
      if (tenant && route?.ingestion && !handling) route.ingestion.rejectRequest(ingestScopeOf({ services, tenant, source, now }), error, body);
      response = errorResponse(error);
    }
    // Every answer of a rate-limited route carries the limit's state (a request refused before the
    // charge, e.g. a 415, costs one record: otherwise junk would be free).
    if (route?.rateLimit && tenant) {
      charge ??= await services.limits.chargeRecords(tenant, 1);
      for (const [name, value] of Object.entries(charge.headers)) response.headers.set(name, value);
    }

    scope.log.info(
      { method: request.method, path: url.pathname, status: response.status, ms: Math.round(performance.now() - started), tenant: tenant?.slug, source },
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
