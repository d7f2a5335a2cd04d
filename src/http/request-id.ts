/**
 * Request ids: the caller's `X-Request-Id` when it is sane (1–128 characters of letters, digits,
 * `_ . : -`), else a new UUID. The id is on every log line of the request (the request runs inside
 * `withRequestId`), echoed on every response (REST, GraphQL, health, metrics, errors), and GraphQL
 * requests get the one access log line REST requests get from the REST pipeline.
 */
import { randomUUID } from 'node:crypto';
import { getOperationAST } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { withRequestId, type Logger } from '../logger.js';

const ids = new WeakMap<Request, string>();
const started = new WeakMap<Request, number>();
const operations = new WeakMap<Request, string>();
const acceptable = /^[\w.:-]{1,128}$/;

/** The request's id: the caller's `X-Request-Id` when it is sane, else a new UUID. */
export function requestIdOf(request: Request): string {
  let id = ids.get(request);
  if (!id) {
    const incoming = request.headers.get('x-request-id');
    id = incoming && acceptable.test(incoming) ? incoming : randomUUID();
    ids.set(request, id);
  }
  return id;
}

/** Paths whose access line is logged here (REST routes and unknown paths log their own). */
const accessLogged: Record<string, 'info' | 'debug'> = { '/graphql': 'info', '/healthz': 'debug', '/readyz': 'debug', '/metrics': 'debug' };

export function useRequestId(logger: Logger): Plugin {
  return {
    instrumentation: {
      request({ request }, handle) {
        started.set(request, performance.now());
        return withRequestId(requestIdOf(request), handle);
      },
    },
    onExecute({ args }) {
      const name = getOperationAST(args.document, args.operationName)?.name?.value;
      const { request } = args.contextValue as { request?: Request };
      if (name && request) operations.set(request, name.slice(0, 100));
    },
    onResponse({ request, response }) {
      response.headers.set('x-request-id', requestIdOf(request));
      const path = new URL(request.url).pathname;
      const level = accessLogged[path];
      if (!level) return;
      const start = started.get(request);
      logger[level](
        {
          method: request.method,
          path,
          status: response.status,
          ms: start === undefined ? undefined : Math.round(performance.now() - start),
          operation: operations.get(request),
        },
        'request',
      );
    },
  };
}
