/**
 * The OpenTelemetry SDK, loaded only when tracing is on (tracing.ts imports this module dynamically).
 * Everything the specification lets the environment set is read by the SDK itself: the sampler
 * (`OTEL_TRACES_SAMPLER`, `OTEL_TRACES_SAMPLER_ARG`), the batch processor (`OTEL_BSP_*`), attribute
 * limits (`OTEL_ATTRIBUTE_VALUE_LENGTH_LIMIT`…), the exporter's endpoint, headers, timeout and
 * compression (`OTEL_EXPORTER_OTLP_*`) and the resource (`OTEL_SERVICE_NAME`, `OTEL_RESOURCE_ATTRIBUTES`).
 */
import { diag, DiagConsoleLogger, DiagLogLevel } from '@opentelemetry/api';
import { OTLPTraceExporter as OtlpJsonExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { OTLPTraceExporter as OtlpProtobufExporter } from '@opentelemetry/exporter-trace-otlp-proto';
import { defaultResource, detectResources, envDetector, hostDetector, processDetector, resourceFromAttributes } from '@opentelemetry/resources';
import { BatchSpanProcessor, ConsoleSpanExporter, NodeTracerProvider, type SpanExporter } from '@opentelemetry/sdk-trace-node';
import { ATTR_SERVICE_NAME } from '@opentelemetry/semantic-conventions';

export interface SdkSettings {
  exporters: readonly ('otlp' | 'console')[];
  protocol: 'http/protobuf' | 'http/json';
  /** `OTEL_LOG_LEVEL`: the SDK's own diagnostics (an unreachable collector…) on stderr at this level; unset: none. */
  logLevel: string | undefined;
}

const diagLevels: Record<string, DiagLogLevel> = {
  none: DiagLogLevel.NONE,
  error: DiagLogLevel.ERROR,
  warn: DiagLogLevel.WARN,
  info: DiagLogLevel.INFO,
  debug: DiagLogLevel.DEBUG,
  verbose: DiagLogLevel.VERBOSE,
  all: DiagLogLevel.ALL,
};

/** Registers a tracer provider exporting through `settings.exporters` (a batch processor each); returns it. */
// Imported dynamically by tracing.ts (only when tracing is on), which ts-unused-exports does not follow.
// ts-unused-exports:disable-next-line
export function startSdk(settings: SdkSettings): NodeTracerProvider {
  const level = settings.logLevel ? diagLevels[settings.logLevel.trim().toLowerCase()] : undefined;
  if (level !== undefined) diag.setLogger(new DiagConsoleLogger(), level);
  const exporter = (name: 'otlp' | 'console'): SpanExporter =>
    name === 'console' ? new ConsoleSpanExporter() : settings.protocol === 'http/json' ? new OtlpJsonExporter() : new OtlpProtobufExporter();
  const provider = new NodeTracerProvider({
    // The service's name unless OTEL_SERVICE_NAME or OTEL_RESOURCE_ATTRIBUTES gives another (the env detector comes last).
    resource: defaultResource()
      .merge(resourceFromAttributes({ [ATTR_SERVICE_NAME]: 'tms-ingest' }))
      .merge(detectResources({ detectors: [hostDetector, processDetector, envDetector] })),
    spanProcessors: settings.exporters.map((name) => new BatchSpanProcessor(exporter(name))),
  });
  // The global tracer provider, AsyncLocalStorage context manager and W3C trace-context and baggage propagators.
  provider.register();
  return provider;
}
