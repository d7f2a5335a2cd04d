/**
 * The bench on a Citus cluster: DATABASE_URL names a database on a coordinator whose `pg_dist_node` lists
 * the workers (docs/guides/citus.md). Citus does not pass CREATE DATABASE on to the workers, so the bench's
 * scratch database is made on every node, with the extension in each and the workers registered in the
 * coordinator's, as the tests' Citus mode does (test/setup/template.ts); the service's first start (the
 * tenant CLI's migrations) then places every table.
 */
import pg from 'pg';

export interface Node {
  host: string;
  port: number;
}

async function query<Row extends pg.QueryResultRow>(url: string, text: string, params: unknown[] = []): Promise<Row[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<Row>(text, params)).rows;
  } finally {
    await client.end();
  }
}

/** The URL of `database` on `node` (the base URL's user and options), or on the base's own server. */
function urlOf(base: string, database: string, node?: Node): string {
  const url = new URL(base);
  url.pathname = `/${database}`;
  if (node) {
    url.hostname = node.host;
    url.port = String(node.port);
  }
  return url.toString();
}

/** The workers of the coordinator DATABASE_URL names, or null when it is no Citus coordinator. */
export async function citusWorkers(base: string): Promise<Node[] | null> {
  const [citus] = await query<{ found: boolean }>(base, `SELECT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus') AS found`);
  if (!citus?.found) return null;
  const rows = await query<{ host: string; port: number }>(
    base,
    `SELECT nodename AS host, nodeport AS port FROM pg_dist_node WHERE groupid <> 0 AND noderole = 'primary' ORDER BY nodeid`,
  );
  return rows;
}

/** Creates `database` on the coordinator and every worker, with the extension in each and the workers registered. */
export async function createCitusDatabase(base: string, database: string, workers: readonly Node[]): Promise<void> {
  const coordinator = new URL(base);
  await query(base, `CREATE DATABASE "${database}"`);
  for (const node of workers) {
    await query(urlOf(base, 'postgres', node), `CREATE DATABASE "${database}"`);
    await query(urlOf(base, database, node), 'CREATE EXTENSION citus');
  }
  const url = urlOf(base, database);
  await query(url, 'CREATE EXTENSION citus');
  await query(url, 'SELECT citus_set_coordinator_host($1, $2)', [coordinator.hostname, Number(coordinator.port || 5432)]);
  for (const node of workers) await query(url, 'SELECT citus_add_node($1, $2)', [node.host, node.port]);
}

/** Drops `database` on the coordinator and every worker. */
export async function dropCitusDatabase(base: string, database: string, workers: readonly Node[]): Promise<void> {
  await query(base, `DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
  for (const node of workers) await query(urlOf(base, 'postgres', node), `DROP DATABASE IF EXISTS "${database}" WITH (FORCE)`);
}
