/**
 * Requests Node's HTTP parser refuses before the app runs (a control byte in a header, a malformed
 * request line, a bad chunk): answered in the contract's JSON error shape, as every other answer,
 * then the connection is closed (the parser cannot find the next request on it). Timeouts and
 * oversized headers keep Node's own answers (408, 431). Whether to answer is decided per request: a
 * keep-alive connection whose earlier requests were answered gets the answer too; one whose
 * response is still being made or sent is just closed (an answer now would interleave with it), as
 * is a connection already gone.
 */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import { AppError } from '../errors.js';
import type { Logger } from '../logger.js';

/** Node's own answers, kept for the failures that are not about a malformed request. */
const nodeAnswers: Record<string, string> = {
  HPE_HEADER_OVERFLOW: 'HTTP/1.1 431 Request Header Fields Too Large\r\nConnection: close\r\n\r\n',
  HPE_CHUNK_EXTENSIONS_OVERFLOW: 'HTTP/1.1 413 Payload Too Large\r\nConnection: close\r\n\r\n',
  ERR_HTTP_REQUEST_TIMEOUT: 'HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n',
};

/** The raw HTTP answer to a request the parser refused: 400 `validation_failed` as JSON, with a request id. */
function malformedRequestAnswer(requestId: string): string {
  const body = JSON.stringify(
    new AppError(
      'validation_failed',
      'The request is not valid HTTP/1.1 (for example a control character in a header value or name); it was not processed and the connection is closed.',
    ).toBody(),
  );
  return [
    'HTTP/1.1 400 Bad Request',
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    `X-Request-Id: ${requestId}`,
    'Connection: close',
    '',
    body,
  ].join('\r\n');
}

/** Answers the server's `clientError`s (see the module comment). */
export function answerClientErrors(server: Server, logger: Pick<Logger, 'info'>) {
  // The response of each connection's current request, until it has been sent.
  const unfinished = new WeakMap<Duplex, ServerResponse>();
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const { socket } = request;
    unfinished.set(socket, response);
    const done = () => {
      if (unfinished.get(socket) === response) unfinished.delete(socket);
    };
    response.once('finish', done).once('close', done);
  });
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Duplex) => {
    const code = error.code ?? '';
    if (!socket.writable || unfinished.has(socket) || code === 'ECONNRESET') {
      socket.destroy();
      return;
    }
    const requestId = randomUUID();
    const answer = nodeAnswers[code] ?? malformedRequestAnswer(requestId);
    if (!nodeAnswers[code]) logger.info({ requestId, code }, 'malformed HTTP request refused');
    socket.end(answer, () => socket.destroy());
  });
}
