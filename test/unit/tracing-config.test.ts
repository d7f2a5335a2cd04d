/** Which OTEL_* settings turn tracing on, and which the service refuses (observability/tracing.ts, decision 0027). */
import { describe, expect, test } from 'vitest';
import { ConfigError } from '../../src/config.js';
import { otlpProtocol, traceExporters } from '../../src/observability/tracing.js';

const endpoint = 'http://collector:4318';

describe('tracing settings', () => {
  test('off unless an OTLP endpoint or an exporter is named', () => {
    expect(traceExporters({})).toEqual([]);
    expect(traceExporters({ OTEL_SERVICE_NAME: 'tms', OTEL_TRACES_SAMPLER: 'always_on', OTEL_EXPORTER_OTLP_ENDPOINT: ' ' })).toEqual([]);
    expect(traceExporters({ OTEL_EXPORTER_OTLP_ENDPOINT: endpoint })).toEqual(['otlp']);
    expect(traceExporters({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${endpoint}/v1/traces` })).toEqual(['otlp']);
    expect(traceExporters({ OTEL_TRACES_EXPORTER: 'console' })).toEqual(['console']);
    expect(traceExporters({ OTEL_TRACES_EXPORTER: ' OTLP , console' })).toEqual(['otlp', 'console']);
  });

  test('OTEL_SDK_DISABLED=true and OTEL_TRACES_EXPORTER=none win over an endpoint', () => {
    expect(traceExporters({ OTEL_SDK_DISABLED: 'TRUE', OTEL_EXPORTER_OTLP_ENDPOINT: endpoint, OTEL_TRACES_EXPORTER: 'otlp' })).toEqual([]);
    expect(traceExporters({ OTEL_TRACES_EXPORTER: 'none', OTEL_EXPORTER_OTLP_ENDPOINT: endpoint })).toEqual([]);
    expect(traceExporters({ OTEL_SDK_DISABLED: 'false', OTEL_EXPORTER_OTLP_ENDPOINT: endpoint })).toEqual(['otlp']);
  });

  test('an exporter the service does not have is a configuration error naming it', () => {
    expect(() => traceExporters({ OTEL_TRACES_EXPORTER: 'otlp,zipkin' })).toThrow(ConfigError);
    expect(() => traceExporters({ OTEL_TRACES_EXPORTER: 'otlp,zipkin' })).toThrow(/OTEL_TRACES_EXPORTER: zipkin is not supported/);
  });

  test('OTLP over HTTP, protobuf unless JSON is asked for; the traces-specific variable wins; gRPC is refused', () => {
    expect(otlpProtocol({})).toBe('http/protobuf');
    expect(otlpProtocol({ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json' })).toBe('http/json');
    expect(otlpProtocol({ OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'http/protobuf' })).toBe('http/protobuf');
    expect(() => otlpProtocol({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toThrow(ConfigError);
    expect(() => otlpProtocol({ OTEL_EXPORTER_OTLP_PROTOCOL: 'grpc' })).toThrow(/grpc is not supported: use http\/protobuf or http\/json/);
  });
});
