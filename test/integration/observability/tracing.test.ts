/**
 * OpenTelemetry traces in-process (decision 0027): with the standard OTEL_* variables pointing at an
 * OTLP/HTTP receiver (JSON encoding, so the spans can be read), a REST write and a GraphQL query each
 * export one trace whose spans link up (HTTP request → ingestion or GraphQL operation → database
 * statements), an incoming W3C `traceparent` is the request span's parent, a webhook attempt sends the
 * `traceparent` of its own span, and the request's log lines carry its trace and span ids.
 * On the embedded database and, with DATABASE_URL, on PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, test, vi } from 'vitest';
import { startTracing, stopTracing } from '../../../src/observability/tracing.js';
import { loadBody, routes } from '../../factories/records.js';
import { apiFor, createTestApp, type Api, type TestApp, type TestTenant } from '../../helpers/app.js';
import { newTraceparent, startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from '../../helpers/otlp-receiver.js';
import { startReceiver, type WebhookReceiver } from '../../helpers/webhook-receiver.js';
import { createEndpoint, webhookEnv } from '../webhooks/setup.js';

const server = 2;
const client = 3;

let otlp: OtlpReceiver;
let testApp: TestApp;
let tenant: TestTenant;
let api: Api;
const lines: Record<string, any>[] = [];

beforeAll(async () => {
  otlp = await startOtlpReceiver();
  vi.stubEnv('OTEL_EXPORTER_OTLP_TRACES_ENDPOINT', `${otlp.url}/v1/traces`);
  vi.stubEnv('OTEL_EXPORTER_OTLP_PROTOCOL', 'http/json');
  vi.stubEnv('OTEL_SERVICE_NAME', 'tms-ingest-under-test');
  // Exported within 20 ms of ending: the test waits for the receiver, not for the batch's default 5 s.
  vi.stubEnv('OTEL_BSP_SCHEDULE_DELAY', '20');
  expect(await startTracing()).not.toBeNull();
  // The database opens after tracing starts, as in main.ts.
  testApp = await createTestApp({
    env: { ...webhookEnv, LOG_LEVEL: 'info' },
    logStream: { write: (line: string) => void lines.push(JSON.parse(line)) },
  });
  tenant = await testApp.createTenant();
  api = apiFor(testApp, tenant.apiKey);
});

afterAll(async () => {
  await testApp.close();
  await stopTracing();
  await otlp.close();
  vi.unstubAllEnvs();
});

/** The spans of one trace once its root (`name`, received last: it ends last) has arrived. */
async function traceOf(traceId: (span: ReceivedSpan) => boolean, name: string) {
  const root = await otlp.until(() => otlp.spans.find((span) => span.name === name && traceId(span)));
  const spans = otlp.spans.filter((span) => span.traceId === root.traceId);
  const childrenOf = (parent: ReceivedSpan) => spans.filter((span) => span.parentSpanId === parent.spanId);
  return { root, spans, childrenOf };
}

const statementsIn = (spans: ReceivedSpan[]) => spans.filter((span) => span.kind === client && span.attributes['db.system'] === 'postgresql');
const engine = process.env.DATABASE_URL ? 'pg' : 'pglite';

