/**
 * HTTP over a real socket, for what only a real server shows: the app behind a Node server with the
 * service's answers to malformed requests (src/http/client-error.ts), and a raw keep-alive connection
 * that sends bytes as written and reads each answer as sent.
 */
import { createServer, type Server, type ServerOptions } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { onTestFinished } from 'vitest';
import { answerClientErrors } from '../../src/http/client-error.js';
import type { TestApp } from './app.js';

/** The app behind a real server on a free local port, with the service's answers to malformed requests. */
export async function serve(testApp: TestApp, options: ServerOptions = {}): Promise<{ server: Server; port: number }> {
  const server = createServer(options, (req, res) => void testApp.app(req, res));
  answerClientErrors(server, testApp.app.services.logger);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  onTestFinished(
    () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  );
  return { server, port: (server.address() as AddressInfo).port };
}

export interface RawAnswer {
  status: number;
  head: string;
  body: string;
}

/** A keep-alive connection that sends raw requests and reads their answers one by one (by Content-Length). */
export function rawConnection(port: number) {
  const socket: Socket = connect({ host: '127.0.0.1', port });
  let buffer = Buffer.alloc(0);
  let closed = false;
  let wake: (() => void) | undefined;
  socket.on('data', (chunk) => {
    buffer = Buffer.concat([buffer, chunk]);
    wake?.();
  });
  socket.on('close', () => {
    closed = true;
    wake?.();
  });
  const more = () => new Promise<void>((resolve) => (wake = resolve));

  /** The next answer on the connection; `bodyless` for a HEAD's (no body whatever its Content-Length). */
  async function next(bodyless = false): Promise<RawAnswer> {
    for (;;) {
      const end = buffer.indexOf('\r\n\r\n');
      if (end >= 0) {
        const head = buffer.subarray(0, end).toString('latin1');
        const length = bodyless ? 0 : Number(/^content-length: *(\d+)/im.exec(head)?.[1] ?? 0);
        if (buffer.length >= end + 4 + length) {
          const body = buffer.subarray(end + 4, end + 4 + length).toString('utf8');
          buffer = buffer.subarray(end + 4 + length);
          return { status: Number(head.split(' ')[1]), head, body };
        }
      }
      if (closed) throw new Error(`the connection closed before a whole answer: ${JSON.stringify(buffer.toString('latin1'))}`);
      await more();
    }
  }
  return {
    send: (request: string) => socket.write(Buffer.from(request, 'latin1')),
    next,
    /** Resolves once the server has closed the connection, with whatever it sent after the last answer read. */
    closed: async () => {
      while (!closed) await more();
      return buffer.toString('latin1');
    },
    destroy: () => {
      socket.destroy();
    },
  };
}

/** A raw keep-alive connection to the app behind a fresh server (both closed when the test ends). */
export async function connectTo(testApp: TestApp) {
  const { port } = await serve(testApp);
  const connection = rawConnection(port);
  onTestFinished(() => connection.destroy());
  return connection;
}
