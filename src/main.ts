/**
 * Process entry: config → database → migrations → app → listen → (first run: demo tenant) → URLs
 * (→ with `--demo-data`, the demo tenant filled with the demo data set, as `npm run seed` does).
 * SIGTERM/SIGINT: stop accepting, answer every request received (finished, or 503 at the shutdown
 * timeout: src/http/drain.ts), finish webhook attempts, flush ingest accounting, close the database.
 */
import { createServer, type Server } from 'node:http';
import { parseArgs } from 'node:util';
import type { AddressInfo } from 'node:net';
import { createApp } from './app.js';
import { answerClientErrors } from './http/client-error.js';
import { createDrain } from './http/drain.js';
import { systemClock } from './clock.js';
import { ConfigError, loadConfig } from './config.js';
import { asBackgroundWork, DatabaseInUseError, isFreshDataDir, openDatabase } from './db/database.js';
import { describeProgress, migrateIfPending, migrateInWorker, migrationsPending, type MigrationEvents } from './db/migrate.js';
import { createEventMaintenance } from './domain/events/maintenance.js';
import { createPayloadHistoryMaintenance } from './domain/payload-history/service.js';
import { createIngestRecorder } from './domain/ingest-health/recorder.js';
import { describeSeed, seedDemoData } from './demo/seed.js';
import { serverAddress, startupMessage } from './startup.js';
import { isDatabaseUnavailable } from './errors.js';
import { createLogger } from './logger.js';
import { pino } from 'pino';
import { startTracing, stopTracing } from './observability/tracing.js';

const listen = (server: Server, port: number, host: string) =>
  new Promise<AddressInfo>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve(server.address() as AddressInfo));
  });

const usage = 'Usage: npm start [-- --demo-data]   (--demo-data: fill the demo tenant created on first run with example data)';

/** The command line: `--demo-data` only (anything else is a usage error, printed as one line). */
function parseOptions(args: string[]) {
  try {
    return parseArgs({ args, options: { 'demo-data': { type: 'boolean', default: false } } }).values;
  } catch (error) {
    throw new ConfigError(`${(error as Error).message}\n${usage}`);
  }
}

/**
 * `--demo-data`: the demo data set (src/demo/seed.ts, as `npm run seed`), posted in-process through the
 * app's public API with the demo key this start created. A tenant created earlier has a key this process
 * cannot know (only its hash is stored): the message says how to seed it. A failure is reported, and
 * the server keeps serving.
 */
async function fillDemoTenant(app: ReturnType<typeof createApp>, demoApiKey: string | null, base: string): Promise<string> {
  if (!demoApiKey) {
    return `--demo-data: no demo tenant was created by this start, so its key is unknown here. Fill a tenant with: npm run seed -- --key <API key> --url ${base}\n`;
  }
  try {
    const summary = await seedDemoData((path, init) => Promise.resolve(app.fetch(new Request(`${base}${path}`, init))), demoApiKey);
    return `Demo data: ${describeSeed(summary)}. Open ${base}/graphql to look at them.\n`;
  } catch (error) {
    return `--demo-data: seeding failed: ${error instanceof Error ? error.message : String(error)}
Fill it again with: npm run seed -- --key ${demoApiKey} --url ${base}
`;
  }
}

/** Start-up progress before the JSON log begins (a first start can take a minute): plain lines on stderr. */
const progress = (line: string) => void process.stderr.write(`${line}\n`);