describe('OpenTelemetry traces', () => {
  test('a REST bulk write: request span (child of the incoming traceparent) → ingestion span → its statements, one trace', async () => {
    const incoming = newTraceparent();
    const loads = [loadBody(tenant), loadBody(tenant)];
    const answer = await api.post('/api/v1/loads/bulk_upsert', { records: loads }, { traceparent: incoming.header });
    expect(answer.status).toBe(200);

    const { root, spans, childrenOf } = await traceOf((span) => span.traceId === incoming.traceId, 'POST /api/v1/loads/bulk_upsert');
    expect(root).toMatchObject({
      kind: server,
      parentSpanId: incoming.parentSpanId,
      service: 'tms-ingest-under-test',
      attributes: { 'http.request.method': 'POST', 'http.route': '/api/v1/loads/bulk_upsert', 'http.response.status_code': 200 },
    });
    const ingestion = childrenOf(root).filter((span) => span.name === 'ingest load upsert');
    expect(ingestion).toHaveLength(1);
    expect(ingestion[0]!.attributes).toMatchObject({
      'tms.ingest.kind': 'load',
      'tms.ingest.action': 'upsert',
      'tms.ingest.records': 2,
      'tms.ingest.processed': 2,
      'tms.ingest.rejected': 0,
      'tms.ingest.dry_run': false,
      'tms.ingest.source': 'unspecified',
      'tms.tenant': tenant.slug,
    });
    // The upsert is the ingestion's statement; the API key's lookup is the request's own.
    const written = statementsIn(childrenOf(ingestion[0]!));
    expect(written.map((span) => span.attributes['db.statement'])).toContainEqual(expect.stringContaining('INSERT INTO "loads"'));
    expect(written[0]!.attributes).toMatchObject({ 'tms.db.engine': engine, 'db.operation': expect.any(String) });
    expect(statementsIn(childrenOf(root)).length).toBeGreaterThan(0);
    // Statements carry parameters, never the records' values.
    for (const span of statementsIn(spans)) {
      for (const load of loads) {
        expect(span.attributes['db.statement']).not.toContain(load.native_system_load_permalink);
        expect(span.attributes['db.statement']).not.toContain(load.bol_number);
      }
    }
    // Every span of the request descends from its request span.
    const byId = new Map(spans.map((span) => [span.spanId, span]));
    const descends = (span: ReceivedSpan | undefined): boolean => span === root || (span !== undefined && descends(byId.get(span.parentSpanId)));
    for (const span of spans) expect(descends(span), span.name).toBe(true);

    // The request's log lines carry its trace and the span they were written in.
    const access = lines.find((line) => line.msg === 'request' && line.path === '/api/v1/loads/bulk_upsert' && line.trace_id === incoming.traceId);
    expect(access).toMatchObject({ trace_id: incoming.traceId, span_id: root.spanId, trace_flags: '01' });
  });

  test('a GraphQL query: request span → `query LoadBoard` operation span → its statements, in a trace of its own', async () => {
    await api.post(routes.load, loadBody(tenant));
    const answer = await api.graphql('query LoadBoard { loads(first: 5) { edges { node { permalink } } } }', undefined, { 'x-request-id': 'board-1' });
    expect(answer.body.errors).toBeUndefined();

    const access = lines.find((line) => line.msg === 'request' && line.requestId === 'board-1');
    expect(access?.trace_id).toMatch(/^[0-9a-f]{32}$/);
    const { root, childrenOf } = await traceOf((span) => span.traceId === access!.trace_id, 'POST /graphql');
    expect(root).toMatchObject({ kind: server, parentSpanId: '', attributes: { 'http.route': '/graphql', 'http.response.status_code': 200 } });
    const operation = childrenOf(root).find((span) => span.name === 'query LoadBoard');
    expect(operation?.attributes).toMatchObject({ 'graphql.operation.type': 'query', 'graphql.operation.name': 'LoadBoard' });
    const statements = statementsIn(childrenOf(operation!));
    expect(statements.length).toBeGreaterThan(0);
    expect(statements.every((span) => span.attributes['tms.db.engine'] === engine)).toBe(true);
  });

  test('a webhook attempt is a client span whose traceparent the receiver gets', async () => {
    const receiver: WebhookReceiver = await startReceiver();
    try {
      await createEndpoint(api, `${receiver.url}/hooks`, ['load.created']);
      await api.post(routes.load, loadBody(tenant));
      await testApp.app.webhooks.drain();
      expect(receiver.received).toHaveLength(1);
      const [hook] = receiver.received;
      const [, traceId, spanId, flags] = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/.exec(String(hook!.headers.traceparent)) ?? [];
      expect(flags).toBe('01');
      const attempt = await otlp.until(() => otlp.spans.find((span) => span.spanId === spanId));
      expect(attempt).toMatchObject({
        traceId,
        kind: client,
        name: 'POST',
        attributes: {
          'http.request.method': 'POST',
          'http.response.status_code': 204,
          'url.full': `${receiver.url}/hooks`,
          'tms.webhook.id': hook!.webhookHeaders['webhook-id'],
        },
      });
    } finally {
      await receiver.close();
    }
  });
});
