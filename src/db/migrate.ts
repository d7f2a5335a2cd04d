/**
 * Applies prisma/migrations, each in one transaction with its record in `_prisma_migrations` (the
 * table, columns and checksums `prisma migrate deploy` keeps, so the Prisma CLI keeps working on the
 * same database): a process killed at any point leaves no half-recorded migration
 * (docs/decisions/0025-one-transaction-per-migration.md). New migrations are written with Prisma's
 * WebAssembly schema engine (the native engine cannot be downloaded here; see
 * docs/decisions/0008-migrations-with-the-wasm-schema-engine.md).
 *
 * As a script (`npm run db:migrate`, src/cli/db-migrate.ts): applies pending migrations to DATABASE_URL
 * (or DATA_DIR). With `--create <name>`: writes a new migration from the difference between the
 * migrations and prisma/schema.prisma (computed on a throwaway in-memory database).
 */
import { createHash, randomUUID } from 'node:crypto';
import { readdirSync, readFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { PGlite, type PGliteInterface } from '@electric-sql/pglite';
import type { SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import { bindMigrationAwareSqlAdapterFactory } from '@prisma/driver-adapter-utils';
import type { MigrationList, SchemaEngine } from '@prisma/schema-engine-wasm';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { codeFile, projectRoot } from '../paths.js';
import { inPoolTransaction, pgliteExtensions, ScriptSafePg, type Database } from './database.js';
import { distribute, isCitus, undistributed, undistributedFunctions } from './distribution.js';

const migrationsDir = join(projectRoot, 'prisma/migrations');
const schemaPath = join(projectRoot, 'prisma/schema.prisma');

type EngineModule = typeof import('@prisma/schema-engine-wasm');
let engineModule: Promise<EngineModule> | undefined;
/** The glue module as imported: the engine's API, the imports the .wasm module needs, and its setter. */
type EngineGlue = EngineModule & WebAssembly.ModuleImports & { __wbg_set_wasm(exports: WebAssembly.Exports): void };

/** Instantiates the WebAssembly module once per process (its glue keeps views of the memory). */
function loadEngineModule(): Promise<EngineModule> {
  engineModule ??= (async () => {
    // Node cannot import a .wasm module, so instantiate it with the glue module's imports ourselves.
    const require = createRequire(import.meta.url);
    const gluePath = require.resolve('@prisma/schema-engine-wasm/schema_engine_bg');
    const glue = (await import(pathToFileURL(gluePath).href)) as EngineGlue;
    const bytes = readFileSync(join(dirname(gluePath), 'schema_engine_bg.wasm'));
    const { instance } = await WebAssembly.instantiate(bytes, { './schema_engine_bg.js': glue });
    glue.__wbg_set_wasm(instance.exports);
    (instance.exports as { __wbindgen_start: () => void }).__wbindgen_start();
    return glue;
  })();
  return engineModule;
}

async function loadEngine(adapterFactory: SqlMigrationAwareDriverAdapterFactory): Promise<SchemaEngine> {
  const { SchemaEngine } = await loadEngineModule();
  const datamodel = readFileSync(schemaPath, 'utf8');
  return SchemaEngine.new({ datamodels: [[schemaPath, datamodel]] }, () => {}, bindMigrationAwareSqlAdapterFactory(adapterFactory));
}

const noFilters = { externalTables: [], externalEnums: [] };

/**
 * True unless `_prisma_migrations` records every migration of prisma/migrations as finished (the usual
 * restart): one query.
 */
export async function migrationsPending(db: Database): Promise<boolean> {
  let rows: { migration_name: string; finished: boolean; citus: boolean }[];
  try {
    rows = await db.sql.query(
      `SELECT migration_name, finished_at IS NOT NULL AS finished, EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus') AS citus
       FROM _prisma_migrations WHERE rolled_back_at IS NULL`,
      [],
    );
  } catch {
    return true; // no migration table yet (a fresh database)
  }
  const finished = new Set(rows.filter((row) => row.finished).map((row) => row.migration_name));
  if (!rows.every((row) => row.finished) || !migrationNames().every((name) => finished.has(name))) return true;
  // On a Citus coordinator, a table or function not placed as src/db/distribution.ts declares is pending too.
  const run = (text: string, params: unknown[] = []) => db.sql.query<Record<string, unknown>>(text, params);
  return rows[0]?.citus === true && ((await undistributed(run)).length > 0 || (await undistributedFunctions(run)).length > 0);
}

/** `migrate`, unless no migration is pending (`migrationsPending`). */
export async function migrateIfPending(db: Database, options: MigrationEvents = {}): Promise<string[]> {
  return (await migrationsPending(db)) ? migrate(db.adapterFactory, options) : [];
}

/**
 * Applies every pending migration in a worker thread, on a database of its own (PostgreSQL: one
 * connection; PGlite: the directory, whose lock this process must hold, opened and closed by the
 * worker). What a fresh PGlite's initdb grows (some 200 MB of WebAssembly memory and malloc'd memory)
 * is returned when the worker ends, instead of staying in the server for its whole life
 * (docs/guides/production-build.md, "Footprint"). `events` hears of each migration as it starts.
 */
export async function migrateInWorker(options: { url?: string; dataDir: string }, events: MigrationEvents = {}): Promise<string[]> {
  // Compiled: dist/db/migrate-worker.js (an entry of the bundle); under tsx and vitest: the source.
  const worker = new Worker(codeFile('db/migrate-worker.ts'), {
    workerData: { url: options.url, dataDir: options.dataDir } satisfies MigrateWorkerData,
  });
  return new Promise<string[]>((resolve, reject) => {
    let applied: string[] | null = null;
    worker.on('message', (message: MigrateWorkerMessage) => {
      if ('progress' in message) return events.onProgress?.(message.progress);
      if ('recovered' in message) return events.onRecovered?.(message.recovered);
      // The worker posts this once it has closed the database: nothing is left to wait for.
      applied = message.applied;
      void worker.terminate();
    });
    worker.once('error', reject);
    worker.once('exit', (code) =>
      applied ? resolve(applied) : reject(new Error(`The migration worker stopped (exit code ${code}) without applying the migrations.`)),
    );
  });
}

/** What `migrateInWorker` hands its worker (src/db/migrate-worker.ts). */
export interface MigrateWorkerData {
  url?: string;
  dataDir: string;
}

/** What the worker posts: each migration as it starts, then (last) the names applied. */
export type MigrateWorkerMessage = { progress: MigrationProgress } | { recovered: string } | { applied: string[] };

/** One migration of prisma/migrations: its directory's name, its SQL, and Prisma's checksum of that SQL. */
export interface Migration {
  name: string;
  sql: string;
  /** SHA-256 of migration.sql, in hex: what Prisma records in `_prisma_migrations.checksum`. */
  checksum: string;
}

/** The migration about to be applied: the `index`-th (from 1) of the `total` pending. */
export interface MigrationProgress {
  index: number;
  total: number;
  name: string;
}

/** `describeProgress`: "Applying migrations: <index> of <total> (<migration name>)". */
export const describeProgress = ({ index, total, name }: MigrationProgress) => `Applying migrations: ${index} of ${total} (${name})`;

export interface MigrationEvents {
  /** Called as each pending migration starts. */
  onProgress?: (progress: MigrationProgress) => void;
  /** Called when a migration left unfinished by an older version's run is found applied and recorded. */
  onRecovered?: (message: string) => void;
  /** Called with the tables a Citus coordinator's placement distributed (or made reference tables) now. */
  onDistributed?: (tables: string[]) => void;
}

export interface MigrateOptions extends MigrationEvents {
  /** The migrations to bring the database to (default: every one of prisma/migrations; tests pass fewer). */
  migrations?: Migration[];
}

/** The migrations of prisma/migrations, in order. */
export function readMigrations(): Migration[] {
  return migrationNames().map((name) => {
    const sql = readFileSync(join(migrationsDir, name, 'migration.sql'), 'utf8');
    return { name, sql, checksum: createHash('sha256').update(sql).digest('hex') };
  });
}

function migrationNames(): string[] {
  return existsSync(migrationsDir)
    ? readdirSync(migrationsDir, { withFileTypes: true })
        .filter((d) => d.isDirectory())
        .map((d) => d.name)
        .sort()
    : [];
}

/**
 * What in `sql` cannot run inside a transaction block (each migration is applied in one transaction):
 * statements PostgreSQL refuses there, and transaction control that would end the migration's own.
 * Comments are ignored; PL/pgSQL bodies are not a problem (their BEGIN has no semicolon).
 */
function transactionBlockers(sql: string): string[] {
  const code = sql.replace(/--[^\n]*/g, '');
  const rules: [RegExp, string][] = [
    [/\b(CREATE|DROP)\s+(UNIQUE\s+)?INDEX\s+CONCURRENTLY\b/i, 'CREATE/DROP INDEX CONCURRENTLY'],
    [/\bREINDEX\b[^;]*\bCONCURRENTLY\b/i, 'REINDEX CONCURRENTLY'],
    [/\bVACUUM\b/i, 'VACUUM'],
    [/\b(CREATE|DROP)\s+(DATABASE|TABLESPACE)\b/i, 'CREATE/DROP DATABASE or TABLESPACE'],
    [/\bALTER\s+SYSTEM\b/i, 'ALTER SYSTEM'],
    [/^\s*(BEGIN|START\s+TRANSACTION|COMMIT|ROLLBACK|ABORT)(\s+(WORK|TRANSACTION))?\s*;/im, 'transaction control (BEGIN/COMMIT/ROLLBACK)'],
  ];
  return rules.filter(([pattern]) => pattern.test(code)).map(([, what]) => what);
}

/** One transaction on one connection: scripts of several statements, and queries with parameters. */
interface MigrationTransaction {
  exec(script: string): Promise<void>;
  query<Row>(text: string, params?: unknown[]): Promise<Row[]>;
}
type InTransaction = <T>(work: (tx: MigrationTransaction) => Promise<T>) => Promise<T>;

/**
 * Transactions on the database behind an adapter factory, through its driver: a connection of the
 * pg pool (BEGIN … COMMIT), or PGlite's exclusive `transaction()`. The Prisma adapters cannot run a
 * script of several statements inside a transaction (and PGlite's runs a script without awaiting it).
 */
function transactionsOf(factory: SqlMigrationAwareDriverAdapterFactory): InTransaction {
  if (factory instanceof ScriptSafePg) {
    const { pool } = factory;
    return (work) =>
      inPoolTransaction(pool, (client) =>
        work({
          exec: async (script) => void (await client.query(script)),
          query: async <Row>(text: string, params: unknown[] = []) => (await client.query(text, params)).rows as Row[],
        }),
      );
  }
  if (factory instanceof PrismaPGlite) {
    // The adapter keeps its PGlite in a private field; its transaction() holds the one connection.
    const pglite = (factory as unknown as { client: PGliteInterface }).client;
    return (work) =>
      pglite.transaction((tx) =>
        work({
          exec: async (script) => void (await tx.exec(script)),
          query: async <Row>(text: string, params: unknown[] = []) => (await tx.query<Row>(text, params)).rows,
        }),
      );
  }
  throw new Error(`Migrations need the database's own driver: ${factory.adapterName} is not supported.`);
}

/**
 * The key of Prisma's migration lock (`pg_advisory_lock(72707369)` in its schema engine): taken for
 * each migration's transaction, it keeps two starting servers (and `prisma migrate deploy`) from
 * applying the same migration at once.
 */
const prismaMigrationLock = 72707369;

/** `_prisma_migrations` exactly as Prisma's schema engine creates it on PostgreSQL. */
const createHistoryTable = `CREATE TABLE IF NOT EXISTS "_prisma_migrations" (
    "id"                    VARCHAR(36) PRIMARY KEY NOT NULL,
    "checksum"              VARCHAR(64) NOT NULL,
    "finished_at"           TIMESTAMPTZ,
    "migration_name"        VARCHAR(255) NOT NULL,
    "logs"                  TEXT,
    "rolled_back_at"        TIMESTAMPTZ,
    "started_at"            TIMESTAMPTZ NOT NULL DEFAULT now(),
    "applied_steps_count"   INTEGER NOT NULL DEFAULT 0
)`;

interface HistoryRow {
  id: string;
  migration_name: string;
  finished: boolean;
  logs: string | null;
}

const readHistory = (tx: MigrationTransaction) =>
  tx.query<HistoryRow>('SELECT id, migration_name, finished_at IS NOT NULL AS finished, logs FROM _prisma_migrations WHERE rolled_back_at IS NULL');

/**
 * SQLSTATEs of re-running a migration whose SQL is already applied: what it creates exists
 * (duplicate_table, duplicate_object, duplicate_column, duplicate_function, duplicate_schema), what it
 * drops or alters is gone (undefined_table, undefined_object, undefined_column, undefined_function).
 */
const alreadyAppliedCodes = new Set(['42P07', '42710', '42701', '42723', '42P06', '42P01', '42704', '42703', '42883']);

/**
 * Applies every pending migration, each in one transaction with its `_prisma_migrations` row (the
 * columns and checksum `prisma migrate deploy` writes), under Prisma's migration lock: a migration and
 * its record commit together or not at all, so a process killed at any point leaves nothing to repair.
 * A row left unfinished by an older version (which recorded a migration's start, applied its SQL as one
 * implicit transaction, then recorded its end) is resolved: its SQL is applied again in the transaction;
 * if that fails only because what it creates already exists (or what it drops is gone) and the row
 * records no error, the SQL had been applied and the row is recorded as finished (`onRecovered`).
 * Returns the names of the migrations applied.
 */
export async function migrate(factory: SqlMigrationAwareDriverAdapterFactory, options: MigrateOptions = {}): Promise<string[]> {
  const migrations = options.migrations ?? readMigrations();
  const inTransaction = transactionsOf(factory);
  const finishedBefore = await inTransaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [prismaMigrationLock]);
    await tx.exec(createHistoryTable);
    return new Set((await readHistory(tx)).filter((row) => row.finished).map((row) => row.migration_name));
  });
  const pending = migrations.filter(({ name }) => !finishedBefore.has(name));
  // Refused before anything is applied: a migration that cannot run in a transaction.
  for (const { name, sql } of pending) {
    const blockers = transactionBlockers(sql);
    if (blockers.length) {
      throw new Error(
        `Migration ${name} cannot run inside a transaction (${blockers.join(', ')}): every migration is applied in one transaction with its record. Write it without that statement (migrations run before the service serves).`,
      );
    }
  }
  const applied: string[] = [];
  for (const [i, migration] of pending.entries()) {
    options.onProgress?.({ index: i + 1, total: pending.length, name: migration.name });
    if (await inTransaction((tx) => applyMigration(tx, migration, options))) applied.push(migration.name);
  }
  // On a Citus coordinator, every table is then placed as declared (src/db/distribution.ts), under the same
  // lock: the tables a migration added are distributed before the service serves.
  await inTransaction(async (tx) => {
    if (!(await isCitus(tx.query))) return;
    await tx.query('SELECT pg_advisory_xact_lock($1)', [prismaMigrationLock]);
    const placed = await distribute(tx.query);
    if (placed.length) options.onDistributed?.(placed);
  });
  return applied;
}

