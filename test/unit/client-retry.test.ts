/**
 * The client's retry rules (src/client/retry.ts, issue 41 item 1), over real sockets: a node:http server
 * that answers each attempt as a script says, so each rule is seen from the client's side. What is resent:
 * 429 and 503 after `Retry-After`, 502/504, a timeout, a dropped connection; a 500 twice at most; never any
 * other 4xx. The service itself is exercised by test/integration/process/push.test.ts (pacing, a restart).
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, expect, test } from 'vitest';
import { createClient, IngestApiError, IngestConnectionError } from '../../src/client/index.js';
import { backoffMs, defaultRetryPolicy, retryAfterMs } from '../../src/client/retry.js';

type Step = (req: IncomingMessage, res: ServerResponse) => void;

const ok: Step = (_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(JSON.stringify({ status: 'processed', message: 'Carrier C1-acme processed (created).', permalink: 'C1-acme', unknown_fields: [], suggestions: [] }));
};
const status =
  (code: number, headers: Record<string, string> = {}): Step =>
  (_req, res) => {
    res.writeHead(code, { 'content-type': 'application/json', ...headers });
    res.end(JSON.stringify({ error: { code: `http_${code}`, message: `answered ${code}` } }));
  };
/** No answer at all: the request is held open until the server closes. */
const silent: Step = () => {};
/** The connection dropped before any answer. */
const reset: Step = (req) => req.socket.destroy();

const servers: { close(): void }[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) server.close();
});

/** A server answering attempt n with `steps[n]` (the last step repeats); resolves to its URL and its attempt count. */
async function scripted(steps: Step[]) {
  let attempts = 0;
  const server = createServer((req, res) => {
    const step = steps[Math.min(attempts++, steps.length - 1)]!;
    req.resume();
    req.on('end', () => step(req, res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  servers.push({
    close() {
      server.close();
      server.closeAllConnections();
    },
  });
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, attempts: () => attempts };
}

/** A client with short delays and no pacing (the rules, not the waits, are under test). */
const clientOf = (url: string, retry: Partial<typeof defaultRetryPolicy> = {}) =>
  createClient({ url, apiKey: 'tms_test', pacing: false, retry: { baseDelayMs: 1, maxDelayMs: 5, timeoutMs: 2_000, ...retry } });

const carrier = { native_system_carrier_permalink: 'C1-acme', native_system_carrier_id: 'C1', carrier_name: 'Acme Freight' };

test('a request without an answer within timeoutMs is sent again, and counted as a timeout', async () => {
  // Long enough for the second answer on a machine loaded by other work (200 ms was not, under a full suite).
  const server = await scripted([silent, ok]);
  const client = clientOf(server.url, { timeoutMs: 1500 });
  await expect(client.upsert('carrier', carrier)).resolves.toMatchObject({ status: 'processed' });
  expect(server.attempts()).toBe(2);
  expect(client.stats().retries.timeout).toBe(1);
});

test('a dropped connection, a 502 and a 504 are sent again (connection)', async () => {
  const server = await scripted([reset, status(502), status(504), ok]);
  const client = clientOf(server.url);
  await expect(client.upsert('carrier', carrier)).resolves.toMatchObject({ status: 'processed' });
  expect(server.attempts()).toBe(4);
  expect(client.stats().retries.connection).toBe(3);
});

test('429 and 503 are sent again after their Retry-After', async () => {
  const server = await scripted([status(429, { 'retry-after': '0' }), status(503, { 'retry-after': '0' }), ok]);
  const client = clientOf(server.url);
  await expect(client.upsert('carrier', carrier)).resolves.toMatchObject({ status: 'processed' });
  expect(client.stats().retries).toMatchObject({ rate_limited: 1, unavailable: 1 });
});

test('a 500 is sent again twice at most, then its error is thrown', async () => {
  const server = await scripted([status(500)]);
  const client = clientOf(server.url);
  const error = await client.upsert('carrier', carrier).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(IngestApiError);
  expect((error as IngestApiError).status).toBe(500);
  expect(server.attempts()).toBe(3);
});

test('a 4xx other than 429 is never sent again: a retry cannot fix the request', async () => {
  for (const code of [400, 401, 404, 409, 413, 422]) {
    const server = await scripted([status(code), ok]);
    const error = await clientOf(server.url)
      .upsert('carrier', carrier)
      .catch((e: unknown) => e);
    expect((error as IngestApiError).status, `HTTP ${code}`).toBe(code);
    expect(server.attempts(), `HTTP ${code}`).toBe(1);
  }
});

test('patienceMs 0 sends every request once; a refused connection is then an IngestConnectionError', async () => {
  const server = await scripted([status(503, { 'retry-after': '0' }), ok]);
  await expect(clientOf(server.url, { patienceMs: 0 }).upsert('carrier', carrier)).rejects.toBeInstanceOf(IngestApiError);
  expect(server.attempts()).toBe(1);
  const closed = await scripted([ok]);
  servers.pop()!.close();
  await expect(clientOf(closed.url, { patienceMs: 0 }).upsert('carrier', carrier)).rejects.toBeInstanceOf(IngestConnectionError);
});

test('backoff doubles from baseDelayMs up to maxDelayMs, drawn at random below it (full jitter)', () => {
  const policy = { ...defaultRetryPolicy, baseDelayMs: 250, maxDelayMs: 10_000 };
  const top = () => 1;
  expect([0, 1, 2, 3, 5, 6, 20].map((attempt) => backoffMs(policy, attempt, top))).toEqual([250, 500, 1000, 2000, 8000, 10_000, 10_000]);
  expect(backoffMs(policy, 3, () => 0.5)).toBe(1000);
  expect(backoffMs(policy, 3, () => 0)).toBe(0);
});

test('Retry-After in seconds or as an HTTP date; absent or unreadable: none', () => {
  const now = Date.parse('2026-12-02T12:00:00Z');
  expect(retryAfterMs(new Headers({ 'retry-after': '3' }), now)).toBe(3000);
  expect(retryAfterMs(new Headers({ 'retry-after': 'Wed, 02 Dec 2026 12:00:05 GMT' }), now)).toBe(5000);
  expect(retryAfterMs(new Headers(), now)).toBeUndefined();
  expect(retryAfterMs(new Headers({ 'retry-after': 'soon' }), now)).toBeUndefined();
});
