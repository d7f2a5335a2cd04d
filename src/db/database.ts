/**
 * The database the service uses: its interface (`Database`, `Sql`: db/interface.ts) and `openDatabase`, which opens
 * PostgreSQL (db/postgres.ts) when a URL is given, else the embedded PGlite (db/pglite.ts, with its
 * lock, db/pglite-lock.ts, and its call scheduler, db/pglite-scheduler.ts). Every statement either
 * sends goes through the statement observation (db/statement-observation.ts). The other modules import
 * all of it from here.
 */
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { isFreshDataDir, openPglite } from './pglite.js';
import { DatabaseInUseError } from './pglite-lock.js';
import { asBackgroundWork, asRequestWork } from './pglite-scheduler.js';
import { inPoolTransaction, openPostgres, ScriptSafePg, sessionOptions } from './postgres.js';
import type { Database, DatabaseOptions, PgliteExtension } from './interface.js';

export type { Database, DatabaseOptions, Sql, StatementListener } from './interface.js';
export { asBackgroundWork, asRequestWork, DatabaseInUseError, inPoolTransaction, isFreshDataDir, ScriptSafePg, sessionOptions };

/**
 * The PostgreSQL extensions the migrations create (`CREATE EXTENSION`), which PGlite must be given when
 * it opens a database: `pg_trgm` (migration `cost`: the trigram indexes that serve `loads(filter: {search})`).
 * Every PGlite the project opens (the server, the migration scratch database, the tests' template, the
 * bench's floor) passes these.
 */
export const pgliteExtensions: { readonly pg_trgm: PgliteExtension } = { pg_trgm };

/** Opens PostgreSQL when a URL is given, else the embedded PGlite database under `dataDir`. */
export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  const onPoolError = options.onPoolError ?? ((error: Error) => console.error(`Database connection lost: ${error.message}`));
  const onLockTakenOver = options.onLockTakenOver ?? ((message: string) => console.error(message));
  return options.url ? openPostgres(options.url, options.poolSize ?? 10, onPoolError) : openPglite(options, onLockTakenOver, pgliteExtensions);
}
