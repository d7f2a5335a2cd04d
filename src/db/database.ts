import { AsyncLocalStorage } from 'node:async_hooks';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { PrismaPg } from '@prisma/adapter-pg';
import type { SqlMigrationAwareDriverAdapterFactory, SqlQueryable, SqlDriverAdapter } from '@prisma/driver-adapter-utils';
import pg from 'pg';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { PrismaClient } from './generated/prisma/client.js';
import { tracing, type StatementTarget } from '../observability/tracing.js';

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
   * apart: both are its waiters.
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

/** Runs one statement (`execute`) as the database's statement `text`: reported to the listeners, and traced while tracing is on. */
type ObserveStatement = <T>(text: string, execute: () => Promise<T>, name?: string) => Promise<T>;

/** A connection's statement runner (one transaction's), without statement names. */
type RunStatement = (text: string, params?: readonly unknown[], name?: string) => Promise<unknown[]>;

/**
 * The `Sql` of a rehearsal transaction: every statement under a savepoint (released when it succeeds,
 * rolled back to when it fails), so a refused statement leaves the transaction usable, as autocommit would.
 */
function savepointed(run: RunStatement, observe: ObserveStatement): Sql {
  return {
    query<Row>(text: string, params: readonly unknown[], name?: string) {
      return observe(
        text,
        async () => {
          await run('SAVEPOINT rehearsal');
          let rows: unknown[];
          try {
            rows = await run(text, params, name);
          } catch (error) {
            await run('ROLLBACK TO SAVEPOINT rehearsal');
            throw error;
          }
          await run('RELEASE SAVEPOINT rehearsal');
          return rows as Row[];
        },
        name,
      );
    },
  };
}

/**
 * The statement listeners of one database, and the one path every statement takes (`observe`): the
 * listeners cost nothing while none is registered, and the span nothing while tracing is off (it is
 * decided when the database opens: observability/tracing.ts starts first).
 */
function statementObserver(target: StatementTarget) {
  const listeners = new Set<StatementListener>();
  const traced = tracing()?.statements(target);
  const observe: ObserveStatement = (text, execute, name) => {
    for (const listener of listeners) listener(text);
    return traced ? traced(text, execute, name) : execute();
  };
  return {
    observe,
    add(listener: StatementListener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
  };
}

/** Observes every statement an adapter (or a transaction it starts) runs. */
function observeQueryable<Q extends SqlQueryable>(queryable: Q, observe: ObserveStatement): Q {
  const { queryRaw, executeRaw } = queryable;
  queryable.queryRaw = (query) => observe(query.sql, () => queryRaw.call(queryable, query));
  queryable.executeRaw = (query) => observe(query.sql, () => executeRaw.call(queryable, query));
  const adapter = queryable as unknown as Partial<SqlDriverAdapter>;
  const startTransaction = adapter.startTransaction;
  if (startTransaction) {
    adapter.startTransaction = async (isolationLevel) => observeQueryable(await startTransaction.call(adapter, isolationLevel), observe);
  }
  return queryable;
}

/** Makes every adapter the factory connects observe its statements. */
function observeAdapterFactory<F extends SqlMigrationAwareDriverAdapterFactory>(factory: F, observe: ObserveStatement): F {
  const connect = factory.connect.bind(factory);
  factory.connect = async () => observeQueryable(await connect(), observe);
  return factory;
}

/** A PostgreSQL URL's database, host and port for statement spans (never its credentials). */
function postgresTarget(url: string): StatementTarget {
  try {
    const { pathname, hostname, port } = new URL(url);
    return { engine: 'pg', database: decodeURIComponent(pathname.slice(1)) || undefined, host: hostname || undefined, port: Number(port) || 5432 };
  } catch {
    return { engine: 'pg' };
  }
}

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

/** Opens PostgreSQL when a URL is given, else the embedded PGlite database under `dataDir`. */
export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  const onPoolError = options.onPoolError ?? ((error: Error) => console.error(`Database connection lost: ${error.message}`));
  const onLockTakenOver = options.onLockTakenOver ?? ((message: string) => console.error(message));
  return options.url ? openPostgres(options.url, options.poolSize ?? 10, onPoolError) : openPglite(options, onLockTakenOver);
}

/** Quotes a channel name as an SQL identifier. */
const identifier = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** How long a lost PostgreSQL listening connection waits before connecting again. */
const relistenDelayMs = 1000;

