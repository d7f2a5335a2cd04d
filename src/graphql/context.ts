import type { RequestScope } from '../context.js';
import type { Actor } from '../http/auth.js';

/** GraphQL's context: the shared request scope plus the authenticated actor. */
export interface RequestContext extends RequestScope {
  actor: Actor;
  now: Date;
  /** The HTTP request (mutations read `Service-Ingest-Source` from it, as REST does). */
  request: Request;
}
