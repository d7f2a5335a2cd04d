/**
 * Every received request gets an answer on stop (issue 28): the real server with four 1,000-record bulk
 * requests in flight at SIGTERM. Each gets a complete HTTP answer, 200 or 503 with Retry-After, none a
 * closed connection; each answer has its `request` log line (by request id); every 200's records are
 * stored (read after the exit). With the default shutdown timeout the requests finish; with a timeout
 * shorter than their work they get the 503 instead of being cut (before: the timeout closed their
 * connections unanswered). A request pipelined behind one in flight arrives after the signal: 503 with
 * Retry-After and `Connection: close`.
 */
import { connect } from 'node:net';
import { afterEach, describe, expect, test } from 'vitest';
import { loadBody } from '../../factories/records.js';
import { targets } from '../cli/targets.js';
import { inFlightPost, serveTenant } from './server-process.js';

const bulkPath = '/api/v1/loads/bulk_upsert';

interface Outcome {
  requestId: string;
  permalinks: string[];
  status: number | 'cut';
  retryAfter?: string;
}

describe.each(targets)('a stop under load on $name', { timeout: 600_000 }, ({ create }) => {
  let close: (() => Promise<void>) | undefined;
  afterEach(() => close?.());

  test.each([
    { name: 'default shutdown timeout', timeout: '10000' },
    { name: 'a shutdown timeout shorter than the work (1 ms)', timeout: '1' },
  ])('four 1,000-record bulks in flight at SIGTERM, $name: each answered 200 or 503 with Retry-After, logged, the 200s stored', async ({ timeout }) => {
    const served = await serveTenant(create, 'stop', { SHUTDOWN_TIMEOUT_MS: timeout, LOG_LEVEL: 'info' });
    close = served.close;
    const { tenant, base, server } = served;
    const posts = await Promise.all(
      Array.from({ length: 4 }, async (_, i) => {
        const records = Array.from({ length: 1000 }, () => loadBody(tenant));
        const requestId = `stop-${i}-${Date.now()}`;
        const post = await inFlightPost(base, bulkPath, { 'x-api-key': tenant.apiKey, 'x-request-id': requestId });
        return { post, records, requestId };
      }),
    );
    const answers = posts.map(({ post, records }) =>
      post.send(JSON.stringify({ records })).then(
        (answer) => answer,
        () => null,
      ),
    );
    server.child.kill('SIGTERM');
    const outcomes: Outcome[] = await Promise.all(
      posts.map(async ({ records, requestId }, i) => {
        const answer = await answers[i]!;
        return {
          requestId,
          permalinks: records.map((record) => String(record.native_system_load_permalink)),
          status: answer ? answer.status : 'cut',
          retryAfter: answer?.headers['retry-after'],
        };
      }),
    );
    expect(await server.exited).toBe(0);
    for (const outcome of outcomes) {
      expect([200, 503]).toContain(outcome.status);
      if (outcome.status === 503) expect(outcome.retryAfter).toBe('1');
    }
    const lines = server
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { msg: string; requestId?: string; status?: number });
    for (const { requestId, status } of outcomes) {
      expect(lines).toContainEqual(expect.objectContaining({ msg: 'request', requestId, status }));
    }
    const stored = await served.target.withDatabase(async (db) => {
      const { id: tenantId } = await db.prisma.tenant.findUniqueOrThrow({ where: { slug: tenant.slug } });
      return Promise.all(outcomes.map(({ permalinks }) => db.prisma.load.count({ where: { tenantId, permalink: { in: permalinks } } })));
    });
    outcomes.forEach(({ status }, i) => {
      if (status === 200) expect(stored[i]).toBe(1000);
    });
  });

  test('a request pipelined behind one in flight gets 503 with Retry-After and Connection: close', async () => {
    // A shutdown timeout longer than any bulk on a loaded machine: the bulk in flight is answered (a
    // bulk cut at the default 10 s is answered 503 with Connection: close, and the pipelined request
    // behind it is never read).
    const served = await serveTenant(create, 'stop', { LOG_LEVEL: 'info', SHUTDOWN_TIMEOUT_MS: '300000' });
    close = served.close;
    const { tenant, base, server } = served;
    const { hostname, port } = new URL(base);
    const body = JSON.stringify({ records: Array.from({ length: 1000 }, () => loadBody(tenant)) });
    const socket = connect(Number(port), hostname);
    let received = '';
    socket.on('data', (chunk) => (received += chunk.toString()));
    const ended = new Promise<void>((resolve) => socket.on('close', () => resolve()));
    await new Promise((resolve) => socket.once('connect', resolve));
    // The bulk is provably in flight once the server answers 100 Continue; its body and the pipelined
    // GET follow, then the signal.
    socket.write(
      `POST ${bulkPath} HTTP/1.1\r\nHost: ${hostname}\r\nContent-Type: application/json\r\nX-API-Key: ${tenant.apiKey}\r\nExpect: 100-continue\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`,
    );
    await new Promise<void>((resolve) => {
      const check = () => (received.includes('100 Continue') ? resolve() : socket.once('data', check));
      check();
    });
    received = '';
    await new Promise((resolve) => socket.write(`${body}GET /api/v1/openapi.json HTTP/1.1\r\nHost: ${hostname}\r\nX-Request-Id: pipelined\r\n\r\n`, resolve));
    server.child.kill('SIGTERM');
    await ended;
    expect(await server.exited).toBe(0);
    const heads = [...received.matchAll(/HTTP\/1\.1 (\d{3})[^\r]*\r\n((?:[^\r]+\r\n)*)\r\n/g)].map(([, status, headers]) => ({
      status: Number(status),
      headers: headers!.toLowerCase(),
    }));
    expect(heads).toHaveLength(2);
    expect([200, 503]).toContain(heads[0]!.status);
    expect(heads[1]!.status).toBe(503);
    expect(heads[1]!.headers).toContain('retry-after: 1');
    expect(heads[1]!.headers).toContain('connection: close');
    expect(server.output()).toMatch(/"requestId":"pipelined".*"status":503.*"msg":"request"/);
  });
});
