/**
 * The root JSON logger. Every line written while a request is handled, by any logger (ours, Yoga's,
 * a request-scoped child), carries that request's id: the id travels in AsyncLocalStorage
 * (`withRequestId`, entered once per request by http/request-id.ts) and a pino mixin adds it.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { pino, type DestinationStream, type Logger } from 'pino';
import { tracing } from './observability/tracing.js';

export type { Logger };

const requestContext = new AsyncLocalStorage<{ requestId: string }>();

/** Runs `fn` (and everything it starts) with `requestId` on every log line. */
export function withRequestId<T>(requestId: string, fn: () => T): T {
  return requestContext.run({ requestId }, fn);
}

/** The id of the request being handled, if any. */
const currentRequestId = (): string | undefined => requestContext.getStore()?.requestId;

/** The root logger; `destination` defaults to stdout (tests pass a stream to read the lines). */
export function createLogger(level: string, destination?: DestinationStream): Logger {
  const options = {
    level,
    base: { service: 'tms-ingest' },
    redact: { paths: ['req.headers["x-api-key"]', 'apiKey'], censor: '[redacted]' },
    mixin: () => {
      const requestId = currentRequestId();
      const trace = tracing()?.logFields();
      return requestId ? { requestId, ...trace } : { ...trace };
    },
  };
  return destination ? pino(options, destination) : pino(options);
}
