import { Response as FetchResponse } from '@whatwg-node/fetch';
import type { AppError } from '../errors.js';

const jsonHeaders = { 'content-type': 'application/json; charset=utf-8' };

/**
 * The Response class of Yoga's fetch API (the whatwg-node ponyfill): the server writes its string body
 * in one write. A native (undici) Response would be pumped out through a ReadableStream reader, which
 * cost the REST hot path a measurable share of its CPU (docs/explanation/performance.md, "What the profiles showed").
 */
export const HttpResponse: typeof Response = FetchResponse;

/** A JSON response. */
export function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new HttpResponse(JSON.stringify(body), { status, headers: { ...jsonHeaders, ...headers } });
}

/** The contract's error body with the error's status and headers (`Allow`, `Retry-After`). */
export function errorResponse(error: AppError): Response {
  return json(error.status, error.toBody(), error.headers);
}
