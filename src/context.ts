/**
 * What every request, REST or GraphQL, runs with: built by the same function for both transports
 * (Sofa's idea), so tenancy, request ids and logging cannot drift apart.
 */
import type { Config } from './config.js';
import type { Clock } from './clock.js';
import type { Database } from './db/database.js';
import type { IngestRecorder } from './domain/ingest-health/events.js';
import type { Authenticator } from './http/auth.js';
import type { Logger } from './logger.js';

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
