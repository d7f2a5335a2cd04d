/**
 * The HTTP side of a stop (SIGTERM, SIGINT): every request the server received gets a complete answer,
 * and no connection is closed in the middle of one.
 * - Once the bytes already received are read, the keep-alive connections idle between two requests
 *   are closed (a client sending on one at that instant sees it closed, as with any keep-alive
 *   timeout, and sends again elsewhere). The server keeps listening until the requests in flight are
 *   answered and every accepted connection's first request is read (connections waiting in the listen
 *   backlog were reset when it stopped at once), then stops listening.
 * - Requests already received (being read or processed) finish and are answered as usual.
 * - A request read after the signal (sent before it while the event loop was busy, pipelined behind one
 *   in flight, or the client's next on a connection kept alive) gets 503 `unavailable` with
 *   `Retry-After: 1` and `Connection: close`, without being processed; its body is read first, so the
 *   connection closes without a reset. Those connections are not closed under a client about to send on them: they close
 *   with that 503, at the keep-alive timeout (`HTTP_KEEP_ALIVE_TIMEOUT_MS`) or at the shutdown timeout.
 * - At the shutdown timeout, requests still without an answer get that 503 (their writes may still
 *   commit: everything the API writes is idempotent, so sending it again is safe), then the remaining
 *   connections are closed.
 * Each of these 503s is logged with a `request` line, as every answer is.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { Server as NetServer, type Socket } from 'node:net';
import { AppError } from '../errors.js';
import type { Logger } from '../logger.js';
import { requestIdFrom } from './request-id.js';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

const stoppingError = new AppError('unavailable', 'The service is shutting down; retry shortly (another instance, or this one once restarted).', undefined, {
  'Retry-After': '1',
});

export function createDrain(logger: Logger) {
  let stopping = false;
  /** Requests received and not yet answered, with when they arrived. */
  const open = new Map<ServerResponse, { req: IncomingMessage; started: number }>();
  /**
   * Each connection's state: `fresh` until its first request is read (its bytes may be waiting, unread),
   * `busy` while a request is answered, `idle` between requests (kept alive).
   */
  const connections = new Map<Socket, 'fresh' | 'busy' | 'idle'>();
  /** Called when the last received request has been answered (while a stop waits for it). */
  let allAnswered = () => {};
  /** No received request unanswered, no connection whose first request is still to be read. */
  const settled = () => open.size === 0 && ![...connections.values()].includes('fresh');
  /** Resolves once `settled`. */
  const answered = () => (settled() ? Promise.resolve() : new Promise<void>((resolve) => (allAnswered = resolve)));

  /**
   * Answers `res` with the shutdown's 503 (when nothing was sent yet) and logs it. A body not read yet
   * (a bulk request that arrived while the event loop was busy) is read to its end first: closing a
   * connection with unread bytes in its receive buffer makes TCP send a reset, which the client sees
   * instead of the answer (issue 37: connection resets at Ctrl-C with bulk requests in flight).
   */
  function refuse(req: IncomingMessage, res: ServerResponse, started: number, reason: string): void {
    if (res.headersSent) return;
    if (!req.complete && !req.destroyed) {
      req.once('end', () => refuse(req, res, started, reason));
      req.resume();
      return;
    }
    const body = JSON.stringify(stoppingError.toBody());
    const incoming = req.headers['x-request-id'];
    const requestId = requestIdFrom(typeof incoming === 'string' ? incoming : null);
    res.writeHead(stoppingError.status, {
      ...stoppingError.headers,
      'X-Request-Id': requestId,
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Length': Buffer.byteLength(body),
      Connection: 'close',
    });
    res.end(body);
    logger.info(
      { requestId, method: req.method, path: req.url?.split('?')[0], status: stoppingError.status, ms: Math.round(performance.now() - started), reason },
      'request',
    );
  }

  return {
    /** Follows the server's connections (call once, before it listens). */
    track(target: Server): void {
      target.on('connection', (socket: Socket) => {
        connections.set(socket, 'fresh');
        socket.once('close', () => {
          connections.delete(socket);
          if (settled()) allAnswered();
        });
      });
    },

    /** Wraps the server's request handler (see the module comment). */
    handler(handle: Handler): Handler {
      return (req, res) => {
        const started = performance.now();
        const { socket } = req;
        connections.set(socket, 'busy');
        res.once('finish', () => connections.has(socket) && connections.set(socket, 'idle'));
        if (stopping) return refuse(req, res, started, 'shutting down');
        open.set(res, { req, started });
        res.once('close', () => {
          open.delete(res);
          if (settled()) allAnswered();
        });
        handle(req, res);
      };
    },

    /**
     * Stops listening and waits until every received request is answered and every connection closed;
     * after `timeoutMs` answers the requests left with 503 and closes what remains.
     * `beforeWaiting` runs once listening has stopped (main.ts ends the SSE subscriptions there).
     */
    async stop(target: Server, timeoutMs: number, beforeWaiting: () => void): Promise<void> {
      stopping = true;
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<'timeout'>((resolve) => (timer = setTimeout(resolve, timeoutMs, 'timeout')));
      beforeWaiting();
      // The signal may be handled after a long synchronous stretch (a bulk's validation): bytes waiting
      // on accepted connections are read by the rest of this loop iteration's I/O first (closing a
      // connection whose request is unread resets it). Then only the connections kept alive between two
      // requests are closed; a fresh one is answered its request's 503 (Connection: close) once read.
      await new Promise<void>((resolve) => setImmediate(resolve));
      for (const [socket, state] of connections) if (state === 'idle') socket.destroy();
      // The server listens until the requests in flight are answered and every accepted connection's
      // first request is read (or the connection closed by the headers timeout): connections that were waiting in
      // the listen backlog meanwhile (the loop was busy) are accepted and answered 503, where closing
      // the listener at once reset them. Then it stops listening, without http.Server#close's closing
      // of every connection without a request in progress (those just accepted, their requests unread).
      await Promise.race([answered(), timedOut]);
      await new Promise<void>((resolve) => setImmediate(resolve));
      const closed = new Promise<void>((resolve) => NetServer.prototype.close.call(target, () => resolve()));
      if ((await Promise.race([closed, timedOut])) === 'timeout') {
        logger.warn({ unanswered: open.size }, 'shutdown timeout: answering the requests left with 503, closing the remaining connections');
        const refused = [...open].map(([res, { req, started }]) => {
          refuse(req, res, started, 'shutdown timeout');
          return new Promise((resolve) => res.once('close', resolve));
        });
        // Once the 503s are sent (Connection: close ends their connections); an answer already under
        // way, or a client that does not read, is cut off within a second.
        await Promise.race([Promise.all(refused), new Promise((resolve) => setTimeout(resolve, 1000).unref())]);
        target.closeAllConnections();
        await closed;
      }
      clearTimeout(timer);
    },
  };
}
