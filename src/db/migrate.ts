/**
 * Applies prisma/migrations with Prisma's WebAssembly schema engine (the native engine cannot be
 * downloaded here; see docs/decisions/0008-migrations-with-the-wasm-schema-engine.md). Records them in `_prisma_migrations`, exactly as
 * `prisma migrate deploy` does, so the Prisma CLI keeps working on the same database.
 *
 * As a script (`npm run db:migrate`): applies pending migrations to DATABASE_URL (or DATA_DIR).
 * With `--create <name>`: writes a new migration from the difference between the migrations and
 * prisma/schema.prisma (computed on a throwaway in-memory database).
 */
import { readdirSync, readFileSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { SqlMigrationAwareDriverAdapterFactory } from '@prisma/driver-adapter-utils';
import { bindMigrationAwareSqlAdapterFactory } from '@prisma/driver-adapter-utils';
import type { MigrationList, SchemaEngine } from '@prisma/schema-engine-wasm';
import { codeFile, projectRoot } from '../paths.js';
import type { Database } from './database.js';

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

function listMigrations(): MigrationList {
  const dirs = existsSync(migrationsDir)
    ? readdirSync(migrationsDir, { withFileTypes: true })
        .filter((d) => d.isDirectory())
        .map((d) => d.name)
        .sort()
    : [];
  const lockPath = join(migrationsDir, 'migration_lock.toml');
  return {
    baseDir: migrationsDir,
    lockfile: { path: 'migration_lock.toml', content: existsSync(lockPath) ? readFileSync(lockPath, 'utf8') : null },
    shadowDbInitScript: '',
    migrationDirectories: dirs.map((name) => ({
      path: name,
      migrationFile: {
        path: 'migration.sql',
        content: { tag: 'ok', value: readFileSync(join(migrationsDir, name, 'migration.sql'), 'utf8') },
      },
    })),
  };
}

const noFilters = { externalTables: [], externalEnums: [] };

/**
 * True unless `_prisma_migrations` records every migration of prisma/migrations as finished (the usual
 * restart): one query, and the schema engine (a WebAssembly module of some 30 MB, and seconds of
 * start-up on a busy machine) is not loaded.
 */
export async function migrationsPending(db: Database): Promise<boolean> {
  let rows: { migration_name: string; finished: boolean }[];
  try {
    rows = await db.sql.query('SELECT migration_name, finished_at IS NOT NULL AS finished FROM _prisma_migrations WHERE rolled_back_at IS NULL', []);
  } catch {
    return true; // no migration table yet (a fresh database)
  }
  const finished = new Set(rows.filter((row) => row.finished).map((row) => row.migration_name));
  return !rows.every((row) => row.finished) || !listMigrations().migrationDirectories.every(({ path }) => finished.has(path));
}

/** `migrate`, unless no migration is pending (`migrationsPending`). In this thread: the engine stays loaded. */
export async function migrateIfPending(db: Database): Promise<string[]> {
  return (await migrationsPending(db)) ? migrate(db.adapterFactory) : [];
}

/**
 * Applies every pending migration in a worker thread, on a database of its own (PostgreSQL: one
 * connection; PGlite: the directory, whose lock this process must hold, opened and closed by the
 * worker). What the schema engine and a fresh PGlite's initdb grow (some 200 MB of WebAssembly memory
 * and malloc'd compiler memory) is returned when the worker ends, instead of staying in the server for
 * its whole life (docs/guides/production-build.md, "Footprint").
 */
export async function migrateInWorker(options: { url?: string; dataDir: string }): Promise<string[]> {
  // Compiled: dist/db/migrate-worker.js (an entry of the bundle); under tsx and vitest: the source.
  const worker = new Worker(codeFile('db/migrate-worker.ts'), {
    workerData: { url: options.url, dataDir: options.dataDir } satisfies MigrateWorkerData,
  });
  return new Promise<string[]>((resolve, reject) => {
    let applied: string[] | null = null;
    // The worker posts once it has closed the database: nothing is left to wait for.
    worker.once('message', (message: string[]) => {
      applied = message;
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

/** Applies every pending migration; returns the names of those just applied. */
export async function migrate(adapterFactory: SqlMigrationAwareDriverAdapterFactory): Promise<string[]> {
  const engine = await loadEngine(adapterFactory);
  const { appliedMigrationNames } = await engine.applyMigrations({
    migrationsList: listMigrations(),
    filters: noFilters,
  });
  return appliedMigrationNames;
}

/** Writes prisma/migrations/<timestamp>_<name>/migration.sql for what the schema adds; null when nothing. */
export async function createMigration(name: string): Promise<string | null> {
  const { PGlite } = await import('@electric-sql/pglite');
  const { PrismaPGlite } = await import('pglite-prisma-adapter');
  const { pgliteExtensions } = await import('./database.js');
  const scratch = new PGlite('memory://', { extensions: pgliteExtensions });
  const shadows: InstanceType<typeof PGlite>[] = [];
  try {
    const factory = new PrismaPGlite(scratch);
    // The adapter's shadow database is a bare PGlite: give it the extensions the migrations create.
    factory.connectToShadowDb = () => {
      const shadow = new PGlite('memory://', { extensions: pgliteExtensions });
      shadows.push(shadow);
      return new PrismaPGlite(shadow).connect();
    };
    const engine = await loadEngine(factory);
    const migrations = listMigrations();
    const { stdout } = await engine.diff({
      from: migrations.migrationDirectories.length ? { tag: 'migrations', ...migrations } : { tag: 'empty' },
      to: { tag: 'schemaDatamodel', files: [{ path: schemaPath, content: readFileSync(schemaPath, 'utf8') }] },
      script: true,
      exitCode: null,
      filters: noFilters,
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