async function main() {
  // First: the database and the app look at it as they are made (off unless OTEL_* asks; decision 0027).
  await startTracing();
  const options = parseOptions(process.argv.slice(2));
  const config = loadConfig(process.env);
  // The JSON log and the start-up block share one ordered stream to stdout (pino's asynchronous
  // destination, as its default): the block lands after every line logged before it.
  const stdout = pino.destination({ dest: 1, sync: false });
  const logger = createLogger(config.log.level, stdout);
  // Migrations run in a worker thread when there are any (a fresh database, an upgrade), so a fresh
  // PGlite's initdb growth is returned when it ends; on PostgreSQL the worker migrates on a connection
  // of its own. PGlite: a fresh directory is initialised and migrated by the worker under this process's
  // lock, before this process opens it; an existing one with pending migrations (an upgrade) is migrated
  // here. Each migration commits with its record (src/db/migrate.ts): a start killed meanwhile is
  // followed by one that goes on from there.
  const migrationEvents: MigrationEvents = { onProgress: (next) => progress(describeProgress(next)), onRecovered: progress };
  let migrated: string[] = [];
  const db = await openDatabase({
    ...config.db,
    onPoolError: (err) => logger.warn({ err }, 'database connection lost (the pool replaces it)'),
    onLockTakenOver: (message) => logger.warn(message),
    beforeOpen: async () => {
      if (!isFreshDataDir(config.db.dataDir)) return;
      progress(`Creating the embedded database in ${config.db.dataDir} (first start: this can take a minute)…`);
      migrated = await migrateInWorker(config.db, migrationEvents);
    },
  });
  if (db.kind === 'postgres' && (await migrationsPending(db))) migrated = await migrateInWorker(config.db, migrationEvents);
  else if (db.kind === 'pglite') migrated.push(...(await migrateIfPending(db, migrationEvents)));
  if (migrated.length) {
    progress(`Applied ${migrated.length} migration${migrated.length === 1 ? '' : 's'}. Starting the server…`);
    logger.info({ applied: migrated }, 'applied migrations');
  }

  const recorder = createIngestRecorder({ db, clock: systemClock, logger, flushIntervalMs: config.ingest.flushIntervalMs });
  const app = createApp({ config, db, logger, clock: systemClock, recorder });
  app.webhooks.start();
  const maintenance = createEventMaintenance({
    db,
    sequencer: app.services.sequencer,
    clock: systemClock,
    logger,
    recorder,
    retentionMs: config.events.retentionMs,
    deletedRetentionMs: config.events.deletedRetentionMs,
    degradedRejectionRate: config.ingest.degradedRejectionRate,
    intervalMs: config.events.maintenanceIntervalMs,
  });
  // Creates today's and the coming days' partitions now (the server serves meanwhile; /readyz waits for
  // them), then keeps them coming.
  const historyMaintenance = createPayloadHistoryMaintenance({
    db,
    clock: systemClock,
    logger,
    config: config.payloadHistory,
    intervalMs: config.events.maintenanceIntervalMs,
  });
  app.startup.wait(historyMaintenance.run());
  // What a stop left unnumbered (an instance killed between a write's commit and its pass) is numbered
  // now, its webhooks queued, rather than at the first maintenance tick (decision 0045).
  void asBackgroundWork(() => app.services.sequencer.sweep()).catch((error: unknown) =>
    logger.warn({ err: error }, 'numbering what the last stop left failed; the maintenance retries'),
  );
  const { headersTimeoutMs, requestTimeoutMs, keepAliveTimeoutMs } = config.http;
  // Every request received gets an answer at a stop (src/http/drain.ts).
  const drain = createDrain(logger);
  const server = createServer(
    {
      // Slow or silent clients cannot hold a connection for long: the headers must arrive within
      // headersTimeout, the whole request (body included) within requestTimeout, and an idle
      // keep-alive connection is closed after keepAliveTimeout. Checked every second.
      headersTimeout: headersTimeoutMs,
      requestTimeout: Math.max(requestTimeoutMs, headersTimeoutMs),
      keepAliveTimeout: keepAliveTimeoutMs,
      connectionsCheckingInterval: 1000,
    },
    drain.handler((req, res) => void app(req, res)),
  );
  drain.track(server);
  answerClientErrors(server, logger);
  const { port } = await listen(server, config.http.port, config.http.host).catch(async (error: unknown) => {
    // A start that cannot listen (port in use) exits 1: it releases the database first, so the next
    // start finds no lock to take over.
    await db.close().catch(() => {});
    throw error;
  });
  const { base, listening, allInterfaces } = serverAddress(config.http.host, port);
  logger.info({ host: config.http.host, port, database: db.kind }, `tms-ingest listening on ${listening}`);
  let stopping = false;
  // Only now, with the port taken: a start that fails to listen never creates (and loses) the demo key.
  // The signal handlers are installed first (a SIGTERM right after "listening" still shuts down
  // gracefully), and shutdown waits for the message, so a key that was created is always printed.
  let announced: Promise<unknown> = Promise.resolve();
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down: finishing in-flight requests');
    // Subscriptions stream until told to stop: end them so their connections close now.
    await drain.stop(server, config.http.shutdownTimeoutMs, () => app.services.events.endAll());
    await announced.catch(() => {}); // its failure is reported by main()
    // The numbering passes of the writes just answered, before the webhook worker stops: their deliveries
    // are queued and the database is left with nothing for the next start to number.
    await app.services.sequencer.idle();
    await app.webhooks.stop();
    await maintenance.close();
    await historyMaintenance.close();
    await recorder.close();
    await app.services.limits.close();
    await app.services.statistics.idle();
    await db.close();
    await stopTracing(); // exports the spans still buffered
    logger.info('stopped');
    process.exit(0);
  };
  const onSignal = (signal: string) =>
    stop(signal).catch((error) => {
      logger.error({ err: error }, 'shutdown failed');
      process.exit(1);
    });
  process.on('SIGTERM', (signal) => void onSignal(signal));
  process.on('SIGINT', (signal) => void onSignal(signal));
  // One block, written at once when everything in it is known (the demo data included), in the log's
  // stream after the lines logged so far, so none falls inside it or after it out of order.
  // /readyz answers 200 once the start-up's own queries are done: before the demo data, which is
  // posted through the app like any client's requests.
  let tenantsRead = () => {};
  const beforeDemoData = new Promise<void>((resolve) => (tenantsRead = resolve));
  const demoData = options['demo-data']
    ? (apiKey: string | null) => {
        tenantsRead();
        return fillDemoTenant(app, apiKey, base);
      }
    : undefined;
  announced = startupMessage(config, db, logger, base, { demoData, allInterfaces }).then(({ message }) => void stdout.write(message));
  app.startup.wait(Promise.race([beforeDemoData, announced]));
  await announced;
}

main().catch((error) => {
  // Expected start-up failures get one plain line; anything else keeps its stack.
  if (error instanceof DatabaseInUseError || error instanceof ConfigError) console.error(error.message);
  else if (isDatabaseUnavailable(error)) console.error(`The database is unreachable: ${(error as Error).message}`);
  else if ((error as NodeJS.ErrnoException)?.code === 'EADDRINUSE') console.error(`The port is in use: ${(error as Error).message}`);
  else console.error(error);
  process.exit(1);
});
