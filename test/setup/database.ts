/**
 * A fresh, migrated database for one test file, copied from the run's template (./template.ts, the
 * integration tests' global setup): PGlite in memory loaded from the template's dump by default; with
 * DATABASE_URL, a new PostgreSQL database created from the template next to the one the URL names
 * (dropped again at the end; with TEST_CITUS=1, on every node of the Citus cluster: ./template.ts).
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { inject } from 'vitest';
import { openDatabase, type Database } from '../../src/db/database.js';
import { createDatabase, databaseUrl, dropDatabase } from './template.js';

export interface TestDatabase {
  db: Database;
  /** The PostgreSQL URL of this file's database (null on PGlite). */
  url: string | null;
  drop(): Promise<void>;
}

export async function createTestDatabase(): Promise<TestDatabase> {
  const template = inject('databaseTemplate');
  if (!template) throw new Error('No database template: add test/setup/template.ts to the vitest config globalSetup.');
  if (template.kind === 'pglite') {
    const db = await openDatabase({ dataDir: 'memory://', loadDataDir: new Blob([readFileSync(template.dumpPath)]) });
    return { db, url: null, drop: () => db.close() };
  }
  const name = `tms_test_${randomBytes(6).toString('hex')}`;
  await createDatabase(name, template.name);
  const url = databaseUrl(name);
  const db = await openDatabase({ url, dataDir: '', poolSize: 20 });
  return {
    db,
    url,
    async drop() {
      try {
        await db.close(); // fails when the test closed it already
      } finally {
        await dropDatabase(name);
      }
    },
  };
}

export const onPostgres = () => Boolean(process.env.DATABASE_URL);
export { onCitus } from './template.js';
