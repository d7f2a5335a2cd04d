/** The contract's error catalog: code → HTTP status (api-contract.md, "Errors"). */
export const errorStatus = {
  invalid_json: 400,
  validation_failed: 400,
  unauthenticated: 401,
  tenant_mismatch: 403,
  forbidden: 403,
  not_found: 404,
  method_not_allowed: 405,
  payload_too_large: 413,
  unsupported_media_type: 415,
  parent_not_found: 422,
  rate_limited: 429,
  internal: 500,
  unavailable: 503,
} as const satisfies Record<string, number>;

export type ErrorCode = keyof typeof errorStatus;
export const errorCodes = Object.keys(errorStatus) as ErrorCode[];

/** One offending field of a rejected request. */
export interface FieldIssue {
  field: string;
  issue: string;
}

/**
 * The challenge every 401 carries (RFC 9110 §11.6.1 requires `WWW-Authenticate` on a 401): the key
 * travels in the `X-API-Key` header, which no registered scheme names, so the scheme is `ApiKey` with
 * the header's name as a parameter.
 */
export const apiKeyChallenge = 'ApiKey realm="tms-ingest", header="X-API-Key"';

/** An error the contract names. Thrown by domain code; turned into JSON or GraphQL at the edge. */
export class AppError extends Error {
  override readonly name = 'AppError';
  /** Headers the answer carries (`Allow`, `Retry-After`; every `unauthenticated` one `WWW-Authenticate`). */
  readonly headers?: Record<string, string>;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: FieldIssue[],
    headers?: Record<string, string>,
  ) {
    super(message);
    this.headers = code === 'unauthenticated' ? { 'WWW-Authenticate': apiKeyChallenge, ...headers } : headers;
  }

  get status(): number {
    return errorStatus[this.code];
  }

  /** The JSON body every non-200 REST answer carries. */
  toBody() {
    return { error: { code: this.code, message: this.message, ...(this.details ? { details: this.details } : {}) } };
  }

  /**
   * The `extensions` of the GraphQL error it is answered as: `code` (the REST code), its `details`,
   * `retryAfter` (seconds) when it says when to retry, and `http` for an error of the HTTP request
   * itself (`true`: its own status and headers, as REST would answer; a field error has none).
   */
  graphqlExtensions(http: boolean | { status?: number; headers?: Record<string, string> } = false) {
    const retryAfter = this.headers?.['Retry-After'];
    const status = http === true ? { status: this.status, ...(this.headers ? { headers: this.headers } : {}) } : http || undefined;
    return {
      code: this.code,
      ...(this.details ? { details: this.details } : {}),
      ...(retryAfter === undefined ? {} : { retryAfter: Number(retryAfter) }),
      ...(status ? { http: status } : {}),
    };
  }
}

/** 400 validation_failed with every offending field; `hint` (a sentence with its leading space) follows the list. */
export function validationFailed(details: FieldIssue[], hint = ''): AppError {
  const fields = details.map((d) => d.field).join(', ');
  return new AppError('validation_failed', `The request is invalid: ${fields}.${hint}`, details);
}

const unavailableCodes = new Set([
  // Node.js network errors
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'ETIMEDOUT',
  'EPIPE',
  // PostgreSQL: admin shutdown, cannot connect now, connection exceptions
  '57P01',
  '57P03',
  '08000',
  '08001',
  '08003',
  '08006',
  // Prisma: server unreachable, timeouts, connection closed, pool timeout
  'P1001',
  'P1002',
  'P1017',
  'P2024',
]);

/** True for errors that mean the database cannot be reached (→ 503 unavailable). */
export function isDatabaseUnavailable(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e && typeof e === 'object' && depth < 5; depth++) {
    const { code, message, cause } = e as { code?: unknown; message?: unknown; cause?: unknown };
    if (typeof code === 'string' && unavailableCodes.has(code)) return true;
    if (
      typeof message === 'string' &&
      /connection terminated|Connection terminated|ECONNREFUSED|timeout exceeded when trying to connect|PGlite is closed|database is closed|Cannot use a pool after calling end/i.test(
        message,
      )
    )
      return true;
    e = cause;
  }
  return false;
}

/** True when `error` or one of its causes carries one of these codes (PostgreSQL's SQLSTATE). */
function hasCode(error: unknown, codes: readonly string[]): boolean {
  for (let e: unknown = error, depth = 0; e && typeof e === 'object' && depth < 5; depth++) {
    const { code, cause } = e as { code?: unknown; cause?: unknown };
    if (typeof code === 'string' && codes.includes(code)) return true;
    e = cause;
  }
  return false;
}

/** PostgreSQL's deadlock_detected (40P01) and serialization_failure (40001): the transaction was rolled back whole, a retry succeeds. */
const isTransientConflict = (error: unknown): boolean => hasCode(error, ['40P01', '40001']);

/**
 * True for PostgreSQL's refusals of the data a statement carried: data exceptions (class 22, such as
 * a value out of range), integrity constraint violations (23) and program limits (54, such as an
 * index row too large). Those are caused by one record; others (a missing table, a permission) are
 * faults of the whole statement.
 */
export function isDataRefusal(error: unknown): boolean {
  for (let e: unknown = error, depth = 0; e && typeof e === 'object' && depth < 5; depth++) {
    const { code, cause } = e as { code?: unknown; cause?: unknown };
    if (typeof code === 'string' && /^(22|23|54)[0-9A-Z]{3}$/.test(code)) return true;
    e = cause;
  }
  return false;
}

/** Maps anything thrown to a contract error: AppError as is, database outages to 503, else 500. */
export function toAppError(error: unknown): AppError {
  if (error instanceof AppError) return error;
  if (isDatabaseUnavailable(error)) {
    return new AppError('unavailable', 'The database is unreachable; retry shortly.', undefined, { 'Retry-After': '5' });
  }
  if (isTransientConflict(error)) {
    return new AppError('unavailable', 'The write collided with a concurrent write and was rolled back (nothing was stored); retry.', undefined, {
      'Retry-After': '1',
    });
  }
  return new AppError('internal', 'An internal error occurred.');
}
