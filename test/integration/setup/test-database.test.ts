/**
 * The test databases themselves (test/setup/): each is a copy of the run's migrated template, its
 * own, and gone after `drop()`.
 */
import { readdirSync, statSync } from 'node:fs';
import { describe, expect, inject, test } from 'vitest';
import { createTenant } from '../../../src/domain/tenant/service.js';
import { uniqueSlug } from '../../helpers/app.js';
import { createTestDatabase, type TestDatabase } from '../../setup/database.js';
import { adminQuery, databaseUrl } from '../../setup/template.js';

const migrationNames = readdirSync(new URL('../../../prisma/migrations', import.meta.url), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();

const appliedMigrations = async ({ db }: TestDatabase) =>
  (await db.sql.query<{ name: string }>('SELECT migration_name AS name FROM _prisma_migrations WHERE finished_at IS NOT NULL ORDER BY 1', [])).map(
    (row) => row.name,
  );

// These tests create their databases themselves: on a loaded two-core machine that can outlast the default test timeout.
describe('test databases', { timeout: 180_000 }, () => {
  test('created side by side, each starts with every migration applied and sees only its own writes', async () => {
    const databases = await Promise.all([createTestDatabase(), createTestDatabase()]);
    try {
      for (const database of databases) expect(await appliedMigrations(database)).toEqual(migrationNames);
      const [first, other] = databases;
      const slug = uniqueSlug('iso');
      await createTenant(first.db, { slug, name: 'Only in the first' });
      expect(await first.db.prisma.tenant.count({ where: { slug } })).toBe(1);
      expect(await other.db.prisma.tenant.count()).toBe(0);
    } finally {
      await Promise.all(databases.map((database) => database.drop()));
    }
  });

  test('drop() ends the database, also one the test closed itself: PostgreSQL no longer lists it, PGlite answers no more queries', async () => {
    const [database, closed] = await Promise.all([createTestDatabase(), createTestDatabase()]);
    await closed.db.close(); // as tests of a database that went away do
    const names = [database, closed].map(({ url }) => (url ? new URL(url).pathname.slice(1) : null));
    const listed = async () => (await adminQuery('SELECT 1 FROM pg_database WHERE datname = ANY($1)', [names])).length;
    if (database.url) expect(await listed()).toBe(2);
    await database.drop();
    await closed.drop().catch(() => {}); // closing a second time may fail: the database is dropped all the same
    if (database.url) expect(await listed()).toBe(0);
    else await expect(database.db.sql.query('SELECT 1', [])).rejects.toThrow();
  });

  test('the template is not a database tests can use: PostgreSQL refuses connections to it (copies never find it in use)', async () => {
    const template = inject('databaseTemplate');
    if (template.kind === 'pglite') {
      expect(statSync(template.dumpPath).isFile()).toBe(true); // a dump file, loaded into each new in-memory database
      return;
    }
    await expect(adminQuery('SELECT 1', [], databaseUrl(template.name))).rejects.toThrow(/not currently accepting connections/);
  });
});
