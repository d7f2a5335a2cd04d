/**
 * `migrateIfPending` (src/db/migrate.ts), what every start and the tenant CLI run: on an up-to-date
 * database one query (three on a Citus coordinator, which also checks the placement); otherwise the migrations are applied as `migrate` does.
 */
import { readdirSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { openDatabase } from '../../../src/db/database.js';
import { migrateIfPending } from '../../../src/db/migrate.js';
import { createTestDatabase, onCitus } from '../../setup/database.js';

// Each test creates and migrates a database: generous timeouts on a busy machine, no timing assertions.
describe('migrateIfPending', { timeout: 180_000 }, () => {
  test('an up-to-date database costs one query', async () => {
    const { db, drop } = await createTestDatabase(); // migrated
    try {
      const statements: string[] = [];
      const stop = db.onStatement((sql) => statements.push(sql));
      expect(await migrateIfPending(db)).toEqual([]);
      stop();
      // On a Citus coordinator the placement is checked too (src/db/distribution.ts): what Citus places, what
      // exists, and which declared functions are not distributed yet.
      const placement = onCitus()
        ? [expect.stringContaining('FROM pg_dist_partition'), expect.stringContaining('FROM pg_class'), expect.stringContaining('FROM pg_dist_object')]
        : [];
      expect(statements).toEqual([expect.stringContaining('FROM _prisma_migrations'), ...placement]);
    } finally {
      await drop();
    }
  });

  test('a fresh database gets every migration', async () => {
    const db = await openDatabase({ dataDir: 'memory://' });
    try {
      const dirs = readdirSync(new URL('../../../prisma/migrations', import.meta.url), { withFileTypes: true });
      expect(await migrateIfPending(db)).toEqual(dirs.filter((d) => d.isDirectory()).map((d) => d.name));
    } finally {
      await db.close();
    }
  });

  test('a migration recorded as unfinished is not taken as applied: it goes to `migrate`, which resolves it', async () => {
    const { db, drop } = await createTestDatabase();
    try {
      const [row] = await db.sql.query<{ name: string }>(
        'UPDATE _prisma_migrations SET finished_at = NULL WHERE migration_name = (SELECT max(migration_name) FROM _prisma_migrations) RETURNING migration_name AS name',
        [],
      );
      expect(await migrateIfPending(db)).toEqual([row!.name]);
      expect(await migrateIfPending(db)).toEqual([]);
    } finally {
      await drop();
    }
  });
});
