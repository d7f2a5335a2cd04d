/**
 * HEAD on every GET resource (RFC 9110 §9.3.2). The first plugin serves a HEAD request as the GET it
 * stands for, through every plugin after it (the REST routes, the pages and console, GraphiQL,
 * /metrics, /readyz, GraphQL over GET), then answers that GET's status and headers without its body
 * (Content-Length included when the GET's is known). A path that takes no GET answers HEAD as it
 * answers GET: 405 with `Allow` (`methods.ts`, whose `Allow` names HEAD beside every GET).
 *
 * Per-request state kept by other plugins is keyed by the request as the client sent it
 * (`requestAsSent`), so the request id, timings and the metrics' `method` label stay the HEAD's.
 */
import type { Plugin } from 'graphql-yoga';

/** Each GET that stands for a HEAD → the HEAD request the client sent. */
const heads = new WeakMap<Request, Request>();

/** The request as the client sent it: the HEAD a GET stands for, else the request itself. */
export const requestAsSent = (request: Request): Request => heads.get(request) ?? request;

export function useHead(): Plugin {
  return {
    onRequest({ request, setRequest, fetchAPI }) {
      if (request.method !== 'HEAD') return;
      const get = new fetchAPI.Request(request.url, { method: 'GET', headers: request.headers, signal: request.signal });
      heads.set(get, request);
      setRequest(get);
    },
    onResponse({ request, response, setResponse, fetchAPI }) {
      if (!heads.has(request)) return;
      // The GET's body is never read: a stream (a subscription's) is cancelled.
      if (response.body && !response.bodyUsed) void response.body.cancel().catch(() => undefined);
      setResponse(new fetchAPI.Response(null, { status: response.status, statusText: response.statusText, headers: response.headers }));
    },
  };
}