/** Applies one migration in `tx` and records it; false when another process has applied it meanwhile. */
async function applyMigration(tx: MigrationTransaction, migration: Migration, options: MigrateOptions): Promise<boolean> {
  await tx.query('SELECT pg_advisory_xact_lock($1)', [prismaMigrationLock]);
  const rows = (await readHistory(tx)).filter((row) => row.migration_name === migration.name);
  if (rows.some((row) => row.finished)) return false;
  const unfinished = rows.filter((row) => !row.finished);
  if (unfinished.length) {
    // Left by an older version (this one records nothing before its commit): try the SQL again.
    await tx.exec('SAVEPOINT migration');
    try {
      await tx.exec(migration.sql);
    } catch (error) {
      const code = (error as { code?: string }).code;
      if (!code || !alreadyAppliedCodes.has(code) || unfinished.some((row) => row.logs !== null)) throw failed(migration, error);
      await tx.exec('ROLLBACK TO SAVEPOINT migration');
      options.onRecovered?.(
        `Migration ${migration.name} had been applied by a run that stopped before recording it (applying it again: ${(error as Error).message}): recorded it as applied.`,
      );
    }
    // As `prisma migrate resolve` does: the unfinished rows are marked rolled back, a finished row follows.
    await tx.query('UPDATE _prisma_migrations SET rolled_back_at = now() WHERE id = ANY($1::text[])', [unfinished.map((row) => row.id)]);
  } else {
    await tx.exec(migration.sql).catch((error: unknown) => {
      throw failed(migration, error);
    });
  }
  await stallForTests(migration.name);
  await tx.query(
    `INSERT INTO _prisma_migrations (id, checksum, finished_at, migration_name, logs, rolled_back_at, started_at, applied_steps_count)
     VALUES ($1, $2, clock_timestamp(), $3, NULL, NULL, now(), 1)`,
    [randomUUID(), migration.checksum, migration.name],
  );
  return true;
}

