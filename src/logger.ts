import { pino, type Logger } from 'pino';

export type { Logger };

/** The root JSON logger; request-scoped children carry the request id. */
export function createLogger(level: string): Logger {
  return pino({
    level,
    base: { service: 'tms-ingest' },
    redact: { paths: ['req.headers["x-api-key"]', 'apiKey'], censor: '[redacted]' },
  });
}