/**
 * LISTEN on a dedicated PostgreSQL connection (a pooled one would be handed to other work), kept up:
 * when it fails, it reconnects every `relistenDelayMs` until it listens again, then calls `onReconnect`.
 */
async function listenPostgres(url: string, channel: string, onNotify: (payload: string) => void, onReconnect?: () => void) {
  let client: pg.Client | null = null;
  let stopped = false;
  let retry: NodeJS.Timeout | undefined;
  const connect = async () => {
    const next = new pg.Client({ connectionString: url });
    next.on('notification', (message) => {
      if (message.channel === channel) onNotify(message.payload ?? '');
    });
    next.on('error', () => {
      if (client !== next) return;
      client = null;
      next.end().catch(() => {});
      schedule();
    });
    try {
      await next.connect();
      await next.query(`LISTEN ${identifier(channel)}`);
    } catch (error) {
      await next.end().catch(() => {});
      throw error;
    }
    if (stopped) {
      await next.end().catch(() => {});
      return;
    }
    client = next;
  };
  const schedule = () => {
    if (stopped) return;
    retry = setTimeout(() => {
      connect().then(
        () => onReconnect?.(),
        () => schedule(),
      );
    }, relistenDelayMs);
    retry.unref();
  };
  await connect();
  return async () => {
    stopped = true;
    clearTimeout(retry);
    const current = client;
    client = null;
    await current?.end().catch(() => {});
  };
}

/** Tracks a database's listeners so `close()` stops them too. */
function listenerSet() {
  const stops = new Set<() => Promise<void>>();
  return {
    add(stop: () => Promise<void>) {
      const once = async () => {
        if (stops.delete(once)) await stop();
      };
      stops.add(once);
      return once;
    },
    async closeAll() {
      await Promise.all([...stops].map((stop) => stop()));
    },
  };
}

/**
 * Runs `work` on one connection of the pool inside BEGIN … COMMIT (ROLLBACK when it throws). A
 * connection that cannot roll back is dropped from the pool, not reused.
 */
export async function inPoolTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch((rollback: Error) => (broken = rollback));
    throw error;
  } finally {
    client.release(broken);
  }
}

/**
 * Session settings of every connection the service opens to PostgreSQL (the startup packet's `options`):
 * no parallel query. The service runs many small statements at once; a parallel plan's workers start per
 * execution and take the cores other requests wait for: on the 100,000-load seed, the search's plan ran its
 * three trigram index scans in two workers in 105–185 ms, serially in 2.5–3.9 ms (decision 0037). Counts are
 * bounded (decision 0022), so no answer needs a parallel scan.
 */
export const sessionOptions = '-c max_parallel_workers_per_gather=0';

async function openPostgres(url: string, max: number, onPoolError: (error: Error) => void): Promise<Database> {
  const pool = new pg.Pool({ connectionString: url, max, options: sessionOptions });
  const listeners = listenerSet();
  // An idle client that loses its connection emits 'error'; without a listener the process would exit.
  pool.on('error', onPoolError);
  const statements = statementObserver(postgresTarget(url));
  const adapterFactory = observeAdapterFactory(new ScriptSafePg(pool), statements.observe);
  const prisma = new PrismaClient({ adapter: adapterFactory });
  return {
    kind: 'postgres',
    prisma,
    adapterFactory,
    onStatement: statements.add,
    sql: {
      query: <Row>(text: string, params: readonly unknown[], name?: string) =>
        statements.observe(text, async () => (await pool.query({ text, values: params as unknown[], name })).rows as Row[], name),
    },
    async rehearse(work) {
      const client = await pool.connect();
      const run: RunStatement = async (text, params = [], name) =>
        (await client.query<Record<string, unknown>>({ text, values: params as unknown[], name })).rows;
      try {
        await client.query('BEGIN');
        return await work(savepointed(run, statements.observe));
      } finally {
        // A connection that cannot roll back is dropped from the pool, not reused.
        await client.query('ROLLBACK').then(
          () => client.release(),
          (error: Error) => client.release(error),
        );
      }
    },
    transaction: (work) =>
      inPoolTransaction(pool, (client) =>
        work({
          query: <Row>(text: string, params: readonly unknown[], name?: string) =>
            statements.observe(text, async () => (await client.query({ text, values: params as unknown[], name })).rows as Row[], name),
        }),
      ),
    listen: async (channel, onNotify, onReconnect) => listeners.add(await listenPostgres(url, channel, onNotify, onReconnect)),
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount, waitingRequests: pool.waitingCount }),
    embeddedBusyMs: () => null,
    async close() {
      await listeners.closeAll();
      await prisma.$disconnect();
      await pool.end();
    },
  };
}

