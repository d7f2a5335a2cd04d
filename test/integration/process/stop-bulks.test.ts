/**
 * Issue 37, item 1: Ctrl-C with bulk requests in flight. Four 1,000-record bulk requests are sent at
 * once to `npm start`; the moment their connections are established and their bytes handed to the sockets, SIGINT goes to npm's process
 * group, while the server is busy with the first. Every request gets a complete answer (200, or 503
 * `unavailable` with `Retry-After`, never a connection reset) and its `request` log line, round after round.
 */
import { request } from 'node:http';
import { afterAll, beforeAll } from 'vitest';
import { describe, expect, test } from '../../fixtures.js';
import { migrate } from '../../../src/db/migrate.js';
import { createTenant } from '../../../src/domain/tenant/service.js';
import { loadBody } from '../../factories/records.js';
import { uniqueSlug } from '../../helpers/app.js';
import { targets, type Target } from '../cli/targets.js';
import { startServer } from './server-process.js';

const rounds = 3;
const bulkPath = '/api/v1/loads/bulk_upsert';

type Outcome = { id: string; status?: number; retryAfter?: string; body?: string; error?: string };

/** A POST whose answer (or transport error) is kept; `sent` resolves once its connection is established and its last byte handed to the socket. */
function post(base: string, apiKey: string, id: string, body: string) {
  const { hostname, port } = new URL(base);
  const req = request({
    host: hostname,
    port,
    method: 'POST',
    path: bulkPath,
    headers: { 'content-type': 'application/json', 'x-api-key': apiKey, 'x-request-id': id, 'content-length': Buffer.byteLength(body) },
  });
  const answer = new Promise<Outcome>((resolve) => {
    req.on('response', (res) => {
      let text = '';
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => resolve({ id, status: res.statusCode, retryAfter: res.headers['retry-after'], body: text }));
      res.on('error', (error) => resolve({ id, error: error.message }));
    });
    req.on('error', (error) => resolve({ id, error: `${(error as NodeJS.ErrnoException).code ?? ''} ${error.message}` }));
  });
  const connected = new Promise<void>((resolve) => req.once('socket', (socket) => socket.once('connect', () => resolve())));
  const written = new Promise<void>((resolve) => req.end(body, () => resolve()));
  const sent = Promise.all([connected, written]);
  return { answer, sent };
}

describe.each(targets)('Ctrl-C with four 1,000-record bulks in flight on $name', { timeout: 600_000 }, ({ create }) => {
  let target: Target;
  beforeAll(async () => {
    target = await create();
    await target.withDatabase((db) => migrate(db.adapterFactory));
  });
  afterAll(() => target.cleanup());

  test(`every request is answered completely and logged, ${rounds} rounds`, async () => {
    const { tenant, apiKey } = await target.withDatabase((db) => createTenant(db, { slug: uniqueSlug('stop'), name: 'Stop test' }));
    for (let round = 0; round < rounds; round++) {
      const server = startServer(target.env, [], { viaNpm: true });
      try {
        const base = await server.started();
        const posts = Array.from({ length: 4 }, (_, n) =>
          post(base, apiKey, `stop-${round}-${n}`, JSON.stringify({ records: Array.from({ length: 1000 }, () => loadBody(tenant)) })),
        );
        await Promise.all(posts.map((p) => p.sent));
        process.kill(-server.child.pid!, 'SIGINT');
        const outcomes = await Promise.all(posts.map((p) => p.answer));
        for (const outcome of outcomes) {
          expect(outcome.error, `round ${round} ${outcome.id}`).toBeUndefined();
          if (outcome.status === 200) expect(JSON.parse(outcome.body!).results).toHaveLength(1000);
          else {
            expect(outcome.status, `round ${round} ${outcome.id}`).toBe(503);
            expect(outcome.retryAfter).toBe('1');
            expect(JSON.parse(outcome.body!).error.code).toBe('unavailable');
          }
        }
        expect(await server.exited).toBe(0);
        const logged = server
          .output()
          .split('\n')
          .filter((line) => line.includes('"msg":"request"') && line.includes(bulkPath))
          .map((line) => JSON.parse(line) as { requestId: string; status: number });
        // Each answer has its line (a request answered 503 at the shutdown timeout also logs the handler's own end).
        for (const outcome of outcomes) expect(logged, outcome.id).toContainEqual(expect.objectContaining({ requestId: outcome.id, status: outcome.status }));
      } finally {
        if (server.child.exitCode === null) process.kill(-server.child.pid!, 'SIGKILL');
      }
    }
  });
});
