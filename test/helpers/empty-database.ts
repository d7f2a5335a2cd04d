/**
 * An empty database (no tables) of the run's kind, for tests that migrate it themselves: PGlite in
 * memory, or with DATABASE_URL a new PostgreSQL database next to the one the URL names.
 */
import { randomBytes } from 'node:crypto';
import { openDatabase, type Database } from '../../src/db/database.js';
import { onPostgres } from '../setup/database.js';
import { createDatabase, databaseUrl, dropDatabase } from '../setup/template.js';

/** An empty database; `open` opens another connection to it (PostgreSQL), `drop` closes and removes it. */
async function emptyDatabase(poolSize = 4): Promise<{ db: Database; open(): Promise<Database>; drop(): Promise<void> }> {
  if (!onPostgres()) {
    const db = await openDatabase({ dataDir: 'memory://' });
    return { db, open: async () => db, drop: () => db.close() };
  }
  const name = `tms_test_${randomBytes(6).toString('hex')}`;
  await createDatabase(name);
  const url = databaseUrl(name);
  const opened: Database[] = [];
  const open = async () => {
    const db = await openDatabase({ url, dataDir: '', poolSize });
    opened.push(db);
    return db;
  };
  return {
    db: await open(),
    open,
    async drop() {
      await Promise.all(opened.map((db) => db.close().catch(() => {})));
      await dropDatabase(name);
    },
  };
}

/** Runs `fn` on an empty database, dropped after. */
export async function withEmptyDatabase(fn: (database: { db: Database; open(): Promise<Database> }) => Promise<void>) {
  const database = await emptyDatabase();
  try {
    await fn(database);
  } finally {
    await database.drop();
  }
}