/** The error of a migration that failed: nothing of it was applied (its transaction is rolled back). */
function failed(migration: Migration, error: unknown): Error {
  return new Error(
    `Migration ${migration.name} failed, and nothing of it was applied: ${(error as Error).message}. See docs/guides/operations.md, "Migrations".`,
    { cause: error },
  );
}

/**
 * Test hook (test/integration/process/migrate-kill.test.ts): with TMS_TEST_STALL_IN_MIGRATION=<name>,
 * the migration of that name stalls after its SQL ran, before its record and commit, and says so on
 * stderr, until the process is killed.
 */
async function stallForTests(name: string): Promise<void> {
  if (process.env.TMS_TEST_STALL_IN_MIGRATION !== name) return;
  process.stderr.write(`test hook: stalled inside migration ${name}\n`);
  await new Promise(() => setInterval(() => {}, 60_000));
}

/**
 * Prisma's own engine on the database (its WebAssembly build, the logic of `prisma migrate deploy` and
 * `prisma migrate status`): what `applyMigrations` applies, and then its diagnosis of the history.
 * Tests use it to show that this module's records are the ones the Prisma CLI keeps.
 */
export async function migrateWithPrismaEngine(factory: SqlMigrationAwareDriverAdapterFactory) {
  const engine = await loadEngine(factory);
  const migrationsList = migrationList();
  const { appliedMigrationNames } = await engine.applyMigrations({ migrationsList, filters: noFilters });
  const diagnosis = await engine.diagnoseMigrationHistory({ migrationsList, optInToShadowDatabase: false, filters: noFilters });
  return { applied: appliedMigrationNames, diagnosis };
}

