/**
 * Every path the service serves and the methods it takes there, written once: the REST route list,
 * the pages and console (`GET`), and the paths served outside the route list (below). The method
 * plugin (`methods.ts`) answers any other method with 405 and `Allow`; the REST plugin leaves the
 * service paths to their plugins, metrics label every known path as itself, and the request-id plugin
 * logs the service paths' access lines (REST routes log their own) at these levels.
 */

/** A method a path takes (`HEAD` goes with `GET`: `head.ts` serves it as the `GET` it stands for). */
export type Method = 'GET' | 'POST' | 'OPTIONS';

export const servicePaths = {
  // OPTIONS: CORS preflights, for browser GraphQL clients (REST paths answer none).
  '/graphql': { log: 'info', methods: ['GET', 'POST', 'OPTIONS'] },
  '/healthz': { log: 'debug', methods: ['GET'] },
  '/readyz': { log: 'debug', methods: ['GET'] },
  '/metrics': { log: 'debug', methods: ['GET'] },
} as const satisfies Record<string, { log: 'info' | 'debug'; methods: readonly Method[] }>;

export type ServicePath = keyof typeof servicePaths;

export const isServicePath = (path: string): path is ServicePath => Object.hasOwn(servicePaths, path);

/** A path served by a route list (REST, pages, console) with one of its methods. */
export interface PathMethod {
  path: string;
  method: Method;
}

/** Each known path → the methods it takes, each once: the routes' and the service paths'. */
export function methodsByPath(routes: readonly PathMethod[]): ReadonlyMap<string, ReadonlySet<Method>> {
  const byPath = new Map<string, Set<Method>>();
  const add = (path: string, method: Method) => byPath.set(path, (byPath.get(path) ?? new Set<Method>()).add(method));
  for (const route of routes) add(route.path, route.method);
  for (const [path, { methods }] of Object.entries(servicePaths)) for (const method of methods) add(path, method);
  return byPath;
}
