/**
 * `npm run bench -- --otel`: an OTLP/HTTP receiver in the bench process that the service exports its
 * spans to. It reads and counts what arrives (exports, bytes) and answers 200, so the service pays for
 * making, batching, encoding and sending every span, and nothing waits on a real collector.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

export async function startOtlpSink() {
  const received = { exports: 0, bytes: 0 };
  const server = createServer((req, res) => {
    req.on('data', (chunk: Buffer) => (received.bytes += chunk.length));
    req.on('end', () => {
      received.exports++;
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    received,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
