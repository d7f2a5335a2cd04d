/**
 * What every request, REST or GraphQL, runs with: built by the same function for both transports
 * (Sofa's idea), so tenancy, request ids and logging cannot drift apart.
 */
import type { Config } from './config.js';
import type { Clock } from './clock.js';
import type { Database } from './db/database.js';
import type { TableStatistics } from './db/table-statistics.js';
import type { LoadEventHub } from './domain/events/live.js';
import type { EventSequencer } from './domain/events/sequencer.js';
import type { IngestRecorder } from './domain/ingest-health/report.js';
import type { TenantRef } from './domain/declaration/tenant-ref.js';
import type { Limits } from './limits/limits.js';
import type { Logger } from './logger.js';

/** Who is calling: a tenant, or a support engineer reading the tenant named by X-Tenant (if any). */
export type Actor = { kind: 'tenant'; tenant: TenantRef } | { kind: 'admin'; tenant: TenantRef | null };

/** Resolves API keys (built by http/auth.ts; GraphQL and REST both use it). */
export interface Authenticator {
  /** The tenant of a tenant API key (REST ingestion never accepts the admin key). */
  authenticateTenant(apiKey: string | null): Promise<TenantRef>;
  /** A tenant, or the admin with the tenant named by `X-Tenant` (GraphQL). */
  authenticate(apiKey: string | null, tenantSlug: string | null): Promise<Actor>;
  /** Drops this instance's cached keys of the tenant, so a revoked key or a new rate limit applies at once. */
  forgetTenant(slug: string): void;
}

/** The long-lived parts of the app, given to createApp (tests build their own). */
export interface AppDeps {
  config: Config;
  db: Database;
  logger: Logger;
  clock: Clock;
  recorder: IngestRecorder;
}

/** AppDeps plus what createApp derives from them once. */
export interface Services extends AppDeps {
  auth: Authenticator;
  /** Numbers committed change events (after writes, before reads). */
  sequencer: EventSequencer;
  /** Analyses a record table once its statistics lag its writes (db/table-statistics.ts). */
  statistics: TableStatistics;
  /** Live change events for subscriptions (one database listener per app). */
  events: LoadEventHub;
  /** Rate limits, failed-key throttling and overload shedding (src/limits). */
  limits: Limits;
}

export interface RequestScope {
  services: Services;
  requestId: string;
  log: Logger;
}

/**
 * The request-scoped part shared by REST routes and GraphQL resolvers. The logger's lines get
 * `requestId` from the request's log context (logger.ts), so it is not bound here a second time.
 */
export function createRequestScope(services: Services, requestId: string, route: string): RequestScope {
  return { services, requestId, log: services.logger.child({ route }) };
}
