/**
 * What every start prints once the server listens: the URLs, and the one thing to do next. On a
 * fresh embedded database that is tenant `demo` and its key (created here, after listening, so a
 * port in use cannot lose it); on PostgreSQL without tenants, how to create one.
 */
import type { Config } from './config.js';
import type { Database } from './db/database.js';
import { countTenants, createTenant, findTenantBySlug } from './domain/tenant/service.js';
import type { Logger } from './logger.js';

const demoSlug = 'demo';

function urls(base: string) {
  return `  API:            ${base}/api/v1   (start page: ${base}/)
  Console:        ${base}/console
  GraphiQL:       ${base}/graphql
  API reference:  ${base}/api/v1/docs   (OpenAPI: ${base}/api/v1/openapi.json)
  Health:         ${base}/healthz   ${base}/readyz
`;
}

function demoBanner(apiKey: string, base: string) {
  return `
First run: created tenant "${demoSlug}". Its API key is shown once; keep it:

  ${apiKey}

Post a load:

  curl -s ${base}/api/v1/loads/upsert \\
    -H 'Content-Type: application/json' -H 'X-API-Key: ${apiKey}' \\
    -d '{"native_system_load_permalink":"L100-demo","native_system_load_id":"L100","native_system_load_status":"Booked"}'

Fill it with example data: npm run seed -- --key ${apiKey} --url ${base}
In GraphiQL, put the key in the Headers pane: {"X-API-Key": "<key>"}.
`;
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
export async function startupMessage(config: Config, db: Database, log: Logger, base: string): Promise<Startup> {
  let next = '';
  let demoApiKey: string | null = null;
  try {
    ({ next, demoApiKey } = await tenantHints(config, db, log, base));
  } catch (error) {
    log.warn({ err: error }, 'start-up: the database failed while reading the tenants; serving anyway (the hints are left out)');
  }
  return { message: `${next}\ntms-ingest is running:\n${urls(base)}\n`, demoApiKey };
}

async function tenantHints(config: Config, db: Database, log: Logger, base: string): Promise<{ next: string; demoApiKey: string | null }> {
  const tenants = await countTenants(db);
  if (config.db.url) {
    return {
      next:
        tenants === 0
          ? `
No tenants yet. Create one (prints its API key):

  npm run tenant -- create <slug> --name "<name>"
`
          : '',
      demoApiKey: null,
    };
  }
  if (tenants === 0) {
    const { apiKey } = await createTenant(db, { slug: demoSlug, name: 'Demo tenant' });
    log.info({ tenant: demoSlug }, 'created tenant demo (first run)');
    return { next: demoBanner(apiKey, base), demoApiKey: apiKey };
  }
  if (await findTenantBySlug(db, demoSlug)) {
    return {
      next: `
Lost the demo key? Stop the server and run: npm run tenant -- rotate-key ${demoSlug}
`,
      demoApiKey: null,
    };
  }
  return { next: '', demoApiKey: null };
}
