/**
 * Process entry: config → database → migrations → (first run: demo tenant) → app → listen.
 * SIGTERM/SIGINT: stop accepting, finish in-flight requests, flush ingest accounting, close the database.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from './app.js';
import { systemClock } from './clock.js';
import { loadConfig, type Config } from './config.js';
import { DatabaseInUseError, openDatabase, type Database } from './db/database.js';
import { migrate } from './db/migrate.js';
import { createIngestRecorder } from './domain/ingest-health/recorder.js';
import { countTenants, createTenant } from './domain/tenant/service.js';
import { isDatabaseUnavailable } from './errors.js';
import { createLogger, type Logger } from './logger.js';

/**
 * On a fresh embedded database, creates tenant `demo` and returns its key (never with DATABASE_URL:
 * production databases get their tenants from the CLI).
 */
async function createDemoTenant(config: Config, db: Database, log: Logger): Promise<string | null> {
  if (config.db.url || (await countTenants(db)) > 0) return null;
  const { apiKey } = await createTenant(db, { slug: 'demo', name: 'Demo tenant' });
  log.info({ tenant: 'demo' }, 'created tenant demo (first run)');
  return apiKey;
}

/** The first-run banner: the demo key, shown once, and a request to paste. */
function printDemoBanner(apiKey: string, base: string) {
  process.stdout.write(`
First run: created tenant "demo". Its API key is shown once; keep it:

  ${apiKey}

Post a load:

  curl -s ${base}/api/v1/loads/upsert \\
    -H 'Content-Type: application/json' -H 'X-API-Key: ${apiKey}' \\
    -d '{"native_system_load_permalink":"L100-demo","native_system_load_id":"L100","native_system_load_status":"Booked"}'

GraphiQL: ${base}/graphql (put {"X-API-Key": "<key>"} in the headers pane)
OpenAPI:  ${base}/api/v1/openapi.json

`);
}

const listen = (server: Server, port: number, host: string) =>
  new Promise<AddressInfo>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve(server.address() as AddressInfo));
  });

async function main() {
  const config = loadConfig(process.env);
  const logger = createLogger(config.log.level);
  const db = await openDatabase(config.db);
  const applied = await migrate(db.adapterFactory);
  if (applied.length) logger.info({ applied }, 'applied migrations');
  const demoKey = await createDemoTenant(config, db, logger);

  const recorder = createIngestRecorder({ db, clock: systemClock, logger, flushIntervalMs: config.ingest.flushIntervalMs });
  const app = createApp({ config, db, logger, clock: systemClock, recorder });
  const server = createServer(app);
  const { port } = await listen(server, config.http.port, config.http.host);
  const base = `http://localhost:${port}`;
  logger.info({ port, database: db.kind }, `tms-ingest listening on ${base}`);
  if (demoKey) printDemoBanner(demoKey, base);

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down: finishing in-flight requests');
    const force = setTimeout(() => {
      logger.warn('shutdown timeout: closing remaining connections');
      server.closeAllConnections();
    }, config.http.shutdownTimeoutMs);
    force.unref();
    await new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeIdleConnections();
    });
    await recorder.close();
    await db.close();
    logger.info('stopped');
    process.exit(0);
  };
  const onSignal = (signal: string) =>
    stop(signal).catch((error) => {
      logger.error({ err: error }, 'shutdown failed');
      process.exit(1);
    });
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}

main().catch((error) => {
  // Expected start-up failures get one plain line; anything else keeps its stack.
  if (error instanceof DatabaseInUseError || /Invalid configuration/.test(String(error?.message))) console.error(error.message);
  else if (isDatabaseUnavailable(error)) console.error(`The database is unreachable: ${error.message}`);
  else if ((error as NodeJS.ErrnoException)?.code === 'EADDRINUSE') console.error(`The port is in use: ${error.message}`);
  else console.error(error);
  process.exit(1);
});
