/**
 * Process entry: config → database → migrations → (first run: demo tenant) → app → listen.
 * SIGTERM/SIGINT: stop accepting, finish in-flight requests, flush ingest accounting, close the database.
 */
import { createServer } from 'node:http';
import { createApp } from './app.js';
import { systemClock } from './clock.js';
import { loadConfig, type Config } from './config.js';
import { DatabaseInUseError, openDatabase, type Database } from './db/database.js';
import { migrate } from './db/migrate.js';
import { createIngestRecorder } from './domain/ingest-health/recorder.js';
import { countTenants, createTenant } from './domain/tenant/service.js';
import { createLogger, type Logger } from './logger.js';

/** On a fresh embedded database, creates tenant `demo` and prints its key once (never with DATABASE_URL). */
async function createDemoTenant(config: Config, db: Database, log: Logger) {
  if (config.db.url || (await countTenants(db)) > 0) return;
  const { apiKey } = await createTenant(db, { slug: 'demo', name: 'Demo tenant' });
  const base = `http://localhost:${config.http.port}`;
  log.info({ tenant: 'demo' }, 'created tenant demo (first run)');
  process.stdout.write(`
First run: created tenant "demo". Its API key is shown once; keep it:

  ${apiKey}

Post a load:

  curl -s ${base}/api/v1/loads/upsert \\
    -H 'Content-Type: application/json' -H 'X-API-Key: ${apiKey}' \\
    -d '{"native_system_load_permalink":"L100-demo","native_system_load_id":"L100","native_system_load_status":"Booked"}'

GraphiQL: ${base}/graphql (put {"X-API-Key": "<key>"} in the headers pane)

`);
}

async function main() {
  const config = loadConfig(process.env);
  const logger = createLogger(config.log.level);
  const db = await openDatabase(config.db);
  const applied = await migrate(db.adapterFactory);
  if (applied.length) logger.info({ applied }, 'applied migrations');
  await createDemoTenant(config, db, logger);

  const recorder = createIngestRecorder({ db, clock: systemClock, logger, flushIntervalMs: config.ingest.flushIntervalMs });
  const app = createApp({ config, db, logger, clock: systemClock, recorder });
  const server = createServer(app);
  server.listen(config.http.port, config.http.host, () => {
    logger.info({ port: config.http.port, database: db.kind }, `tms-ingest listening on http://localhost:${config.http.port}`);
  });

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
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

main().catch((error) => {
  if (error instanceof DatabaseInUseError || /Invalid configuration/.test(String(error?.message))) {
    console.error(error.message);
  } else {
    console.error(error);
  }
  process.exit(1);
});
