/**
 * The composition root: one Yoga instance serves GraphQL at /graphql and, through plugins, the REST
 * API, health and readiness. It takes its dependencies, so tests build apps against PGlite or
 * PostgreSQL without module mocking, and it never listens (main.ts does).
 */
import { useCORS } from '@whatwg-node/server';
import { createGraphQLError, createYoga } from 'graphql-yoga';
import { createLoadEventHub } from './domain/events/live.js';
import { createTableStatistics } from './db/table-statistics.js';
import { createEventSequencer } from './domain/events/sequencer.js';
import { createAuthenticator } from './http/auth.js';
import { createStartup, useHealth } from './http/health.js';
import { useHead } from './http/head.js';
import { useGraphiQLPage } from './graphql/graphiql.js';
import { createMetrics } from './http/metrics.js';
import { useRestApi } from './http/plugin.js';
import { clientAddress, useLimits } from './http/limits.js';
import { createLimits } from './limits/limits.js';
import { pageRoutes, useDocsPages } from './http/pages.js';
import { consoleRoutes, useConsole } from './http/console.js';
import { requestIdOf, useRequestId } from './http/request-id.js';
import { toAppError } from './errors.js';
import { createRequestScope, type AppDeps, type Services } from './context.js';
import type { RequestContext } from './graphql/context.js';
import { maskError, yogaLogger } from './graphql/mask-error.js';
import { useDocumentLimits } from './graphql/document-limits.js';
import { useCompiledReads } from './graphql/compiled-read.js';
import { schema } from './graphql/schema.js';
import { useAdminAudit } from './graphql/admin-audit.js';
import { createDataVersions, useResponseCache } from './graphql/response-cache.js';
import { restRoutes } from './routes.js';
import { recordSpecs } from './domain/registry.js';
import { countedFields } from './domain/declaration/record.js';
import { maxGraphqlBodyBytes } from './graphql/mask-error.js';
import { createWebhookMetrics } from './domain/webhook/metrics.js';
import { createWebhookWorker } from './domain/webhook/worker.js';
import { methodsByPath, servicePaths } from './http/paths.js';
import { useMethods } from './http/methods.js';
import { tracing } from './observability/tracing.js';

export interface AppOptions {
  /** API-key cache TTL (tests shorten it). */
  authCacheTtlMs?: number;
  /** How slowed 401s wait (tests record the delays). */
  sleep?: (ms: number) => Promise<void>;
  /** false: every query is executed by the resolvers (tests compare them with the compiled reads). Default true. */
  compiledReads?: boolean;
}

export function createApp(deps: AppDeps, options: AppOptions = {}) {
  const routes = [...restRoutes, ...pageRoutes, ...consoleRoutes];
  const metrics = createMetrics({ db: deps.db, routes });
  // While tracing is on (observability/tracing.ts), the first plugin: its request span holds everything the others do.
  const traced = tracing()?.plugin([...routes.map((route) => route.path), ...Object.keys(servicePaths)]);
  const dataVersions = createDataVersions();
  const sequencer = createEventSequencer({
    ...deps,
    onCommitted: dataVersions.bump,
    coverage: deps.config.ingest.fieldCoverage ? Object.fromEntries(recordSpecs.map((spec) => [spec.kind, countedFields(spec)])) : null,
  });
  const services: Services = {
    ...deps,
    recorder: metrics.countIngest(deps.recorder),
    auth: createAuthenticator(deps.db, deps.clock, { ttlMs: options.authCacheTtlMs, adminApiKey: deps.config.admin?.apiKey }),
    sequencer,
    statistics: createTableStatistics(deps.db.sql, (err, table) => deps.logger.warn({ err, table }, 'could not refresh the planner statistics of a table')),
    events: createLoadEventHub({ db: deps.db, sequencer, logger: deps.logger, maxSubscriptionsPerTenant: deps.config.events.maxSubscriptionsPerTenant }),
    limits: createLimits({ ...deps, registry: metrics.registry, sleep: options.sleep }),
  };
  // The webhook delivery worker of this instance: main.ts starts and stops it; tests drive it.
  const webhooks = createWebhookWorker({
    db: deps.db,
    clock: deps.clock,
    logger: deps.logger,
    settings: { ...deps.config.webhooks, retentionMs: deps.config.events.retentionMs },
    metrics: createWebhookMetrics(metrics.registry, deps.db, deps.clock),
    numbering: sequencer,
  });
  // The start-up work /readyz waits for (main.ts hands it over).
  const startup = createStartup();
  const yoga = createYoga({
    schema,
    graphqlEndpoint: '/graphql',
    // Liveness is ours (`useHealth`, GET only): Yoga's check answers any method on any URL ending in its
    // endpoint, so it gets one that no URL ends in (a request URL is percent-encoded: it holds no space).
    healthCheckEndpoint: ' ',
    landingPage: false,
    // Yoga's own body limit (413 on a declared or streamed size), at the bulk routes' 5 MiB: a
    // 1,000-record bulk mutation fits, as its REST twin does.
    maxRequestBodySize: maxGraphqlBodyBytes,
    // CORS comes after the method plugin and the REST plugin (below): REST paths answer OPTIONS like any
    // other method they do not take (405 with Allow, as the OpenAPI document says); /graphql keeps CORS preflights.
    cors: false,
    logging: yogaLogger(deps.logger),
    maskedErrors: { maskError },
    // GraphiQL is our plugin (graphql/graphiql.ts), after the HEAD plugin, so HEAD /graphql answers as its GET.
    graphiql: false,
    context: async ({ request }): Promise<RequestContext> => {
      const scope = createRequestScope(services, requestIdOf(request), 'graphql');
      try {
        const actor = await services.limits.guardAuthentication(clientAddress(request), () =>
          services.auth.authenticate(request.headers.get('x-api-key'), request.headers.get('x-tenant')),
        );
        return { ...scope, actor, now: deps.clock.now(), request };
      } catch (error) {
        const appError = toAppError(error);
        throw createGraphQLError(appError.message, { extensions: appError.graphqlExtensions(true) });
      }
    },
    plugins: [
      ...(traced ? [traced] : []),
      // Then (first but for the request's span): a HEAD request goes through every plugin after it as the GET it stands for.
      useHead(),
      useRequestId(deps.logger),
      // A known path's other methods: 405 with Allow, before any plugin that serves the path (/metrics is the next).
      useMethods(methodsByPath(routes)),
      metrics.plugin,
      useLimits(services.limits, deps.config.limits.clientAddressHeader),
      useHealth(deps.db, startup),
      useDocsPages(),
      useGraphiQLPage('/graphql'),
      useConsole(),
      useRestApi(restRoutes, services),
      useCORS(),
      useAdminAudit(),
      useDocumentLimits(),
      // Before the response cache: a cached answer stops execution; a computed one runs the compiled statement when there is one.
      useCompiledReads({ schema, enabled: options.compiledReads ?? true }),
      // Last: a cached answer stops execution, so the plugins above (audit, limits) still see the operation.
      useResponseCache({
        ...deps.config.responseCache,
        events: services.events,
        logger: deps.logger,
        clock: deps.clock,
        versions: dataVersions,
        count: metrics.countResponseCache,
      }),
    ],
  });
  // dataVersions: the response cache's per-tenant versions (tests wait on them for notifications).
  return Object.assign(yoga, { services, webhooks, dataVersions, startup });
}

export type App = ReturnType<typeof createApp>;
