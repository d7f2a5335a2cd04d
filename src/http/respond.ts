import type { AppError } from '../errors.js';

const jsonHeaders = { 'content-type': 'application/json; charset=utf-8' };

/** A JSON response. */
export function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), { status, headers: { ...jsonHeaders, ...headers } });
}

/** The contract's error body with the error's status and headers (`Allow`, `Retry-After`). */
export function errorResponse(error: AppError): Response {
  return json(error.status, error.toBody(), error.headers);
}
