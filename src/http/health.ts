import type { Plugin } from 'graphql-yoga';
import type { Database } from '../db/database.js';
import { json } from './respond.js';

/**
 * GET /readyz: 200 when the database answers, else 503 `unavailable` with Retry-After. The body never
 * carries the error text (Yoga's own readiness plugin would echo it).
 */
export function useReadiness(db: Database): Plugin {
  return {
    onRequest({ url, endResponse }) {
      if (url.pathname !== '/readyz') return;
      return db.sql.query('SELECT 1', []).then(
        () => endResponse(json(200, { status: 'ready' })),
        () => endResponse(json(503, { error: { code: 'unavailable', message: 'The database is unreachable.' } }, { 'Retry-After': '5' })),
      );
    },
  };
}
