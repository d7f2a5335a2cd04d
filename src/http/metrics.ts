/**
 * Prometheus metrics at `GET /metrics` (text exposition format), one registry per app so several
 * apps in one process (tests) never share counters. Labels carry route templates, methods, status
 * codes, tenant slugs and enum values only: never raw paths, API keys, permalinks or personal data.
 *
 * `/metrics` needs no API key: serve it on an internal network only (do not route it publicly).
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { Plugin } from 'graphql-yoga';
import type { Database } from '../db/database.js';
import type { IngestRecorder } from '../domain/ingest-health/report.js';
import { toAppError } from '../errors.js';
import { requestAsSent } from './head.js';
import { servicePaths } from './paths.js';
import { errorResponse, HttpResponse } from './respond.js';

const methods = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** prom-client's default gauges whose `_total` suffix says counter. */
const notCounters = ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'];

export interface MetricsOptions {
  db: Database;
  /** The REST routes: their paths are the `route` label's known values (everything else is `unmatched`). */
  routes: readonly { path: string }[];
}

export function createMetrics({ db, routes }: MetricsOptions) {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  // prom-client's totals of active handles, requests and resources are gauges named like counters
  // (`promtool check metrics` refuses them); the same counts, by type, stay in nodejs_active_handles,
  // nodejs_active_requests and nodejs_active_resources (sum them for the totals).
  for (const name of notCounters) registry.removeSingleMetric(name);
  const knownRoutes = new Set([...routes.map((r) => r.path), ...Object.keys(servicePaths)]);

  const httpRequests = new Counter({
    name: 'http_requests_total',
    help: 'HTTP requests answered, by method, route template and status code.',
    labelNames: ['method', 'route', 'status_code'] as const,
    registers: [registry],
  });
  const httpDuration = new Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time from receiving a request to having its response, by method, route template and status code.',
    labelNames: ['method', 'route', 'status_code'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [registry],
  });
  const ingestRecords = new Counter({
    name: 'ingest_records_total',
    help: 'Records received for ingestion (REST and GraphQL), by tenant slug, ingest source, record kind and outcome.',
    labelNames: ['tenant', 'source', 'kind', 'outcome'] as const,
    registers: [registry],
  });
  const dryRunRecords = new Counter({
    name: 'ingest_dry_run_records_total',
    help: 'Dry-run records (?dry_run=true, dryRun: true; nothing written), by tenant slug, ingest source, record kind and the outcome answered. Never in ingest_records_total.',
    labelNames: ['tenant', 'source', 'kind', 'outcome'] as const,
    registers: [registry],
  });
  const missingFields = new Counter({
    name: 'ingest_recommended_field_missing_total',
    help: 'Accepted records (processed, skipped or duplicate; dry runs aside) that left a recommended field empty, by tenant slug, ingest source, record kind and field (data quality).',
    labelNames: ['tenant', 'source', 'kind', 'field'] as const,
    registers: [registry],
  });
  const responseCache = new Counter({
    name: 'graphql_response_cache_total',
    help: 'Cacheable GraphQL queries by what the response cache did: hit, stale (served while one request recomputes), miss, bypass (Cache-Control: no-cache).',
    labelNames: ['outcome'] as const,
    registers: [registry],
  });
  // The embedded database reports as a pool of one connection (its waiting clients: calls queued behind it).
  const pool = (name: string, help: string, read: (s: ReturnType<Database['poolStats']>) => number) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      collect() {
        this.set(read(db.poolStats()));
      },
    });
  pool('db_pool_connections', 'Open connections in the database pool.', (s) => s.total);
  pool('db_pool_idle_connections', 'Idle connections in the database pool.', (s) => s.idle);
  pool('db_pool_waiting_clients', 'Queries waiting for a free pool connection.', (s) => s.waiting);

  // Read at scrape time from the database, so every instance reports the same values (alert on one
  // instance's series, or use max by (tenant, source)). Small queries: one row per tenant and source.
  // The two source gauges share one read per scrape: prom-client starts every collect() in the same
  // tick, so the second joins the query the first started.
  type SourceRow = { tenant: string; source: string; last: number; stale: number };
  let sourcesInFlight: Promise<SourceRow[]> | null = null;
  const sources = () =>
    (sourcesInFlight ??= db.sql
      .query<SourceRow>(
        `SELECT t.slug AS tenant, s.source, extract(epoch FROM s.last_received_at)::float8 AS last,
                CASE s.source WHEN 'pull' THEN t.pull_stale_seconds WHEN 'webhook' THEN t.webhook_stale_seconds ELSE t.unspecified_stale_seconds END AS stale
         FROM ingest_sources s JOIN tenants t ON t.id = s.tenant_id`,
        [],
      )
      .finally(() => (sourcesInFlight = null)));
  new Gauge({
    name: 'ingest_source_last_received_timestamp_seconds',
    help: 'When each ingestion path of each tenant last received a request (Unix time); with ingest_source_stale_after_seconds, a source is stale when time() minus this exceeds it.',
    labelNames: ['tenant', 'source'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      for (const row of await sources()) this.set({ tenant: row.tenant, source: row.source }, Number(row.last));
    },
  });
  new Gauge({
    name: 'ingest_source_stale_after_seconds',
    help: "The tenant's expected interval per ingestion path (setTenantStaleInterval): silence longer than this makes ingest health STALE.",
    labelNames: ['tenant', 'source'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      for (const row of await sources()) this.set({ tenant: row.tenant, source: row.source }, Number(row.stale));
    },
  });
  new Gauge({
    name: 'load_events_unsequenced_age_seconds',
    help: 'Age of the oldest committed change event not yet numbered by the event sequencer (0 when none): how far live events and webhooks lag behind writes.',
    registers: [registry],
    async collect() {
      // Per tenant, so each tenant's unsequenced events are found by the (tenant_id, seq) index (NULLs
      // sort last: one descent per tenant) instead of a scan of every event (docs/explanation/performance.md);
      // one statement per tenant, each one shard's on a Citus cluster (which cannot push down a lateral
      // join of the reference table `tenants` with a distributed table).
      let age = 0;
      for (const { id } of await db.sql.query<{ id: string }>('SELECT id FROM tenants', [])) {
        const [row] = await db.sql.query<{ age: number | null }>(
          `SELECT extract(epoch FROM clock_timestamp() - min(e.occurred_at))::float8 AS age FROM load_events e WHERE e.tenant_id = $1::uuid AND e.seq IS NULL`,
          [id],
          'metrics_unsequenced_age',
        );
        age = Math.max(age, Number(row?.age ?? 0));
      }
      this.set(age);
    },
  });

  const started = new WeakMap<Request, number>();
  const labelsOf = (request: Request, status: number) => {
    const path = new URL(request.url).pathname;
    return {
      method: methods.has(request.method) ? request.method : 'OTHER',
      route: knownRoutes.has(path) ? path : 'unmatched',
      status_code: String(status),
    };
  };

  const plugin: Plugin = {
    instrumentation: {
      request({ request }, handle) {
        started.set(request, performance.now());
        return handle();
      },
    },
    // Reached by GET only (methods.ts answers the other methods).
    onRequest({ url, endResponse }) {
      if (url.pathname !== '/metrics') return;
      // A gauge whose query fails answers the contract's error shape, never the error itself.
      return registry.metrics().then(
        (text) => endResponse(new HttpResponse(text, { headers: { 'content-type': registry.contentType } })),
        (error: unknown) => endResponse(errorResponse(toAppError(error))),
      );
    },
    onResponse({ request: served, response }) {
      const request = requestAsSent(served);
      const labels = labelsOf(request, response.status);
      httpRequests.inc(labels);
      const start = started.get(request);
      if (start !== undefined) httpDuration.observe(labels, (performance.now() - start) / 1000);
    },
  };

  return {
    registry,
    plugin,
    /** Counts one response-cache outcome (graphql/response-cache.ts). */
    countResponseCache: (outcome: string) => responseCache.inc({ outcome }),
    /**
     * Wraps the recorder so every ingestion event also counts in `ingest_records_total` (a dry run's in
     * `ingest_dry_run_records_total`), and an accepted record's empty recommended fields in
     * `ingest_recommended_field_missing_total` (events are reported once the write committed).
     */
    countIngest(recorder: IngestRecorder): IngestRecorder {
      return {
        record(event) {
          recorder.record(event);
          (event.dryRun ? dryRunRecords : ingestRecords).inc({ tenant: event.tenantSlug, source: event.source, kind: event.kind, outcome: event.outcome });
          if (event.dryRun) return;
          for (const field of event.missingFields ?? []) missingFields.inc({ tenant: event.tenantSlug, source: event.source, kind: event.kind, field });
        },
        flush: () => recorder.flush(),
        close: () => recorder.close(),
      };
    },
  };
}
