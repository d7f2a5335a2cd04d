/**
 * HTTP server timeouts (src/main.ts) on the real server process: 500 idle connections and a client
 * sending its body one byte per second do not keep the service from answering others, and the slow
 * client is cut off by the request timeout. Asserts outcomes, never latencies.
 */
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { carrierBody, routes } from '../../factories/records.js';
import { targets } from '../cli/targets.js';
import { serveTenant } from './server-process.js';

const openSocket = (port: number) =>
  new Promise<Socket>((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => resolve(socket));
    socket.once('error', reject);
  });

describe.each(targets)('slow and idle clients on $name', { timeout: 240_000 }, ({ create }) => {
  let served: Awaited<ReturnType<typeof serveTenant>>;
  let base: string;
  let tenant: { slug: string; apiKey: string };
  beforeAll(async () => {
    served = await serveTenant(create, 'slow', {
      HTTP_HEADERS_TIMEOUT_MS: '3000',
      HTTP_REQUEST_TIMEOUT_MS: '5000',
      HTTP_KEEP_ALIVE_TIMEOUT_MS: '2000',
      // This test is about connections, not load: a busy CI machine must not shed its requests.
      OVERLOAD_EVENT_LOOP_LAG_MS: '0',
    });
    ({ base, tenant } = served);
  }, 180_000);
  afterAll(() => served?.close());

  test('500 idle connections and a 1 byte/s body: other clients are answered, the slow client is cut off', async () => {
    const port = Number(new URL(base).port);
    const idle: Socket[] = [];
    const slowBody = JSON.stringify(carrierBody(tenant));
    const slow = await openSocket(port);
    let slowAnswer = '';
    let bytesSent = 0;
    const slowClosed = new Promise<void>((resolve) => {
      slow.on('data', (chunk) => (slowAnswer += chunk.toString()));
      slow.on('close', () => resolve());
      slow.on('error', () => {});
    });
    try {
      for (let i = 0; i < 500; i++) {
        const socket = await openSocket(port);
        socket.on('error', () => {});
        socket.resume(); // read (and drop) what the server sends, so its close is seen
        idle.push(socket);
      }
      slow.write(
        `POST ${routes.carrier} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nX-API-Key: ${tenant.apiKey}\r\nContent-Length: ${Buffer.byteLength(slowBody)}\r\n\r\n`,
      );
      const dribble = setInterval(() => {
        if (slow.destroyed || bytesSent >= slowBody.length) return;
        slow.write(slowBody[bytesSent++]!);
      }, 1000);

      try {
        // Meanwhile other clients are served.
        for (let i = 0; i < 3; i++) {
          const posted = await fetch(`${base}${routes.carrier}`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-api-key': tenant.apiKey },
            body: JSON.stringify(carrierBody(tenant)),
          });
          expect(posted.status).toBe(200);
          expect((await fetch(`${base}/healthz`)).status).toBe(200);
        }
        await slowClosed;
      } finally {
        clearInterval(dribble);
      }
      // Cut off long before its body was complete (Node answers 408 when it can).
      expect(bytesSent).toBeLessThan(slowBody.length);
      if (slowAnswer) expect(slowAnswer).toMatch(/^HTTP\/1\.1 408/);
      // The idle connections were closed by the headers timeout too.
      await Promise.all(idle.filter((socket) => !socket.destroyed).map((socket) => new Promise((resolve) => socket.once('close', resolve))));
      expect(idle.every((socket) => socket.destroyed)).toBe(true);
      expect((await fetch(`${base}/healthz`)).status).toBe(200);
    } finally {
      for (const socket of idle) socket.destroy();
      slow.destroy();
    }
  });
});
