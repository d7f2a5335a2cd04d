/**
 * The migration worker thread (`migrateInWorker`, src/db/migrate.ts): opens the database on its own
 * (PostgreSQL: one connection; PGlite: the directory its parent has locked, initialised here when it
 * is fresh), applies the pending migrations, posting each as it starts, closes it and posts the names
 * applied, which ends the thread. The memory a fresh PGlite's initdb grows goes with it.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { openDatabase } from './database.js';
import { migrateIfPending, type MigrateWorkerData, type MigrateWorkerMessage } from './migrate.js';

const post = (message: MigrateWorkerMessage) => parentPort!.postMessage(message);
const { url, dataDir } = workerData as MigrateWorkerData;
const db = await openDatabase({ url, dataDir, poolSize: 1, lockHeld: true });
let applied: string[];
try {
  applied = await migrateIfPending(db, { onProgress: (progress) => post({ progress }), onRecovered: (recovered) => post({ recovered }) });
} finally {
  await db.close();
}
// Posted once the database is closed: the parent then ends this thread at once.
post({ applied });
