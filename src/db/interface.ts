/**
 * The interface of an open database (`Database`) and of its raw SQL runner (`Sql`), which
 * db/postgres.ts and db/pglite.ts implement; db/database.ts exports it to the rest of the service.
 */
import type { SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import type { PrismaClient } from './generated/prisma/client.js';

/** Runs one SQL statement with positional parameters and returns its rows. */
export interface Sql {
  /**
   * @param name a stable statement name: PostgreSQL prepares it once per connection (hot path).
   */
  query<Row>(text: string, params: readonly unknown[], name?: string): Promise<Row[]>;
}

/**
 * One open database: the Prisma client (GraphQL reads, CLI, admin writes) and a raw SQL runner on
 * the same connections (the ingestion hot path: single-statement `INSERT … ON CONFLICT`).
 */
export interface Database {
  readonly kind: 'postgres' | 'pglite';
  readonly prisma: PrismaClient;
  readonly sql: Sql;
  /** The adapter factory the migration engine uses (src/db/migrate.ts). */
  readonly adapterFactory: SqlMigrationAwareDriverAdapterFactory;
  /**
   * Calls `listener` with the text of every SQL statement sent (Prisma's and the raw runner's);
   * returns the function that removes it. Tests count statements with it (GraphQL has no N+1).
   */
  onStatement(listener: StatementListener): () => void;
  /**
   * Calls `onNotify` with the payload of every `NOTIFY channel` (any process, after its commit).
   * PostgreSQL: one dedicated connection outside the pool, reconnected after a failure, after which
   * `onReconnect` runs (notifications sent meanwhile are lost: re-read what may have changed).
   * PGlite: its own `listen`. Resolves once listening; the returned function stops it.
   */
  listen(channel: string, onNotify: (payload: string) => void, onReconnect?: () => void): Promise<() => Promise<void>>;
  /**
   * The runner of statements that read and write only `tenantId`'s rows, over `on` (default: `sql`; or a
   * transaction's or a rehearsal's runner): on a Citus coordinator each statement runs as one call on the node
   * that holds the tenant's shards (src/db/tenant-statement.ts); on any other database, `on` itself.
   */
  tenantSql(tenantId: string, on?: Sql): Sql;
  /** Whether the database is a Citus coordinator (asked at the first call, then kept). */
  citus(): Promise<boolean>;
  /**
   * Runs `work` inside one transaction that is always rolled back (dry runs): its statements read,
   * lock and check exactly what they would in a real write, and leave nothing behind (no row, no
   * change event: the events it records roll back with it; no NOTIFY). Each statement
   * runs under its own savepoint, so one the database refuses fails alone, as it does in autocommit.
   * PostgreSQL: one pooled connection for the whole of `work`. PGlite: its exclusive transaction.
   */
  rehearse<T>(work: (sql: Sql) => Promise<T>): Promise<T>;
  /**
   * Runs `work` inside one transaction, committed when it resolves and rolled back when it throws (a
   * delete that locks its rows in one statement and cascades in the next, which then sees every child
   * committed while it waited). PostgreSQL: one pooled connection. PGlite: its exclusive transaction.
   */
  transaction<T>(work: (sql: Sql) => Promise<T>): Promise<T>;
  /**
   * Connection pool state (/metrics, overload shedding). The embedded database is a pool of one
   * connection: `waiting` counts the calls queued behind the one it runs, `waitingRequests` those of
   * requests (background calls wait behind them, `asRequestWork`). PostgreSQL's pool tells no one
   * apart: both are its waiters. On Citus, the pools of the tenants' nodes are counted in (decision 0055).
   */
  poolStats(): { total: number; idle: number; waiting: number; waitingRequests: number };
  /**
   * The embedded database runs on the service's own thread: for how many milliseconds so far a call has
   * held its connection (overload.ts takes that time out of the event loop's lag); null on PostgreSQL.
   */
  embeddedBusyMs(): number | null;
  close(): Promise<void>;
}

export type StatementListener = (sql: string) => void;

export interface DatabaseOptions {
  /** PostgreSQL connection string; when absent, embedded PGlite is used. */
  url?: string;
  /** PGlite data directory; `memory://` keeps it in memory (tests). */
  dataDir: string;
  /** PGlite only: start from this dumped data directory (`dumpDataDir()`; tests load a migrated template). */
  loadDataDir?: Blob;
  /** PostgreSQL pool size. */
  poolSize?: number;
  /** Called when an idle pooled connection fails (the pool replaces it); default: a line on stderr. */
  onPoolError?: (error: Error) => void;
  /**
   * Called when the embedded database's lock was left by a process that is gone (a crash, SIGKILL) and
   * this one took it over; default: one line on stderr.
   */
  onLockTakenOver?: (message: string) => void;
  /**
   * PGlite only: runs with the data directory locked, before PGlite opens it (start-up: a fresh
   * directory's initdb and migrations in a worker thread, `migrateInWorker`).
   */
  beforeOpen?: () => Promise<void>;
  /** PGlite only: the directory's lock is held by this process already (a migration worker of the server). */
  lockHeld?: boolean;
}

/**
 * An extension as PGlite takes it, typed loosely: no exported declaration of db/ names a PGlite type,
 * which the client's bundled declarations (scripts/build.js, dts-bundle-generator) cannot follow.
 */
export interface PgliteExtension {
  name: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- PGlite's own setup type, left unnamed (above).
  setup(...args: any[]): Promise<any>;
}
