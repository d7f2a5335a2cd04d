/**
 * `tms-ingest/client`: a typed client of the ingestion API (docs/guides/client.md). Records and answers
 * are typed from the service's own zod declarations (./types.ts); every request is retried when that is
 * safe and useful (./retry.ts) and paced by the tenant's rate-limit headers (./pacing.ts).
 *
 * ```ts
 * import { createClient } from 'tms-ingest/client';
 * const client = createClient({ url: 'http://localhost:4000', apiKey: process.env.TMS_INGEST_API_KEY! });
 * const { results } = await client.bulkWrite('load', [{ native_system_load_permalink: 'L1-acme', … }]);
 * ```
 */
import { recordKinds, recordSpecOf, type RecordKind } from '../domain/registry.js';
import { maxBatchRecords, maxBulkBodyBytes } from '../domain/ingestion/operation.js';
import { bulkRestPath, restPath, type IngestAction } from '../domain/declaration/record.js';
import { createPacer, type Pacer } from './pacing.js';
import { backoffMs, defaultRetryPolicy, networkCode, retryableFailure, retryableStatus, retryAfterMs, type RetryPolicy, type RetryReason } from './retry.js';
import type { BulkRecordError, BulkRecordResult, BulkResult, ChangingKind, DeleteOf, ErrorBody, RecordOf, WriteResult } from './types.js';

export type {
  BulkRecordError,
  BulkRecordOutcome,
  BulkRecordResult,
  BulkResult,
  ChangingKind,
  DeleteOf,
  ErrorBody,
  Outcome,
  RecordKind,
  RecordOf,
  WriteResult,
} from './types.js';
export type { RatePolicy } from './pacing.js';
export type { RetryPolicy, RetryReason } from './retry.js';

/** The bulk routes' limits (api-contract.md B): records per request and bytes per body. */
export const bulkLimits = { maxRecords: maxBatchRecords, maxBytes: maxBulkBodyBytes } as const;

/** The record kinds in the order a first sync posts them: parents first. */
export const kindsInOrder: readonly RecordKind[] = recordKinds;

/** The kind's write action: `upsert`, or `create` for load updates (append-only). */
export const writeAction = (kind: RecordKind): 'upsert' | 'create' => (recordSpecOf[kind].freshness === 'append_only' ? 'create' : 'upsert');

export type IngestSource = 'pull' | 'webhook';

export interface ClientOptions {
  /** The service's base URL (`http://localhost:4000`). */
  url: string;
  apiKey: string;
  /** `Service-Ingest-Source` of every request (default: none, counted as `unspecified`). */
  source?: IngestSource;
  /** Retries (defaults: `defaultRetryPolicy`); `{ patienceMs: 0 }` sends every request once. */
  retry?: Partial<RetryPolicy>;
  /** Wait for the tenant's rate limit before sending (default true). */
  pacing?: boolean;
  /** Called before each retry (for logs and progress). */
  onRetry?: (event: { reason: RetryReason; attempt: number; delayMs: number; path: string }) => void;
  /** The fetch to use (default: the global one). */
  fetch?: typeof fetch;
}

export interface WriteOptions {
  /** `?dry_run=true`: validated and evaluated, nothing written. */
  dryRun?: boolean;
  /** `sync_run_time` (upserts and deletes of loads, legs and stops; ignored for carriers, absent for load updates). */
  syncRunTime?: string | Date;
  /** Overrides the client's `Service-Ingest-Source`. */
  source?: IngestSource;
}

/** A non-200 answer the client will not (or no longer) retry: the contract's error, with its status. */
export class IngestApiError extends Error {
  readonly code: string;
  readonly details: ErrorBody['error']['details'];
  constructor(
    readonly status: number,
    body: unknown,
    readonly path: string,
  ) {
    const error = (body as Partial<ErrorBody> | undefined)?.error;
    super(error?.message ?? `HTTP ${status} from ${path}`);
    this.name = 'IngestApiError';
    this.code = typeof error?.code === 'string' ? error.code : `http_${status}`;
    this.details = error?.details;
  }
}

/** No answer at all: the connection was refused, reset or timed out (after the retries), or the URL is unreachable. */
export class IngestConnectionError extends Error {
  readonly code: string | undefined;
  constructor(
    readonly url: string,
    cause: unknown,
  ) {
    const code = (cause as { name?: string }).name === 'TimeoutError' ? 'timeout' : networkCode(cause);
    super(`No answer from ${url}${code ? ` (${code})` : ''}`, { cause });
    this.name = 'IngestConnectionError';
    this.code = code;
  }
}

