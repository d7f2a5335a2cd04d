/**
 * Response cache for dashboard reads (issue 8: the load board at 100,000 loads). A dashboard polls
 * the same query; on a big tenant one answer costs tens of milliseconds of CPU in PostgreSQL and in
 * GraphQL execution, so identical queries of a tenant share one answer until its data changes.
 *
 * - **What is cached:** query operations whose root fields all read the tenant's records
 *   (`cacheableRootFields`), answered without errors. Key: tenant, kind of key (tenant or admin),
 *   the tenant's TMS link template, operation name, variables and document text.
 * - **When an answer is dropped:** at once when this instance commits a write of the tenant (every
 *   write path ends in `sequencer.committed`), or when any instance numbers change events of the
 *   tenant (`NOTIFY load_events`, which every instance LISTENs to). Writes that record no event
 *   (a carrier, a newer `sync_run_time` with the same fields) made through *another* instance, or
 *   around the service, are seen within `ttlMs`: after it an answer is recomputed by the next request
 *   while concurrent identical requests still get the previous one (stale-while-revalidate).
 * - **One computation at a time:** identical requests (same tenant data version) that arrive while an
 *   answer is being computed wait for it instead of computing it again (`shared`).
 * - `Cache-Control: no-cache` on a request skips the cache (the fresh answer is stored);
 *   `X-Response-Cache: hit | stale | shared | miss | bypass` on each cacheable answer says what happened.
 */
import { getOperationAST, Kind, OperationTypeNode, type DocumentNode, type ExecutionResult } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { LRUCache } from 'lru-cache';
import type { Clock } from '../clock.js';
import type { LoadEventHub } from '../domain/events/live.js';
import { recordSpecs } from '../domain/registry.js';
import type { Logger } from '../logger.js';
import type { RequestContext } from './context.js';

/**
 * Root fields whose answers depend only on the tenant's records (and so on its data version): those
 * every record kind declares (`graphql.rootFields`).
 */
export const cacheableRootFields: ReadonlySet<string> = new Set([...recordSpecs.flatMap((spec) => spec.graphql.rootFields), '__typename']);

/** How long a computation may run before identical requests stop waiting for it. */
const refreshTimeoutMs = 10_000;

export type CacheOutcome = 'hit' | 'stale' | 'shared' | 'miss' | 'bypass';

/**
 * Per-tenant data versions of this instance: a bump makes every cached answer of the tenant stale.
 * `bumpAll` covers a lost listener (notifications sent meanwhile are gone).
 */
export function createDataVersions() {
  const versions = new Map<string, number>();
  let epoch = 0;
  return {
    of: (tenantId: string) => `${epoch}.${versions.get(tenantId) ?? 0}`,
    bump(tenantId: string) {
      versions.set(tenantId, (versions.get(tenantId) ?? 0) + 1);
    },
    bumpAll() {
      epoch += 1;
    },
  };
}

export type DataVersions = ReturnType<typeof createDataVersions>;

interface Entry {
  version: string;
  storedAt: number;
  /** The answer, serialized once: Yoga sends a result's own `stringify` instead of JSON.stringify. */
  result: ExecutionResult & { stringify(): string };
  bytes: number;
}

export interface ResponseCacheOptions {
  /** The instance's change-event listener (its NOTIFYs bring other instances' writes). */
  events: Pick<LoadEventHub, 'watch'>;
  logger: Logger;
  versions: DataVersions;
  /** Longest an answer is served without a recomputation (`RESPONSE_CACHE_TTL_MS`; 0 turns the cache off). */
  ttlMs: number;
  /** The service clock: an answer's age is measured on it. */
  clock: Clock;
  /** Memory for cached answers, in bytes of their JSON (`RESPONSE_CACHE_MAX_MB`). */
  maxBytes: number;
  /** Counts outcomes for /metrics. */
  count?: (outcome: CacheOutcome) => void;
}