/**
 * adapter-pg runs a migration script by splitting it on ';', which breaks function bodies
 * (`$$ … ; … $$`) and is not atomic. Send the whole script at once instead: PostgreSQL runs a
 * multi-statement simple query as one implicit transaction.
 */
export class ScriptSafePg extends PrismaPg {
  /** The pool, also for migrations' transactions (src/db/migrate.ts). */
  constructor(readonly pool: pg.Pool) {
    super(pool);
  }
  override async connect() {
    const adapter = await super.connect();
    adapter.executeScript = async (script: string) => {
      await this.pool.query(script);
    };
    return adapter;
  }
}

/** Raised when another process holds the embedded database. */
export class DatabaseInUseError extends Error {
  override readonly name = 'DatabaseInUseError';
}

const isAlive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/**
 * PGlite admits one process at a time and does not guard its directory itself: a lock file with the
 * owner's pid does (a lock left by a dead process is taken over, and `onTakenOver` says so: that
 * process did not stop cleanly).
 */
function lockDataDir(dataDir: string, onTakenOver: (message: string) => void): () => void {
  const path = join(dataDir, 'tms-ingest.lock');
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(path, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => rmSync(path, { force: true });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const owner = Number(readFileSync(path, 'utf8'));
      if (owner && owner !== process.pid && isAlive(owner)) {
        throw new DatabaseInUseError(`The embedded database in ${dataDir} is in use by process ${owner} (is the server running?). Stop it and try again.`);
      }
      rmSync(path, { force: true });
      onTakenOver(`The previous run${owner ? ` (process ${owner})` : ''} did not stop cleanly: took over its lock on the embedded database in ${dataDir}.`);
    }
  }
  throw new DatabaseInUseError(`Could not lock the embedded database in ${dataDir}.`);
}

/**
 * PGlite's defaults, with a 16 MB buffer cache instead of PostgreSQL's 128 MB: that cache lives in the
 * process's WebAssembly memory, and a smaller one takes about 140 MB off the service's resident memory
 * (measured, docs/guides/production-build.md). The data directory's files stay in the OS page cache.
 */
const pgliteStartParams = [...PGlite.defaultStartParams, '-c', 'shared_buffers=16MB'];

/**
 * The PostgreSQL extensions the migrations create (`CREATE EXTENSION`), which PGlite must be given when
 * it opens a database: `pg_trgm` (migration `cost`: the trigram indexes that serve `loads(filter: {search})`).
 * Every PGlite the project opens (the server, the migration scratch database, the tests' template, the
 * bench's floor) passes these.
 */
export const pgliteExtensions = { pg_trgm };

/** Whose work a database call is: a request's (a client waits for it) or the service's own background work. */
const workOf = new AsyncLocalStorage<'request' | 'background'>();

/**
 * Runs `fn`, and everything it starts, as a request's work: on the embedded database its calls go ahead
 * of background calls queued for the one connection, and they are the backlog overload shedding counts.
 * Work started outside any request (timers, start-up, maintenance) is background work.
 */
export const asRequestWork = <T>(fn: () => T): T => workOf.run('request', fn);

/** Runs `fn` as background work even when a request started it (the table statistics' ANALYZE). */
export const asBackgroundWork = <T>(fn: () => T): T => workOf.run('background', fn);

/**
 * After this many request calls in a row with background calls waiting, one background call goes next:
 * requests go first, but a steady stream of them never holds the service's own work back for good.
 */
const requestCallsPerBackgroundCall = 8;

/**
 * The embedded database's one connection, shared out call by call (every query, script and transaction
 * takes it through these three methods, the Prisma adapter's included; PGlite runs them one at a time
 * anyway): requests' calls first, background calls when none waits (see `requestCallsPerBackgroundCall`).
 * Counts how many of each wait, and for how long so far a call has held the connection.
 */