/** Counts of what the client did, for summaries (`tms-ingest push --json`). */
export interface ClientStats {
  requests: number;
  retries: Record<RetryReason, number>;
  /** Milliseconds spent waiting: for the rate limit (pacing), and before retries. */
  pacedMs: number;
  backoffMs: number;
}

/** Whether a bulk result rejected its record. */
export const isRecordError = (result: BulkRecordResult): result is BulkRecordError => 'error' in result;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

const [bodyStart, bodyComma, bodyEnd] = ['{"records":[', ',', ']}'].map((text) => new TextEncoder().encode(text)) as [Uint8Array, Uint8Array, Uint8Array];

/** `{"records":[…]}` of serialised records: a string of strings, one buffer (a single copy) when any is bytes. */
function bulkBody(records: readonly (string | Uint8Array)[]): string | Uint8Array<ArrayBuffer> {
  if (records.every((record) => typeof record === 'string')) return `{"records":[${records.join(',')}]}`;
  const encoder = new TextEncoder();
  const parts = [bodyStart];
  records.forEach((record, i) => {
    if (i) parts.push(bodyComma);
    parts.push(typeof record === 'string' ? encoder.encode(record) : record);
  });
  parts.push(bodyEnd);
  const body = new Uint8Array(parts.reduce((bytes, part) => bytes + part.byteLength, 0));
  let at = 0;
  for (const part of parts) {
    body.set(part, at);
    at += part.byteLength;
  }
  return body;
}

