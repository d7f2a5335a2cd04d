/**
 * Request ids: the caller's `X-Request-Id` when it is sane (1–128 characters of letters, digits,
 * `_ . : -`), else a new UUID. The id is on every log line of the request (the request runs inside
 * `withRequestId`), echoed on every response (REST, GraphQL, health, metrics, errors), and GraphQL
 * requests (and every method refused by `methods.ts`) get the one access log line REST requests get
 * from the REST pipeline.
 */
import { randomUUID } from 'node:crypto';
import { getOperationAST, type DocumentNode } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { withRequestId, type Logger } from '../logger.js';
import { requestAsSent } from './head.js';
import { refusedMethod } from './methods.js';
import { isServicePath, servicePaths, type ServicePath } from './paths.js';

const ids = new WeakMap<Request, string>();
const started = new WeakMap<Request, number>();
const operations = new WeakMap<Request, string>();
/** A caller's `X-Request-Id` that is used as is (anything else is replaced by a new UUID). */
export const acceptableRequestId = /^[\w.:-]{1,128}$/;

/** The id a request is answered and logged with: the caller's `X-Request-Id` when it is sane, else a new UUID. */
export const requestIdFrom = (incoming: string | null | undefined): string => (incoming && acceptableRequestId.test(incoming) ? incoming : randomUUID());

/** The request's id: the caller's `X-Request-Id` when it is sane, else a new UUID (a HEAD's GET has the HEAD's). */
export function requestIdOf(served: Request): string {
  const request = requestAsSent(served);
  let id = ids.get(request);
  if (!id) {
    id = requestIdFrom(request.headers.get('x-request-id'));
    ids.set(request, id);
  }
  return id;
}

export function useRequestId(logger: Logger): Plugin {
  return {
    instrumentation: {
      request({ request }, handle) {
        started.set(request, performance.now());
        return withRequestId(requestIdOf(request), handle);
      },
    },
    onExecute({ args }) {
      const name = getOperationAST(args.document as DocumentNode, args.operationName as string | undefined)?.name?.value;
      const { request } = args.contextValue as { request?: Request };
      if (name && request) operations.set(requestAsSent(request), name.slice(0, 100));
    },
    onResponse({ request: served, response }) {
      const request = requestAsSent(served);
      response.headers.set('x-request-id', requestIdOf(request));
      const path = new URL(request.url).pathname;
      // REST routes and unknown paths log their own access line; a method refused on any path is logged here, at info.
      const refused = refusedMethod(served);
      if (!refused && !isServicePath(path)) return;
      const level = refused ? 'info' : servicePaths[path as ServicePath].log;
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
