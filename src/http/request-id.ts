import { randomUUID } from 'node:crypto';
import type { Plugin } from 'graphql-yoga';

const ids = new WeakMap<Request, string>();
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

/** Echoes the request id on every response (REST, GraphQL, health). */
export function useRequestId(): Plugin {
  return {
    onResponse({ request, response }) {
      response.headers.set('x-request-id', requestIdOf(request));
    },
  };
}
