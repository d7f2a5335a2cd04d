/**
 * Traces from the compiled server (`npm start`'s dist/main.js, where most packages are bundled:
 * decision 0020), exported as protobuf, OTLP's default, to an OTLP/HTTP receiver; and what that build
 * loads when tracing is off (decision 0027).
 */
import { readFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { describe, expect, test } from '../../fixtures.js';
import { loadBody } from '../../factories/records.js';
import { newTraceparent, startOtlpReceiver } from '../../helpers/otlp-receiver.js';
import { repoRoot, targets } from '../cli/targets.js';
import { serveTenant } from '../process/server-process.js';

describe.each(targets)('traces from the compiled server ($name)', { timeout: 240_000 }, ({ create }) => {
  test("a REST write and a GraphQL query reach the OTLP receiver as protobuf, under the callers' traceparents; log lines carry the trace", async () => {
    const otlp = await startOtlpReceiver();
    const { tenant, server, base, close } = await serveTenant(create, 'otel', {
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
      OTEL_SERVICE_NAME: 'tms-ingest-compiled',
      OTEL_BSP_SCHEDULE_DELAY: '50',
    });
    try {
      const write = newTraceparent();
      const query = newTraceparent();
      const headers = { 'content-type': 'application/json', 'x-api-key': tenant.apiKey };
      const posted = await fetch(`${base}/api/v1/loads/bulk_upsert`, {
        method: 'POST',
        headers: { ...headers, traceparent: write.header },
        body: JSON.stringify({ records: [loadBody(tenant)] }),
      });
      expect(posted.status).toBe(200);
      const board = await fetch(`${base}/graphql`, {
        method: 'POST',
        headers: { ...headers, traceparent: query.header },
        body: JSON.stringify({ query: 'query LoadBoard { loads(first: 5) { edges { node { permalink } } } }' }),
      });
      expect((await board.json()).errors).toBeUndefined();

      // The exports hold both callers' trace ids and parent span ids (bytes in protobuf) and the spans' names.
      const expected = [
        Buffer.from(write.traceId, 'hex'),
        Buffer.from(write.parentSpanId, 'hex'),
        Buffer.from(query.traceId, 'hex'),
        Buffer.from(query.parentSpanId, 'hex'),
        ...['POST /api/v1/loads/bulk_upsert', 'ingest load upsert', 'INSERT', 'POST /graphql', 'query LoadBoard', 'tms-ingest-compiled'].map((name) =>
          Buffer.from(name),
        ),
      ];
      await otlp.until(() => {
        const all = Buffer.concat(otlp.exports.map((received) => received.body));
        return expected.every((bytes) => all.includes(bytes));
      });
      for (const received of otlp.exports) expect(received).toMatchObject({ path: '/v1/traces', contentType: 'application/x-protobuf' });

      const access = await server.waitFor(new RegExp(`^\\{.*"trace_id":"${write.traceId}".*"msg":"request".*$`, 'm'));
      expect(JSON.parse(access[0])).toMatchObject({
        path: '/api/v1/loads/bulk_upsert',
        status: 200,
        trace_id: write.traceId,
        span_id: expect.stringMatching(/^[0-9a-f]{16}$/),
      });
    } finally {
      await close();
      await otlp.close();
    }
  });
});

/** The modules a bundle file imports statically (`import … from "x"`, `import "x"`) and dynamically (`import("x")`). */
function importsOf(file: string) {
  const source = readFileSync(file, 'utf8');
  return {
    static: [...source.matchAll(/^import\s(?:[^;"']*?\sfrom\s*)?["']([^"']+)["']/gm)].map((match) => match[1]!),
    dynamic: [...source.matchAll(/\bimport\(\s*["']([^"']+)["']\s*\)/g)].map((match) => match[1]!),
  };
}

describe('the compiled server with tracing off', () => {
  test('loads no OpenTelemetry module: only a chunk main.js imports dynamically reaches the SDK', () => {
    const start = join(repoRoot, 'dist/main.js');
    const loaded = new Set<string>();
    const packages = new Set<string>();
    const dynamic = new Set<string>();
    const visit = (file: string) => {
      if (loaded.has(file)) return;
      loaded.add(file);
      const imports = importsOf(file);
      for (const specifier of imports.dynamic) if (specifier.startsWith('.')) dynamic.add(join(dirname(file), specifier));
      for (const specifier of imports.static) {
        if (specifier.startsWith('.')) visit(join(dirname(file), specifier));
        else packages.add(specifier);
      }
    };
    visit(start);
    expect(loaded.size).toBeGreaterThan(1);
    expect(packages).toContain('pino');
    expect([...packages].filter((name) => name.startsWith('@opentelemetry/'))).toEqual([]);
    // The SDK is there, behind a dynamic import.
    expect([...dynamic].some((file) => importsOf(file).static.includes('@opentelemetry/sdk-trace-node'))).toBe(true);
  });
});
