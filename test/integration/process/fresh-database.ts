/**
 * A fresh, empty database (no tables) for a server process that starts on it, of the run's kind: a new
 * PGlite directory, or a new PostgreSQL database when DATABASE_URL is set.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { onPostgres } from '../../setup/database.js';
import { adminQuery, databaseUrl } from '../../setup/template.js';
import { pgliteTarget } from '../cli/targets.js';

export interface FreshDatabase {
  /** The server process's environment. */
  env: Record<string, string>;
  /** PGlite: the data directory's lock file; null on PostgreSQL. */
  lockFile: string | null;
  /** Runs one query on the database from this process (PGlite: opened and closed again around it). */
  query<Row extends Record<string, unknown>>(sql: string): Promise<Row[]>;
  cleanup(): Promise<void>;
}

export async function freshDatabase(): Promise<FreshDatabase> {
  if (onPostgres()) {
    const name = `tms_test_${randomBytes(6).toString('hex')}`;
    await adminQuery(`CREATE DATABASE ${name}`);
    const url = databaseUrl(name);
    return {
      env: { DATABASE_URL: url, DATA_DIR: '/nonexistent-with-database-url' },
      lockFile: null,
      query: (sql) => adminQuery(sql, [], url),
      cleanup: async () => void (await adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)),
    };
  }
  const target = pgliteTarget();
  return {
    env: target.env,
    lockFile: join(target.env.DATA_DIR!, 'tms-ingest.lock'),
    query: (sql) => target.withDatabase((db) => db.sql.query(sql, [])),
    cleanup: () => target.cleanup(),
  };
}
