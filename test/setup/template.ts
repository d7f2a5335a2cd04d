/**
 * Vitest global setup of the database tests: migrates one template per run, which every test database
 * then copies (./database.ts) instead of being created empty and migrated again.
 * - PostgreSQL (DATABASE_URL set): a database `tms_template_<hex>` next to the one the URL names,
 *   closed to connections once migrated (`CREATE DATABASE … TEMPLATE` refuses a template anyone is
 *   connected to; copies in parallel are fine), dropped at the end of the run.
 * - PGlite: the migrated data directory, dumped to a tar file in a temporary folder (removed at the end).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { PGlite } from '@electric-sql/pglite';
import pg from 'pg';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import type { TestProject } from 'vitest/node';
import { openDatabase, pgliteExtensions } from '../../src/db/database.js';
import { migrate } from '../../src/db/migrate.js';

export type DatabaseTemplate = { kind: 'postgres'; name: string } | { kind: 'pglite'; dumpPath: string };

declare module 'vitest' {
  export interface ProvidedContext {
    databaseTemplate: DatabaseTemplate;
  }
}

/** Runs one statement on its own connection, by default to the database DATABASE_URL names (where databases are created and dropped). */
export async function adminQuery<Row extends pg.QueryResultRow = pg.QueryResultRow>(
  sql: string,
  params: unknown[] = [],
  url = process.env.DATABASE_URL,
): Promise<Row[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<Row>(sql, params)).rows;
  } finally {
    await client.end();
  }
}

/** DATABASE_URL naming another database on the same server. */
export function databaseUrl(name: string): string {
  const url = new URL(process.env.DATABASE_URL!);
  url.pathname = `/${name}`;
  return url.toString();
}

async function postgresTemplate() {
  const name = `tms_template_${randomBytes(6).toString('hex')}`;
  await adminQuery(`CREATE DATABASE ${name}`);
  const drop = async () => void (await adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
  try {
    const db = await openDatabase({ url: databaseUrl(name), dataDir: '' });
    try {
      await migrate(db.adapterFactory);
    } finally {
      await db.close();
    }
    await adminQuery(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`);
    // A closed connection's server process may outlive it briefly: wait until none is left.
    while ((await adminQuery('SELECT 1 FROM pg_stat_activity WHERE datname = $1', [name])).length > 0) await sleep(50);
  } catch (error) {
    await drop();
    throw error;
  }
  return { template: { kind: 'postgres', name } satisfies DatabaseTemplate, drop };
}

async function pgliteTemplate() {
  const pglite = await PGlite.create('memory://', { extensions: pgliteExtensions });
  let dump: Blob;
  try {
    await migrate(new PrismaPGlite(pglite));
    dump = await pglite.dumpDataDir('none'); // uncompressed loads fastest
  } finally {
    await pglite.close();
  }
  const dir = mkdtempSync(join(tmpdir(), 'tms-ingest-template-'));
  const dumpPath = join(dir, 'pgdata.tar');
  writeFileSync(dumpPath, Buffer.from(await dump.arrayBuffer()));
  return { template: { kind: 'pglite', dumpPath } satisfies DatabaseTemplate, drop: async () => rmSync(dir, { recursive: true, force: true }) };
}

// Used by vitest.config.ts, which names this file as a globalSetup.
// ts-unused-exports:disable-next-line
export default async function setup(project: TestProject) {
  const { template, drop } = process.env.DATABASE_URL ? await postgresTemplate() : await pgliteTemplate();
  project.provide('databaseTemplate', template);
  return drop;
}
