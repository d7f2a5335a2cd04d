/**
 * `migrateInWorker` (src/db/migrate.ts), what the server runs when migrations are pending (a fresh
 * database, an upgrade): the schema engine runs in a worker thread on a database of its own, so its
 * memory goes when the thread ends (docs/guides/production-build.md, "Footprint"). The worker runs the
 * compiled module (dist/, built by the tests' global setup), as the server does.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { isFreshDataDir, openDatabase } from '../../../src/db/database.js';
import { migrationsPending } from '../../../src/db/migrate.js';
import { onPostgres } from '../../setup/database.js';
import { adminQuery, databaseUrl } from '../../setup/template.js';

type MigrateModule = typeof import('../../../src/db/migrate.js');
const compiledMigrate = new URL('../../../dist/db/migrate.js', import.meta.url).href;
const { migrateInWorker } = (await import(compiledMigrate)) as MigrateModule;

const allMigrations = readdirSync(new URL('../../../prisma/migrations', import.meta.url), { withFileTypes: true })
  .filter((d) => d.isDirectory())
  .map((d) => d.name);

// Each test initialises or migrates a database: generous timeouts on a busy machine, no timing assertions.
describe('migrateInWorker', { timeout: 180_000 }, () => {
  test('PGlite: a fresh directory is initialised and migrated by the worker, which leaves the lock to its parent', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'tms-migrate-worker-'));
    try {
      expect(isFreshDataDir(dataDir)).toBe(true);
      expect(await migrateInWorker({ dataDir })).toEqual(allMigrations);
      expect(isFreshDataDir(dataDir)).toBe(false);
      expect(existsSync(join(dataDir, 'tms-ingest.lock'))).toBe(false); // the worker neither took nor removed one
      const db = await openDatabase({ dataDir });
      try {
        expect(await migrationsPending(db)).toBe(false);
      } finally {
        await db.close();
      }
      expect(await migrateInWorker({ dataDir })).toEqual([]);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  // The PostgreSQL path needs a server: it is part of the suite's PostgreSQL run (DATABASE_URL), which CI runs too.
  // On PGlite it is reported as skipped, with the reason in its name.
  test.skipIf(!onPostgres())('PostgreSQL (needs DATABASE_URL): a fresh database gets every migration on the worker’s own connection', async () => {
    const name = `tms_test_${randomBytes(6).toString('hex')}`;
    await adminQuery(`CREATE DATABASE ${name}`);
    try {
      const url = databaseUrl(name);
      expect(await migrateInWorker({ url, dataDir: '' })).toEqual(allMigrations);
      expect(await migrateInWorker({ url, dataDir: '' })).toEqual([]);
      // No session of the worker is left behind (it closed its connection; no advisory lock is held).
      const [row] = await adminQuery<{ n: number }>(
        `SELECT count(*)::int AS n FROM pg_locks l JOIN pg_database d ON d.oid = l.database WHERE l.locktype = 'advisory' AND d.datname = $1`,
        [name],
      );
      expect(row?.n).toBe(0);
    } finally {
      await adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
    }
  });

  test('a worker that fails rejects with its error', async () => {
    await expect(migrateInWorker({ url: 'postgresql://postgres@127.0.0.1:1/none', dataDir: '' })).rejects.toThrow(/reach database server|ECONNREFUSED/i);
  });
});
