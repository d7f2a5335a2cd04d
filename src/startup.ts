/**
 * What every start prints once the server listens, as one block after a blank line (apart from the
 * JSON log): the URLs, and the one thing to do next. On a fresh embedded database that is tenant
 * `demo` and its key (created here, after listening, so a port in use cannot lose it), and with
 * `--demo-data` what was filled; on PostgreSQL without tenants, how to create one.
 */
import type { Config } from './config.js';
import type { Database } from './db/database.js';
import { countTenants, createTenant, findTenantBySlug } from './domain/tenant/service.js';
import type { Logger } from './logger.js';

const demoSlug = 'demo';

/**
 * Where the server listens, for people: the base URL to use, and the address for the start-up line.
 * An unspecified host (`HOST=0.0.0.0` or `::`, every interface) is said as such; the URL to use from
 * this machine is then localhost's. An IPv6 address is bracketed in URLs.
 */
export function serverAddress(host: string, port: number): { base: string; listening: string; allInterfaces: boolean } {
  if (host === '' || host === '0.0.0.0' || host === '::') {
    const base = `http://localhost:${port}`;
    return { base, listening: `${host || '0.0.0.0'} port ${port}, every interface (from this machine: ${base})`, allInterfaces: true };
  }
  const base = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  return { base, listening: base, allInterfaces: false };
}

function urls(base: string) {
  return `  API:            ${base}/api/v1   (start page: ${base}/)
  Console:        ${base}/console
  GraphiQL:       ${base}/graphql
  API reference:  ${base}/api/v1/docs   (OpenAPI: ${base}/api/v1/openapi.json)
  Health:         ${base}/healthz   ${base}/readyz
`;
}

function demoBanner(apiKey: string, base: string, demoData: string | null) {
  return `First run: created tenant "${demoSlug}". Its API key is shown once; keep it:

  ${apiKey}

Post a load:

  curl -s ${base}/api/v1/loads/upsert \\
    -H 'Content-Type: application/json' -H 'X-API-Key: ${apiKey}' \\
    -d '{"native_system_load_permalink":"L100-demo","native_system_load_id":"L100","native_system_load_status":"Booked"}'

${demoData ?? `Fill it with example data: npm run seed -- --key ${apiKey} --url ${base}\n`}In GraphiQL, put the key in the Headers pane: {"X-API-Key": "${apiKey}"}
`;
}

export interface StartupOptions {
  /**
   * `--demo-data`: fills the demo tenant given the key this start created (null: none was created)
   * and returns the line(s) saying what it did, which replace the advice to seed.
   */
  demoData?: (apiKey: string | null) => Promise<string>;
  /** `HOST=0.0.0.0` (or `::`): the server listens on every interface, which the block says. */
  allInterfaces?: boolean;
}

export interface Startup {
  /** The lines to print. */
  message: string;
  /** The demo tenant's API key when this start created the tenant (it is shown once), else null. */
  demoApiKey: string | null;
}

/**
 * Creates the demo tenant on a fresh embedded database; returns the lines to print (and the new key).
 * It runs after the server listens: should the database fail now (a restart, dropped connections),
 * the hints are left out and the URLs still printed; the service keeps serving (503 until it is back).
 */
export async function startupMessage(config: Config, db: Database, log: Logger, base: string, options: StartupOptions = {}): Promise<Startup> {
  let next = '';
  let demoApiKey: string | null = null;
  try {
    ({ next, demoApiKey } = await tenantHints(config, db, log, base, options));
  } catch (error) {
    log.warn({ err: error }, 'start-up: the database failed while reading the tenants; serving anyway (the hints are left out)');
  }
  const where = options.allInterfaces ? " (on every interface: from another machine, use this one's name or address)" : '';
  return { message: `\n${next}${next ? '\n' : ''}tms-ingest is running${where}:\n${urls(base)}\n`, demoApiKey };
}

async function tenantHints(
  config: Config,
  db: Database,
  log: Logger,
  base: string,
  options: StartupOptions,
): Promise<{ next: string; demoApiKey: string | null }> {
  const tenants = await countTenants(db);
  if (!config.db.url && tenants === 0) {
    const { apiKey } = await createTenant(db, { slug: demoSlug, name: 'Demo tenant' });
    log.info({ tenant: demoSlug }, 'created tenant demo (first run)');
    const demoData = options.demoData ? await options.demoData(apiKey) : null;
    return { next: demoBanner(apiKey, base, demoData), demoApiKey: apiKey };
  }
  const demoData = options.demoData ? `${await options.demoData(null)}\n` : '';
  if (config.db.url) {
    return {
      next:
        tenants === 0
          ? `${demoData}No tenants yet. Create one (prints its API key):

  npm run tenant -- create <slug> --name "<name>"
`
          : demoData,
      demoApiKey: null,
    };
  }
  if (await findTenantBySlug(db, demoSlug)) {
    return { next: `${demoData}Lost the demo key? Stop the server and run: npm run tenant -- rotate-key ${demoSlug}\n`, demoApiKey: null };
  }
  return { next: demoData, demoApiKey: null };
}