export function useResponseCache({ events, logger, versions, ttlMs, clock, maxBytes, count }: ResponseCacheOptions): Plugin<RequestContext> {
  if (ttlMs <= 0) return {};
  const entries = new LRUCache<string, Entry>({ maxSize: maxBytes, sizeCalculation: (entry) => entry.bytes });
  /**
   * Keys being computed → the computation: identical requests of the same data version meanwhile get
   * its answer (`shared`) or, once one is stored, the previous answer (`stale`).
   */
  const computing = new Map<string, { version: string; started: number; done: Promise<ExecutionResult | null> }>();
  const outcomes = new WeakMap<Request, CacheOutcome>();
  let listening: Promise<unknown> | null = null;

  /** Another instance's writes reach this one through the sequencing passes' NOTIFY. */
  const observer = { changed: versions.bump, reconnected: versions.bumpAll };
  const listen = () => {
    listening ??= events.watch(observer).catch((error: unknown) => {
      listening = null;
      logger.warn({ err: error }, 'response cache: listening for change events failed; retrying with the next stored answer');
    });
    return listening;
  };

  const keyOf = (ctx: RequestContext, document: DocumentNode, operationName: string | null | undefined, variables: unknown) => {
    const tenant = ctx.actor?.tenant;
    if (!tenant) return null;
    const operation = getOperationAST(document, operationName);
    if (operation?.operation !== OperationTypeNode.QUERY) return null;
    for (const selection of operation.selectionSet.selections) {
      if (selection.kind !== Kind.FIELD || !cacheableRootFields.has(selection.name.value)) return null;
    }
    // Yoga's own context part: the request's GraphQL parameters as sent.
    const text = (ctx as { params?: { query?: unknown } }).params?.query;
    if (typeof text !== 'string') return null;
    return `${tenant.id}\n${ctx.actor.kind}\n${tenant.tmsUrlTemplate ?? ''}\n${operationName ?? ''}\n${JSON.stringify(variables ?? {})}\n${text}`;
  };

  return {
    async onExecute({ args, setResultAndStopExecution }) {
      const ctx = args.contextValue;
      const key = keyOf(ctx, args.document as DocumentNode, args.operationName as string | null | undefined, args.variableValues);
      if (!key) return;
      const tenantId = ctx.actor.tenant!.id;
      const version = versions.of(tenantId);
      const now = clock.now().getTime();
      const answer = (outcome: CacheOutcome) => {
        outcomes.set(ctx.request, outcome);
        count?.(outcome);
      };
      const bypass = /\bno-cache\b/i.test(ctx.request.headers.get('cache-control') ?? '');
      const entry = bypass ? undefined : entries.get(key);
      const running = bypass ? undefined : computing.get(key);
      const joinable = running && running.version === version && now - running.started < refreshTimeoutMs ? running : undefined;
      if (entry && entry.version === version) {
        if (now - entry.storedAt < ttlMs) return (answer('hit'), setResultAndStopExecution(entry.result));
        if (joinable) return (answer('stale'), setResultAndStopExecution(entry.result));
      }
      if (joinable) {
        // A busy tenant's writes keep dropping answers: concurrent identical requests compute once.
        const result = await joinable.done;
        if (result) return (answer('shared'), setResultAndStopExecution(result));
      }
      answer(bypass ? 'bypass' : 'miss');
      let finish!: (result: ExecutionResult | null) => void;
      const done = new Promise<ExecutionResult | null>((resolve) => (finish = resolve));
      // Waiters never hang on a computation that ends without a result (they then compute themselves).
      const timer = setTimeout(() => finish(null), refreshTimeoutMs).unref();
      computing.set(key, { version, started: now, done });
      await listen();
      return {
        onExecuteDone({ result, setResult }) {
          clearTimeout(timer);
          if (computing.get(key)?.done === done) computing.delete(key);
          if (Symbol.asyncIterator in result || result.errors?.length) return finish(null);
          // A compiled read's result is its JSON text already (compiled-read.ts): stored as it is, never parsed.
          const own = (result as { stringify?: () => string }).stringify;
          const body = own ? own() : JSON.stringify(result);
          const stored = own ? (result as Entry['result']) : { ...result, stringify: () => body };
          entries.set(key, { version, storedAt: now, result: stored, bytes: Math.max(1, body.length) });
          setResult(stored); // serialized once for this answer too
          finish(stored);
        },
      };
    },
    onResponse({ request, response }) {
      const outcome = outcomes.get(request);
      if (outcome) response.headers.set('x-response-cache', outcome);
    },
  };
}
