/**
 * A first start killed inside a migration, then started again: the compiled server (`npm start`) on a
 * fresh database of the run's kind (a PGlite directory, or a new PostgreSQL database with
 * DATABASE_URL). The migration stalls after its SQL ran and before its record and commit (the test hook
 * TMS_TEST_STALL_IN_MIGRATION of src/db/migrate.ts), and the process gets SIGKILL there. The next start
 * goes on from that migration, takes over the dead process's lock (PGlite), and serves.
 */
import { existsSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { readMigrations } from '../../../src/db/migrate.js';
import { loadBody, routes } from '../../factories/records.js';
import { freshDatabase } from './fresh-database.js';
import { startServer } from './server-process.js';

const migrations = readMigrations();
// The first migration that drops a trigger without IF EXISTS: running its SQL twice fails (the case).
const stalledIndex = migrations.findIndex((m) => /^DROP TRIGGER "/m.test(m.sql));

interface HistoryRow extends Record<string, unknown> {
  migration_name: string;
  finished: boolean;
}
const historyQuery = 'SELECT migration_name, finished_at IS NOT NULL AS finished FROM _prisma_migrations WHERE rolled_back_at IS NULL ORDER BY migration_name';

// Two starts on a fresh database, the first one migrating: a busy machine's timeout, no timing assertions.
describe('a first start killed inside a migration', { timeout: 400_000 }, () => {
  test('the next start applies the rest from that migration on, with nothing done by hand, and serves', async () => {
    expect(stalledIndex).toBeGreaterThan(0);
    const stalled = migrations[stalledIndex]!;
    const database = await freshDatabase();
    try {
      const first = startServer({ ...database.env, TMS_TEST_STALL_IN_MIGRATION: stalled.name });
      await first.waitFor(new RegExp(`test hook: stalled inside migration ${stalled.name}`));
      first.child.kill('SIGKILL');
      await first.exited;
      if (database.lockFile) expect(existsSync(database.lockFile)).toBe(true); // the dead process's

      const second = startServer(database.env);
      try {
        const base = await second.started();
        // It goes on with the migration that was killed (nothing of it had committed) and the rest.
        expect(second.output()).toContain(`Applying migrations: 1 of ${migrations.length - stalledIndex} (${stalled.name})`);
        if (database.lockFile) expect(second.output()).toMatch(/did not stop cleanly: took over its lock on the embedded database/);
        const ready = await fetch(`${base}/readyz`);
        expect(ready.status).toBe(200);
        if (database.lockFile) {
          // The schema works end to end: the demo tenant's key stores a load.
          const apiKey = (await second.waitFor(/First run: created tenant "demo"[\s\S]*?(tms_[A-Za-z0-9_-]{43})/))[1]!;
          const res = await fetch(`${base}${routes.load}`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
            body: JSON.stringify(loadBody({ slug: 'demo' })),
          });
          expect(await res.json()).toMatchObject({ status: 'processed' });
        }
      } finally {
        expect(await second.stop()).toBe(0);
      }
      // Every migration is recorded once, finished.
      const rows = await database.query<HistoryRow>(historyQuery);
      expect(rows.map((row) => row.migration_name)).toEqual(migrations.map((m) => m.name));
      expect(rows.every((row) => row.finished)).toBe(true);
    } finally {
      await database.cleanup();
    }
  });
});