function shareConnection(pglite: PGlite) {
  const waiting = { request: [] as (() => void)[], background: [] as (() => void)[] };
  let held = false;
  /** Held for a background call, while the event loop turns once before it starts (not busy). */
  let yielding = false;
  let requestsInARow = 0;
  let busySince = 0;
  let busyBefore = 0;
  /** Hands the connection to the next request call, if one waits and it is requests' turn. */
  const nextRequest = () => {
    if (waiting.request.length === 0 || (waiting.background.length > 0 && requestsInARow >= requestCallsPerBackgroundCall)) return false;
    requestsInARow++;
    waiting.request.shift()!();
    return true;
  };
  const handOver = () => {
    busyBefore += performance.now() - busySince;
    busySince = performance.now();
    if (nextRequest()) return;
    if (waiting.background.length === 0) {
      held = false;
      return;
    }
    // A background call first lets the event loop turn once (a call's statements run on this thread,
    // and the next would start at once): requests that arrived meanwhile queue their calls, and go first.
    yielding = true;
    setImmediate(() => {
      yielding = false;
      busySince = performance.now();
      if (nextRequest()) return;
      requestsInARow = 0;
      waiting.background.shift()!();
    });
  };
  const share =
    <A extends unknown[], R>(call: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      if (held) await new Promise<void>((resolve) => waiting[workOf.getStore() ?? 'background'].push(resolve));
      else {
        held = true;
        busySince = performance.now();
      }
      try {
        return await call(...args);
      } finally {
        handOver();
      }
    };
  pglite.query = share(pglite.query.bind(pglite)) as PGlite['query'];
  pglite.exec = share(pglite.exec.bind(pglite));
  pglite.transaction = share(pglite.transaction.bind(pglite));
  return {
    held: () => held,
    waiting: () => ({ requests: waiting.request.length, all: waiting.request.length + waiting.background.length }),
    busyMs: () => busyBefore + (held && !yielding ? performance.now() - busySince : 0),
  };
}

/** True when `dataDir` holds no PGlite database yet (its first open runs initdb). */
export const isFreshDataDir = (dataDir: string) => !dataDir.startsWith('memory://') && !existsSync(join(dataDir, 'PG_VERSION'));

async function openPglite(options: DatabaseOptions, onLockTakenOver: (message: string) => void): Promise<Database> {
  const { dataDir, loadDataDir } = options;
  const inMemory = dataDir.startsWith('memory://');
  let unlock = () => {};
  if (!inMemory) {
    mkdirSync(dataDir, { recursive: true });
    if (!options.lockHeld) unlock = lockDataDir(dataDir, onLockTakenOver);
  }
  const pglite = await (async () => {
    await options.beforeOpen?.();
    return PGlite.create(dataDir, { startParams: pgliteStartParams, loadDataDir, extensions: pgliteExtensions });
  })().catch((error) => {
    unlock();
    throw error;
  });
  const connection = shareConnection(pglite);
  const statements = statementObserver({ engine: 'pglite' });
  const listeners = listenerSet();
  const adapterFactory = observeAdapterFactory(new PrismaPGlite(pglite), statements.observe);
  const prisma = new PrismaClient({ adapter: adapterFactory });
  return {
    kind: 'pglite',
    prisma,
    adapterFactory,
    onStatement: statements.add,
    sql: {
      query: <Row>(text: string, params: readonly unknown[], name?: string) =>
        statements.observe(text, async () => (await pglite.query<Row>(text, params as unknown[])).rows, name),
    },
    rehearse: (work) =>
      pglite.transaction(async (tx) => {
        try {
          return await work(savepointed(async (text, params = []) => (await tx.query(text, params as unknown[])).rows, statements.observe));
        } finally {
          if (!tx.closed) await tx.rollback();
        }
      }),
    transaction: (work) =>
      pglite.transaction((tx) =>
        work({
          query: <Row>(text: string, params: readonly unknown[], name?: string) =>
            statements.observe(text, async () => (await tx.query<Row>(text, params as unknown[])).rows, name),
        }),
      ),
    async listen(channel, onNotify) {
      const unlisten = await pglite.listen(channel, onNotify);
      return listeners.add(() => unlisten());
    },
    poolStats: () => {
      const waiting = connection.waiting();
      return { total: 1, idle: connection.held() ? 0 : 1, waiting: waiting.all, waitingRequests: waiting.requests };
    },
    embeddedBusyMs: () => connection.busyMs(),
    async close() {
      await listeners.closeAll();
      await prisma.$disconnect();
      await pglite.close();
      unlock();
    },
  };
}
