/**
 * Methods on known paths (RFC 9110 §15.5.6): a path the service serves answers a method it does not
 * take with 405 `method_not_allowed` in the contract's error shape, with one `Allow` naming each of its
 * methods once (`HEAD` beside `GET`), whichever plugin serves the path (REST routes, pages, console,
 * GraphQL, health, metrics). It runs before them, after the HEAD plugin (a HEAD arrives as the `GET`
 * it stands for), so none of them needs a method check of its own. Unknown paths are the REST
 * plugin's 404.
 */
import type { Plugin } from 'graphql-yoga';
import { AppError } from '../errors.js';
import { requestAsSent } from './head.js';
import type { Method } from './paths.js';
import { errorResponse } from './respond.js';

/** The requests this plugin answered (the request-id plugin logs their access line). */
const refused = new WeakSet<Request>();

/** Whether the method plugin answered this request (with 405). */
export const refusedMethod = (served: Request): boolean => refused.has(requestAsSent(served));

/** `Allow`'s value: the path's methods in a fixed order, `HEAD` after `GET`. */
const allowOf = (methods: ReadonlySet<Method>) =>
  ['GET', 'HEAD', 'POST', 'OPTIONS'].filter((m) => (m === 'HEAD' ? methods.has('GET') : methods.has(m as Method))).join(', ');

export function useMethods(byPath: ReadonlyMap<string, ReadonlySet<Method>>): Plugin {
  const allow = new Map([...byPath].map(([path, methods]) => [path, allowOf(methods)]));
  return {
    onRequest({ request, url, endResponse }) {
      const methods = byPath.get(url.pathname);
      if (!methods || methods.has(request.method as Method)) return;
      const sent = requestAsSent(request);
      refused.add(sent);
      const header = allow.get(url.pathname)!;
      endResponse(
        errorResponse(new AppError('method_not_allowed', `${sent.method} is not allowed on ${url.pathname}; use ${header}.`, undefined, { Allow: header })),
      );
    },
  };
}
