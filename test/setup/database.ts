/**
 * A fresh, migrated database for one test file: PGlite in memory by default; with DATABASE_URL, a new
 * PostgreSQL database created next to the one the URL names (dropped again at the end).
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { openDatabase, type Database } from '../../src/db/database.js';
import { migrate } from '../../src/db/migrate.js';

export interface TestDatabase {
  db: Database;
  /** The PostgreSQL URL of this file's database (null on PGlite). */
  url: string | null;
  drop(): Promise<void>;
}

export async function createTestDatabase(): Promise<TestDatabase> {
  const adminUrl = process.env.DATABASE_URL;
  if (!adminUrl) {
    const db = await openDatabase({ dataDir: 'memory://' });
    await migrate(db.adapterFactory);
    return { db, url: null, drop: () => db.close() };
  }
  const name = `tms_test_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  const db = await openDatabase({ url: url.toString(), dataDir: '', poolSize: 20 });
  await migrate(db.adapterFactory);
  return {
    db,
    url: url.toString(),
    async drop() {
      await db.close();
      const client = new pg.Client({ connectionString: adminUrl });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}

export const onPostgres = () => Boolean(process.env.DATABASE_URL);
