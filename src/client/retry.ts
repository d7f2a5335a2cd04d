/**
 * What the client sends again, and when. Safe to resend: every ingestion route is idempotent (upserts
 * and deletes by permalink; a load update sent twice answers `duplicate` and changes nothing), so a
 * request whose fate is unknown (a reset connection, a timeout) may go again. Worth resending: 429 and
 * 503 (they say "later", with `Retry-After`), a connection refused or reset (a server restarting), a
 * timeout, a 502/504 from a proxy. Never resent: any other 4xx (the request itself is wrong: a retry
 * cannot fix it). A 500 is resent twice at most: it may be a passing fault, or a bug that answers
 * every time.
 */

export interface RetryPolicy {
  /** Give up on a request after this long (ms) of failed attempts; 0: no retries. */
  patienceMs: number;
  /** First backoff (ms) after a failed connection; it doubles each attempt… */
  baseDelayMs: number;
  /** …up to this (ms). Each delay is drawn at random below it ("full jitter"). */
  maxDelayMs: number;
  /** A request without an answer after this long (ms) is abandoned and sent again. */
  timeoutMs: number;
}

export const defaultRetryPolicy: RetryPolicy = { patienceMs: 300_000, baseDelayMs: 250, maxDelayMs: 10_000, timeoutMs: 120_000 };

/** How many times a 500 is sent again. */
const internalErrorRetries = 2;

/** Why an attempt failed, as the retry statistics count it. */
export type RetryReason = 'rate_limited' | 'unavailable' | 'connection' | 'timeout' | 'server_error';

/** The Node (undici) error codes of a connection that failed or broke: the server may be back soon. */
const transientCodes = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  'UND_ERR_SOCKET',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_CLOSED',
]);

/** The error code under a failed `fetch` (`TypeError: fetch failed` with a `cause`). */
export function networkCode(error: unknown): string | undefined {
  for (let e: unknown = error, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
  }
  return undefined;
}

/** Whether a thrown `fetch` error is worth another attempt, and as what. */
export function retryableFailure(error: unknown): RetryReason | null {
  if ((error as { name?: string }).name === 'TimeoutError') return 'timeout';
  const code = networkCode(error);
  return code !== undefined && transientCodes.has(code) ? 'connection' : null;
}

/** Whether an HTTP status is worth another attempt (`attempt`: how many 500s were already resent). */
export function retryableStatus(status: number, internalRetries: number): RetryReason | null {
  if (status === 429) return 'rate_limited';
  if (status === 503) return 'unavailable';
  if (status === 502 || status === 504) return 'connection';
  if (status === 500 && internalRetries < internalErrorRetries) return 'server_error';
  return null;
}

/** The n-th backoff (0-based): random below min(max, base × 2ⁿ). */
export const backoffMs = (policy: RetryPolicy, attempt: number, random = Math.random) =>
  random() * Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** attempt);

/** `Retry-After` in ms (seconds, or an HTTP date), undefined when absent or unreadable. */
export function retryAfterMs(headers: Headers, now = Date.now()): number | undefined {
  const value = headers.get('retry-after');
  if (value === null) return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}
