/**
 * Vitest global setup of the database tests: migrates one template per run, which every test database
 * then copies (./database.ts) instead of being created empty and migrated again.
 * - PostgreSQL (DATABASE_URL set): a database `tms_template_<hex>` next to the one the URL names,
 *   closed to connections once migrated (`CREATE DATABASE … TEMPLATE` refuses a template anyone is
 *   connected to; copies in parallel are fine), dropped at the end of the run.
 * - PGlite: the migrated data directory, dumped to a tar file in a temporary folder (removed at the end).
 * - A Citus cluster (DATABASE_URL names a database on the coordinator, TEST_CITUS=1; docs/guides/citus.md,
 *   "Tests on a cluster"): every database is created on the coordinator and on each worker the coordinator's
 *   `pg_dist_node` lists, with the `citus` extension in each and the workers registered in the coordinator's;
 *   the migrations then distribute the template's tables (src/db/distribution.ts), and a test database is the
 *   template copied on every node (`CREATE DATABASE … TEMPLATE` per node: the copies keep the shards and the
 *   metadata that names them).
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

/** DATABASE_URL naming another database on the same server (or, given a worker's host and port, on that node). */
export function databaseUrl(name: string, node?: { host: string; port: number }): string {
  const url = new URL(process.env.DATABASE_URL!);
  url.pathname = `/${name}`;
  if (node) {
    url.hostname = node.host;
    url.port = String(node.port);
  }
  return url.toString();
}

/** True in the Citus mode of the harness (TEST_CITUS=1 with DATABASE_URL on a coordinator). */
export const onCitus = () => Boolean(process.env.DATABASE_URL) && process.env.TEST_CITUS === '1';

/** The cluster's workers, as the coordinator's database DATABASE_URL names registers them. */
async function citusWorkers(): Promise<{ host: string; port: number }[]> {
  return adminQuery<{ host: string; port: number }>(
    `SELECT nodename AS host, nodeport AS port FROM pg_dist_node WHERE groupid <> 0 AND noderole = 'primary' ORDER BY nodeid`,
  );
}

/**
 * Creates a database (from `template`, or empty) on the server DATABASE_URL names, and in the Citus mode on
 * every worker too: an empty one gets the `citus` extension on each node and the workers registered in the
 * coordinator's; a copy of a template keeps the template's extension, shards and metadata.
 */
export async function createDatabase(name: string, template?: string): Promise<void> {
  const create = `CREATE DATABASE ${name}${template ? ` TEMPLATE ${template}` : ''}`;
  if (!onCitus()) return void (await adminQuery(create));
  const workers = await citusWorkers();
  await Promise.all([adminQuery(create), ...workers.map((node) => adminQuery(create, [], databaseUrl('postgres', node)))]);
  if (template) return;
  const coordinator = new URL(process.env.DATABASE_URL!);
  await Promise.all(workers.map((node) => adminQuery('CREATE EXTENSION citus', [], databaseUrl(name, node))));
  await adminQuery('CREATE EXTENSION citus', [], databaseUrl(name));
  await adminQuery('SELECT citus_set_coordinator_host($1, $2)', [coordinator.hostname, Number(coordinator.port || 5432)], databaseUrl(name));
  for (const node of workers) await adminQuery('SELECT citus_add_node($1, $2)', [node.host, node.port], databaseUrl(name));
}

/** Drops a database made by `createDatabase` (on every node in the Citus mode). */
export async function dropDatabase(name: string): Promise<void> {
  if (!onCitus()) return void (await adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
  const nodes = [process.env.DATABASE_URL, ...(await citusWorkers()).map((node) => databaseUrl('postgres', node))];
  await Promise.all(nodes.map((url) => dropOnCitusNode(name, url)));
}

/**
 * `DROP DATABASE … WITH (FORCE)` on a Citus node: FORCE ends the database's client connections, not Citus's
 * maintenance daemon of it (a background worker), which may hold it a moment longer ("is being accessed by
 * other users", 55006): the daemon is ended and the drop run again.
 */
async function dropOnCitusNode(name: string, url: string | undefined): Promise<void> {
  for (let attempt = 1; ; attempt++) {
    try {
      return void (await adminQuery(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`, [], url));
    } catch (error) {
      if ((error as { code?: string }).code !== '55006' || attempt === 20) throw error;
      await adminQuery('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [name], url);
      await sleep(50 * attempt);
    }
  }
}

/** Closes a template to connections on every node (CREATE DATABASE … TEMPLATE refuses one anyone is connected to). */
async function closeTemplate(name: string): Promise<void> {
  const nodes = onCitus() ? [undefined, ...(await citusWorkers())] : [undefined];
  for (const node of nodes) {
    const url = node ? databaseUrl('postgres', node) : process.env.DATABASE_URL;
    await adminQuery(`ALTER DATABASE ${name} ALLOW_CONNECTIONS false`, [], url);
    // A closed connection's server process may outlive it briefly; Citus's maintenance daemon of the
    // database (a background worker) is ended: it cannot reconnect now.
    for (;;) {
      const left = await adminQuery<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [name], url);
      if (!left.length) break;
      if (onCitus()) await adminQuery('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()', [name], url);
      await sleep(50);
    }
  }
}

async function postgresTemplate() {
  const name = `tms_template_${randomBytes(6).toString('hex')}`;
  await createDatabase(name);
  const drop = () => dropDatabase(name);
  try {
    const db = await openDatabase({ url: databaseUrl(name), dataDir: '' });
    try {
      await migrate(db.adapterFactory);
    } finally {
      await db.close();
    }
    await closeTemplate(name);
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
