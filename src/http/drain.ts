/**
 * The HTTP side of a stop (SIGTERM, SIGINT): every request the server received gets a complete answer,
 * and no connection is closed in the middle of one.
 * - Once the I/O that arrived before the signal is taken in (connections in the listen backlog are
 *   accepted, bytes already received are read), the server stops listening (new connections are
 *   refused) and closes the keep-alive connections idle then (a client sending on one at that instant
 *   sees it closed, as with any keep-alive timeout, and sends again elsewhere).
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
    /** Wraps the server's request handler (see the module comment). */
    handler(handle: Handler): Handler {
      return (req, res) => {
        const started = performance.now();
        if (stopping) return refuse(req, res, started, 'shutting down');
        open.set(res, { req, started });
        res.once('close', () => open.delete(res));
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
      // The signal may be handled after a long synchronous stretch (a bulk's validation): connections
      // waiting in the listen backlog, and bytes waiting on accepted ones, are taken in by the rest of
      // this loop iteration's I/O first. Closing the listener at once resets the backlog's connections;
      // closing a connection whose request is unread resets it too.
      await new Promise<void>((resolve) => setImmediate(resolve));
      const closed = new Promise<void>((resolve) => target.close(() => resolve()));
      beforeWaiting();
      await new Promise<void>((resolve) => setImmediate(resolve));
      target.closeIdleConnections();
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<'timeout'>((resolve) => (timer = setTimeout(resolve, timeoutMs, 'timeout')));
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
