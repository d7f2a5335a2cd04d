/**
 * The composition root: one Yoga instance serves GraphQL at /graphql and, through plugins, the REST
 * API, health and readiness. It takes its dependencies, so tests build apps against PGlite or
 * PostgreSQL without module mocking, and it never listens (main.ts does).
 */
import { createYoga } from 'graphql-yoga';
import { createAuthenticator } from './http/auth.js';
import { useReadiness } from './http/health.js';
import { createMetrics } from './http/metrics.js';
import { useRestApi } from './http/plugin.js';
import { requestIdOf, useRequestId } from './http/request-id.js';
import { toAppError } from './errors.js';
import { createRequestScope, type AppDeps, type Services } from './context.js';
import type { RequestContext } from './graphql/context.js';
import { maskError } from './graphql/mask-error.js';
import { schema } from './graphql/schema.js';
import { graphiqlDefaultQuery } from './graphql/graphiql.js';
import { useAdminAudit } from './graphql/admin-audit.js';
import { restRoutes } from './routes.js';
import { createGraphQLError } from 'graphql-yoga';

export interface AppOptions {
  /** API-key cache TTL (tests shorten it). */
  authCacheTtlMs?: number;
}

export function createApp(deps: AppDeps, options: AppOptions = {}) {
  const metrics = createMetrics({ db: deps.db, routes: restRoutes });
  const services: Services = {
    ...deps,
    recorder: metrics.countIngest(deps.recorder),
    auth: createAuthenticator(deps.db, deps.clock, { ttlMs: options.authCacheTtlMs, adminApiKey: deps.config.admin?.apiKey }),
  };
  const yoga = createYoga({
    schema,
    graphqlEndpoint: '/graphql',
    healthCheckEndpoint: '/healthz',
    landingPage: false,
    logging: deps.logger,
    maskedErrors: { maskError },
    graphiql: {
      title: 'tms-ingest GraphQL',
      defaultQuery: graphiqlDefaultQuery,
      // The page loads without a key; each request sends the one entered here.
      headers: JSON.stringify({ 'X-API-Key': '<your API key>' }, null, 2),
    },
    context: async ({ request }): Promise<RequestContext> => {
      const scope = createRequestScope(services, requestIdOf(request), 'graphql');
      try {
        const actor = await services.auth.authenticate(request.headers.get('x-api-key'), request.headers.get('x-tenant'));
        return { ...scope, actor, now: deps.clock.now(), request };
      } catch (error) {
        const appError = toAppError(error);
        throw createGraphQLError(appError.message, { extensions: { code: appError.code, http: { status: appError.status } } });
      }
    },
    plugins: [useRequestId(deps.logger), metrics.plugin, useReadiness(deps.db), useRestApi(restRoutes, services), useAdminAudit()],
  });
  return Object.assign(yoga, { services });
}

export type App = ReturnType<typeof createApp>;
