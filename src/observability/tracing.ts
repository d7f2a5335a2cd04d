/**
 * OpenTelemetry traces, off unless the standard `OTEL_*` variables ask for them (decision 0027,
 * docs/guides/observability.md). This module is all that loads when they are off: it imports no
 * OpenTelemetry package. `startTracing()` (the first thing main.ts does) decides from the
 * environment and, when tracing is on, imports the SDK (./sdk.ts) and the span helpers (./spans.ts)
 * dynamically; the code that makes spans (the Yoga plugin, the database layer, the ingestion use case,
 * the webhook sender, the logger) asks `tracing()` and, while it answers null, does what it did before.
 */
import type { Plugin } from 'graphql-yoga';
import { ConfigError } from '../config.js';

/** Span attribute values (OpenTelemetry's primitive kinds). */
export type SpanAttributes = Record<string, string | number | boolean | undefined>;

/** The database a statement span describes. */
export interface StatementTarget {
  /** `pg` (PostgreSQL over the network) or `pglite` (the embedded PostgreSQL, on this thread). */
  engine: 'pg' | 'pglite';
  /** The database's name, host and port (PostgreSQL; from its URL, without credentials). */
  database?: string;
  host?: string;
  port?: number;
}

/** Runs one statement inside its span: `text` is the parametrised SQL, `name` its prepared-statement name. */
export type TraceStatement = <T>(text: string, run: () => Promise<T>, name?: string) => Promise<T>;

/** What the instrumented code calls while tracing is on (implemented in ./spans.ts). */
export interface Tracing {
  /**
   * The Yoga plugin of the app (first of its plugins): a SERVER span per HTTP request, named by its
   * method and route (`POST /api/v1/loads/bulk_upsert`; the method alone for a path that is no route),
   * child of the caller's W3C `traceparent`; an INTERNAL span per GraphQL operation (`query LoadBoard`).
   */
  plugin(knownPaths: Iterable<string>): Plugin;
  /** The statement runner of one database (every statement a CLIENT span with `db.*` attributes). */
  statements(target: StatementTarget): TraceStatement;
  /** Runs `run` inside an INTERNAL span; `after` adds attributes from its result. */
  inSpan<T>(name: string, attributes: SpanAttributes, run: () => Promise<T>, after?: (result: T) => SpanAttributes): Promise<T>;
  /**
   * One outgoing HTTP request (a webhook attempt) in a CLIENT span: `send` gets `headers` with the
   * span's W3C `traceparent` added; `outcome` reads the HTTP status (null: no answer) and the error of its result.
   */
  outgoing<T>(
    request: { url: URL; method: string; headers: Record<string, string>; attributes?: SpanAttributes },
    send: (headers: Record<string, string>) => Promise<T>,
    outcome: (result: T) => { httpStatus: number | null; error: string | null },
  ): Promise<T>;
  /** The active span's ids for a log line (`trace_id`, `span_id`, `trace_flags`), or null outside any span. */
  logFields(): { trace_id: string; span_id: string; trace_flags: string } | null;
  /** Exports the spans still buffered and stops the SDK (shutdown). */
  shutdown(): Promise<void>;
}

let active: Tracing | null = null;

/** The running tracing, or null when tracing is off (the instrumented code then does nothing more). */
export const tracing = (): Tracing | null => active;

type Env = Record<string, string | undefined>;

const listOf = (value: string | undefined) =>
  (value ?? '')
    .split(',')
    .map((item) => item.trim().toLowerCase())
    .filter(Boolean);

/** The exporters the environment names (`OTEL_TRACES_EXPORTER`; `otlp` when only an endpoint is set); none: tracing is off. */
export function traceExporters(env: Env): ('otlp' | 'console')[] {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === 'true') return [];
  const named = listOf(env.OTEL_TRACES_EXPORTER);
  if (!named.length) return env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() ? ['otlp'] : [];
  const unknown = named.filter((name) => !['otlp', 'console', 'none'].includes(name));
  if (unknown.length) throw new ConfigError(`Invalid configuration: OTEL_TRACES_EXPORTER: ${unknown.join(', ')} is not supported (otlp, console or none).`);
  return named.filter((name): name is 'otlp' | 'console' => name !== 'none');
}

/** The OTLP encoding (`OTEL_EXPORTER_OTLP_TRACES_PROTOCOL`, else `OTEL_EXPORTER_OTLP_PROTOCOL`; default protobuf over HTTP). */
export function otlpProtocol(env: Env): 'http/protobuf' | 'http/json' {
  const protocol = (env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL?.trim() || env.OTEL_EXPORTER_OTLP_PROTOCOL?.trim() || 'http/protobuf').toLowerCase();
  if (protocol === 'http/protobuf' || protocol === 'http/json') return protocol;
  throw new ConfigError(
    `Invalid configuration: OTEL_EXPORTER_OTLP_PROTOCOL: ${protocol} is not supported: use http/protobuf or http/json (an OpenTelemetry Collector's OTLP/HTTP port, 4318).`,
  );
}

/**
 * Starts tracing when the process environment asks for it (an OTLP endpoint, or `OTEL_TRACES_EXPORTER`; never
 * with `OTEL_SDK_DISABLED=true`): loads the SDK, registers its tracer provider, W3C propagator and
 * context manager globally, and returns the running tracing. Otherwise loads nothing and returns null.
 * A value the service cannot honour (an unknown exporter, OTLP over gRPC) is a ConfigError.
 */
export async function startTracing(): Promise<Tracing | null> {
  const env = process.env;
  const exporters = traceExporters(env);
  if (!exporters.length) return null;
  const protocol = otlpProtocol(env);
  const { startSdk } = await import('./sdk.js');
  const { createTracing } = await import('./spans.js');
  active = createTracing(startSdk({ exporters, protocol, logLevel: env.OTEL_LOG_LEVEL }));
  return active;
}

/** Exports what is buffered and stops tracing (a no-op when it is off). */
export async function stopTracing(): Promise<void> {
  const stopping = active;
  active = null;
  await stopping?.shutdown();
}