export function createClient(options: ClientOptions) {
  const base = options.url.replace(/\/+$/, '');
  const policy: RetryPolicy = { ...defaultRetryPolicy, ...options.retry };
  const doFetch = options.fetch ?? fetch;
  const pacer: Pacer | null = options.pacing === false ? null : createPacer();
  const stats: ClientStats = {
    requests: 0,
    retries: { rate_limited: 0, unavailable: 0, connection: 0, timeout: 0, server_error: 0 },
    pacedMs: 0,
    backoffMs: 0,
  };

  function query(kind: RecordKind, write: WriteOptions) {
    const params = new URLSearchParams();
    if (write.dryRun) params.set('dry_run', 'true');
    if (write.syncRunTime !== undefined && recordSpecOf[kind].freshness !== 'append_only') {
      params.set('sync_run_time', write.syncRunTime instanceof Date ? write.syncRunTime.toISOString() : write.syncRunTime);
    }
    const text = params.toString();
    return text ? `?${text}` : '';
  }

  /**
   * POSTs `body` (JSON text) to `path`, retried as ./retry.ts says and paced for `records` records;
   * resolves with the 200's JSON, throws IngestApiError or IngestConnectionError.
   */
  async function post<Answer>(
    path: string,
    body: string | Uint8Array<ArrayBuffer>,
    records: number,
    source: IngestSource | undefined,
    paced = true,
  ): Promise<Answer> {
    const headers: Record<string, string> = { 'content-type': 'application/json', 'x-api-key': options.apiKey };
    if (source) headers['service-ingest-source'] = source;
    const giveUpAt = Date.now() + policy.patienceMs;
    let internalRetries = 0;
    for (let attempt = 0; ; attempt++) {
      const ticket = paced && pacer ? await pacer.reserve(records) : undefined;
      let delayMs: number;
      let reason: RetryReason;
      let failure: () => Error;
      try {
        stats.requests++;
        const res = await doFetch(`${base}${path}`, { method: 'POST', headers, body, signal: AbortSignal.timeout(policy.timeoutMs) });
        const answer: unknown = await res.json().catch(() => undefined);
        if (res.ok && answer !== undefined) {
          if (ticket) pacer!.observe(res.headers, ticket);
          return answer as Answer;
        }
        const retryable = retryableStatus(res.status, internalRetries);
        if (!retryable) throw new IngestApiError(res.status, answer, path);
        if (retryable === 'rate_limited') pacer?.refused();
        if (retryable === 'server_error') internalRetries++;
        reason = retryable;
        // A 429 or 503 says when: wait that long (and a little, so that concurrent requests spread out).
        const after = retryAfterMs(res.headers);
        delayMs = after === undefined ? backoffMs(policy, attempt) : after + Math.random() * 250;
        failure = () => new IngestApiError(res.status, answer, path);
      } catch (error) {
        if (error instanceof IngestApiError) throw error;
        const retryable = retryableFailure(error);
        if (!retryable) throw new IngestConnectionError(base, error);
        reason = retryable;
        delayMs = backoffMs(policy, attempt);
        failure = () => new IngestConnectionError(base, error);
      } finally {
        pacer?.settle();
      }
      if (Date.now() + delayMs > giveUpAt) throw failure();
      stats.retries[reason]++;
      stats.backoffMs += delayMs;
      options.onRetry?.({ reason, attempt: attempt + 1, delayMs, path });
      await sleep(delayMs);
    }
  }

  /**
   * A bulk request of already serialised records (JSON text each, as strings or UTF-8 bytes): what
   * `push` sends, the bytes of its file as they were read, neither parsed nor decoded.
   */
  async function bulkSerialized(
    kind: RecordKind,
    action: IngestAction,
    records: readonly (string | Uint8Array)[],
    write: WriteOptions = {},
  ): Promise<BulkResult> {
    const path = `${bulkRestPath(recordSpecOf[kind], action)}${query(kind, write)}`;
    return post<BulkResult>(path, bulkBody(records), records.length, write.source ?? options.source);
  }

  const single = (kind: RecordKind, action: IngestAction, record: unknown, write: WriteOptions = {}) =>
    post<WriteResult>(`${restPath(recordSpecOf[kind], action)}${query(kind, write)}`, JSON.stringify(record), 1, write.source ?? options.source);

  const bulk = (kind: RecordKind, action: IngestAction, records: readonly unknown[], write?: WriteOptions) =>
    bulkSerialized(
      kind,
      action,
      records.map((record) => JSON.stringify(record)),
      write,
    );

  return {
    /** Upserts one record of a kind that changes (`POST /api/v1/<kind>/upsert`). */
    upsert: <Kind extends ChangingKind>(kind: Kind, record: RecordOf[Kind], write?: WriteOptions) => single(kind, 'upsert', record, write),
    /** Creates one load update (append-only: a repeated permalink answers `duplicate`). */
    createLoadUpdate: (record: RecordOf['load_update'], write?: Omit<WriteOptions, 'syncRunTime'>) => single('load_update', 'create', record, write),
    /** Deletes one record by its permalink (a tombstone; idempotent). */
    delete: <Kind extends ChangingKind>(kind: Kind, record: DeleteOf<Kind>, write?: WriteOptions) => single(kind, 'delete', record, write),
    /** Upserts up to 1,000 records of a kind (`bulk_upsert`). */
    bulkUpsert: <Kind extends ChangingKind>(kind: Kind, records: readonly RecordOf[Kind][], write?: WriteOptions) => bulk(kind, 'upsert', records, write),
    /** Creates up to 1,000 load updates (`bulk_create`). */
    bulkCreateLoadUpdates: (records: readonly RecordOf['load_update'][], write?: Omit<WriteOptions, 'syncRunTime'>) =>
      bulk('load_update', 'create', records, write),
    /** Deletes up to 1,000 records (`bulk_delete`). */
    bulkDelete: <Kind extends ChangingKind>(kind: Kind, records: readonly DeleteOf<Kind>[], write?: WriteOptions) => bulk(kind, 'delete', records, write),
    /** The kind's write in bulk: `bulk_upsert`, or `bulk_create` for load updates. */
    bulkWrite: <Kind extends RecordKind>(kind: Kind, records: readonly RecordOf[Kind][], write?: WriteOptions) => bulk(kind, writeAction(kind), records, write),
    bulkSerialized,
    /**
     * The key's tenant (GraphQL `viewer`), asked once without retries: a first check that the URL is a
     * tms-ingest service and the key is valid (IngestApiError 401: the key; 404: the URL).
     */
    async viewer(): Promise<{ slug: string; name: string }> {
      const headers = { 'content-type': 'application/json', 'x-api-key': options.apiKey };
      let res: Response;
      try {
        res = await doFetch(`${base}/graphql`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ query: '{ viewer { slug name } }' }),
          signal: AbortSignal.timeout(Math.min(policy.timeoutMs, 30_000)),
        });
      } catch (error) {
        throw new IngestConnectionError(base, error);
      }
      const answer = (await res.json().catch(() => undefined)) as
        { data?: { viewer?: { slug: string; name: string } }; errors?: { extensions?: { code?: string }; message: string }[] } | undefined;
      const viewer = answer?.data?.viewer;
      if (res.ok && viewer) return viewer;
      const graphqlError = answer?.errors?.[0];
      const body = graphqlError ? { error: { code: graphqlError.extensions?.code ?? `http_${res.status}`, message: graphqlError.message } } : answer;
      throw new IngestApiError(res.ok && !answer ? 404 : res.status, body, '/graphql');
    },
    /** The tenant's rate limit as the headers said (undefined before the first answer, null: no limit). */
    get ratePolicy() {
      return pacer?.policy;
    },
    /** What the client did so far. */
    stats(): ClientStats {
      return { ...stats, retries: { ...stats.retries }, pacedMs: Math.round(pacer?.waitedMs ?? 0), backoffMs: Math.round(stats.backoffMs) };
    },
  };
}

export type IngestClient = ReturnType<typeof createClient>;
