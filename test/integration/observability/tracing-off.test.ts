/**
 * Tracing is off unless configured, and then nothing of it runs (decision 0027): with no OTEL_*
 * variable set, `startTracing()` loads no SDK and registers nothing (OpenTelemetry's API stays the no-op
 * one), and a request carrying a `traceparent` is served with no trace ids on its log lines.
 */
import { trace } from '@opentelemetry/api';
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { startTracing, tracing } from '../../../src/observability/tracing.js';
import { loadBody, routes } from '../../factories/records.js';
import { apiFor, createTestApp, type TestApp } from '../../helpers/app.js';
import { newTraceparent } from '../../helpers/otlp-receiver.js';

const lines: Record<string, unknown>[] = [];
let testApp: TestApp;

beforeAll(async () => {
  // Whatever the machine running the tests has set.
  for (const name of Object.keys(process.env).filter((key) => key.startsWith('OTEL_'))) vi.stubEnv(name, undefined);
  testApp = await createTestApp({ env: { LOG_LEVEL: 'info' }, logStream: { write: (line: string) => void lines.push(JSON.parse(line)) } });
});

afterAll(async () => {
  await testApp.close();
  vi.unstubAllEnvs();
});

describe('tracing off', () => {
  test('with no OTEL_* variable, no SDK starts: the global tracer provider is the no-op one', async () => {
    expect(await startTracing()).toBeNull();
    expect(tracing()).toBeNull();
    const probe = trace.getTracer('probe').startSpan('probe');
    expect(probe.isRecording()).toBe(false);
    expect(trace.isSpanContextValid(probe.spanContext())).toBe(false);
    probe.end();
  });

  test('a request with a traceparent is served as before, its log lines without trace ids', async () => {
    const tenant = await testApp.createTenant();
    const answer = await apiFor(testApp, tenant.apiKey).post(routes.load, loadBody(tenant), {
      traceparent: newTraceparent().header,
      'x-request-id': 'untraced-1',
    });
    expect(answer.status).toBe(200);
    const written = lines.filter((line) => line.requestId === 'untraced-1');
    expect(written.length).toBeGreaterThan(0);
    for (const line of written) expect(line).not.toHaveProperty('trace_id');
  });
});
