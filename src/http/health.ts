import type { Plugin } from 'graphql-yoga';
import type { Database } from '../db/database.js';
import { HttpResponse, json } from './respond.js';

/** How long `/readyz` waits for the start-up work before answering that the service is still starting. */
const startupWaitMs = 5000;

/**
 * The start-up work readiness waits for: what the process does on its own once it listens (main.ts
 * hands it over: the start-up message's queries, the first payload-history maintenance pass). An app
 * built in a test has none.
 */
export function createStartup() {
  const pending = new Set<Promise<unknown>>();
  return {
    /** Readiness waits until `work` has settled (its failure is reported by whoever started it). */
    wait(work: Promise<unknown>) {
      const settled: Promise<unknown> = work.then(
        () => pending.delete(settled),
        () => pending.delete(settled),
      );
      pending.add(settled);
    },
    /** Resolves true once no start-up work is left, false after `ms` if some still is. */
    async done(ms: number): Promise<boolean> {
      if (pending.size === 0) return true;
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<false>((resolve) => (timer = setTimeout(resolve, ms, false)));
      const finished = (async () => {
        while (pending.size > 0) await Promise.all(pending);
        return true;
      })();
      try {
        return await Promise.race([finished, late]);
      } finally {
        clearTimeout(timer);
      }
    },
  };
}

export type Startup = ReturnType<typeof createStartup>;

/**
 * GET /healthz: 200 with an empty body while the process serves HTTP (liveness: nothing else is asked).
 * GET /readyz: 200 once the start-up work is done and the database answers, so what the service does
 * after a 200 is serving: the start-up's own work (the first queries load Prisma's query compiler, the
 * partitions are created) neither competes with the first requests nor counts as their load. It waits
 * for that work up to `startupWaitMs`, then answers 503 `unavailable` with Retry-After: 1; a database
 * that does not answer: 503 with Retry-After: 5. The body never carries the error text (Yoga's own
 * readiness plugin would echo it). Both are reached by GET only (methods.ts answers the other methods;
 * Yoga's own health check, which answers any method on any path ending in its endpoint, is off).
 */
export function useHealth(db: Database, startup: Startup): Plugin {
  const unavailable = (message: string, retryAfter: number) => json(503, { error: { code: 'unavailable', message } }, { 'Retry-After': String(retryAfter) });
  return {
    onRequest({ url, endResponse }) {
      if (url.pathname === '/healthz') return endResponse(new HttpResponse(null, { status: 200 }));
      if (url.pathname !== '/readyz') return;
      return startup.done(startupWaitMs).then(async (started) => {
        if (!started) return endResponse(unavailable('The service is still starting.', 1));
        await db.sql.query('SELECT 1', []).then(
          () => endResponse(json(200, { status: 'ready' })),
          () => endResponse(unavailable('The database is unreachable.', 5)),
        );
      });
    },
  };
}