/** The migrations as the schema engine takes them (`createMigration`). */
function migrationList(): MigrationList {
  const lockPath = join(migrationsDir, 'migration_lock.toml');
  return {
    baseDir: migrationsDir,
    lockfile: { path: 'migration_lock.toml', content: existsSync(lockPath) ? readFileSync(lockPath, 'utf8') : null },
    shadowDbInitScript: '',
    migrationDirectories: readMigrations().map(({ name, sql }) => ({
      path: name,
      migrationFile: { path: 'migration.sql', content: { tag: 'ok', value: sql } },
    })),
  };
}

/** Writes prisma/migrations/<timestamp>_<name>/migration.sql for what the schema adds; null when nothing. */
export async function createMigration(name: string): Promise<string | null> {
  const scratch = new PGlite('memory://', { extensions: pgliteExtensions });
  const shadows: PGlite[] = [];
  try {
    const factory = new PrismaPGlite(scratch);
    // The adapter's shadow database is a bare PGlite: give it the extensions the migrations create.
    factory.connectToShadowDb = () => {
      const shadow = new PGlite('memory://', { extensions: pgliteExtensions });
      shadows.push(shadow);
      return new PrismaPGlite(shadow).connect();
    };
    const engine = await loadEngine(factory);
    const migrations = migrationList();
    const { stdout } = await engine.diff({
      from: migrations.migrationDirectories.length ? { tag: 'migrations', ...migrations } : { tag: 'empty' },
      to: { tag: 'schemaDatamodel', files: [{ path: schemaPath, content: readFileSync(schemaPath, 'utf8') }] },
      script: true,
      exitCode: null,
      // load_cities' key INCLUDEs a column, which Prisma cannot write: its migration is hand-written, and the
      // diff leaves the table alone (its model is @@ignore'd in schema.prisma).
      filters: { externalTables: ['public.load_cities'], externalEnums: [] },
    });
    if (!stdout || !/\b(CREATE|ALTER|DROP)\b/.test(stdout)) return null;
    const stamp = new Date().toISOString().replace(/\D/g, '').slice(0, 14);
    const dir = join(migrationsDir, `${stamp}_${name.replace(/\W+/g, '_')}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'migration.sql'), stdout);
    const lockPath = join(migrationsDir, 'migration_lock.toml');
    if (!existsSync(lockPath)) writeFileSync(lockPath, 'provider = "postgresql"\n');
    return dir;
  } finally {
    await Promise.all([scratch, ...shadows].map((db) => db.close().catch(() => {})));
  }
}
