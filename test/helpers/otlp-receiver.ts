/**
 * An OTLP/HTTP trace receiver on 127.0.0.1, as an OpenTelemetry Collector's port 4318 would be: it
 * answers every export 200 and keeps what was posted to /v1/traces. JSON exports
 * (`OTEL_EXPORTER_OTLP_PROTOCOL=http/json`) are read into spans; protobuf ones are kept as bytes.
 * `until(check)` resolves once `check` passes after an export arrives (no polling, no sleep).
 */
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One received span, its attributes as plain values. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** '' for a root span. */
  parentSpanId: string;
  name: string;
  /** 1 internal, 2 server, 3 client. */
  kind: number;
  attributes: Record<string, string | number | boolean>;
  status: { code?: number; message?: string };
  /** The resource's `service.name`. */
  service: string;
}

export interface OtlpExport {
  path: string;
  contentType: string;
  body: Buffer;
}

interface AnyValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: number | string;
  doubleValue?: number;
}
type KeyValues = { key: string; value: AnyValue }[] | undefined;

const plain = (value: AnyValue) => value.stringValue ?? value.boolValue ?? (value.intValue === undefined ? value.doubleValue! : Number(value.intValue));
const attributesOf = (list: KeyValues) => Object.fromEntries((list ?? []).map(({ key, value }) => [key, plain(value)]));

/** The spans of one OTLP/JSON ExportTraceServiceRequest. */
function spansOf(json: any): ReceivedSpan[] {
  return (json.resourceSpans ?? []).flatMap((resourceSpans: any) => {
    const service = String(attributesOf(resourceSpans.resource?.attributes)['service.name']);
    return (resourceSpans.scopeSpans ?? []).flatMap((scopeSpans: any) =>
      (scopeSpans.spans ?? []).map((span: any): ReceivedSpan => ({
        traceId: span.traceId,
        spanId: span.spanId,
        parentSpanId: span.parentSpanId ?? '',
        name: span.name,
        kind: span.kind,
        attributes: attributesOf(span.attributes),
        status: span.status ?? {},
        service,
      })),
    );
  });
}

export async function startOtlpReceiver() {
  const exports: OtlpExport[] = [];
  const spans: ReceivedSpan[] = [];
  const waiters = new Set<() => void>();
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const received = { path: req.url ?? '/', contentType: req.headers['content-type'] ?? '', body: Buffer.concat(chunks) };
      exports.push(received);
      if (received.contentType.startsWith('application/json')) spans.push(...spansOf(JSON.parse(received.body.toString('utf8'))));
      res.writeHead(200, { 'content-type': received.contentType }).end(received.contentType.startsWith('application/json') ? '{}' : '');
      for (const check of waiters) check();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    exports,
    spans,
    /** Resolves with `check`'s answer once it is truthy, checked now and after every export. */
    until<T>(check: () => T | undefined | false): Promise<T> {
      return new Promise((resolve) => {
        const attempt = () => {
          const found = check();
          if (!found) return;
          waiters.delete(attempt);
          resolve(found);
        };
        waiters.add(attempt);
        attempt();
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export type OtlpReceiver = Awaited<ReturnType<typeof startOtlpReceiver>>;

/** A new W3C `traceparent` (sampled) with its trace and parent span ids. */
export function newTraceparent() {
  const traceId = randomBytes(16).toString('hex');
  const parentSpanId = randomBytes(8).toString('hex');
  return { traceId, parentSpanId, header: `00-${traceId}-${parentSpanId}-01` };
}
