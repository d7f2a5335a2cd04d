/**
 * The databases the process-level tests (tenant CLI, server) run against: a fresh embedded PGlite
 * directory, or a fresh PostgreSQL database when DATABASE_URL is set. A target gives the
 * environment for the child process and opens the same database in the test process.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openDatabase, type Database } from '../../../src/db/database.js';
import { apiFor, createTestApp, type TestApp } from '../../helpers/app.js';
import { createTestDatabase } from '../../setup/database.js';

export const repoRoot = fileURLToPath(new URL('../../..', import.meta.url));

export interface Target {
  name: 'pglite' | 'postgres';
  /** Environment for a child process (DATABASE_URL blank on PGlite: the config treats it as unset). */
  env: Record<string, string>;
  /** Runs `fn` with the database open in this process (PGlite: closed again after, to free the lock). */
  withDatabase<T>(fn: (db: Database) => Promise<T>): Promise<T>;
  cleanup(): Promise<void>;
}

export function pgliteTarget(): Target {
  const dataDir = mkdtempSync(join(tmpdir(), 'tms-ingest-test-'));
  return {
    name: 'pglite',
    env: { DATA_DIR: dataDir, DATABASE_URL: '' },
    async withDatabase(fn) {
      const db = await openDatabase({ dataDir });
      try {
        return await fn(db);
      } finally {
        await db.close();
      }
    },
    async cleanup() {
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export async function postgresTarget(): Promise<Target> {
  const database = await createTestDatabase();
  return {
    name: 'postgres',
    env: { DATABASE_URL: database.url!, DATA_DIR: '/nonexistent-with-database-url' },
    withDatabase: (fn) => fn(database.db),
    cleanup: () => database.drop(),
  };
}

/**
 * The target of this run, as for every test: PGlite by default, PostgreSQL when DATABASE_URL is set
 * (CI runs the suite both ways). Tests of PGlite-only behaviour use `pgliteTarget` directly.
 */
export const targets: { name: Target['name']; create(): Promise<Target> }[] = process.env.DATABASE_URL
  ? [{ name: 'postgres', create: postgresTarget }]
  : [{ name: 'pglite', create: async () => pgliteTarget() }];

/** The environment of a child process: ours, quiet, plus the target's. */
export const childEnv = (env: Record<string, string>) => ({ ...process.env, LOG_LEVEL: 'silent', NODE_ENV: 'test', ...env });

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Node's arguments that run compiled `dist/<name>.js` as the npm scripts do (`npm start`: `main`,
 * `npm run tenant`: `cli/tenant`); test/setup/build.ts builds dist/ before the tests run.
 */
export const compiled = (name: string) => ['--enable-source-maps', `dist/${name}.js`];

/** Runs `npm run tenant -- <args>` as a real child process (the compiled CLI, as the npm script does). */
export function runTenantCli(args: string[], env: Record<string, string>): Promise<CliResult> {
  return new Promise((done) => {
    execFile(process.execPath, [...compiled('cli/tenant'), ...args], { cwd: repoRoot, env: childEnv(env) }, (error, stdout, stderr) => {
      done({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr });
    });
  });
}

/** Runs `fn` with an in-process app over the target's database and request helpers for `apiKey`. */
export function withApi<T>(target: Target, apiKey: string, fn: (api: ReturnType<typeof apiFor>, testApp: TestApp) => Promise<T>): Promise<T> {
  return target.withDatabase(async (db) => {
    const testApp = await createTestApp({ database: { db, url: null, drop: async () => {} } });
    try {
      return await fn(apiFor(testApp, apiKey), testApp);
    } finally {
      await testApp.close();
    }
  });
}
