/**
 * The migration worker thread (`migrateInWorker`, src/db/migrate.ts): opens the database on its own
 * (PostgreSQL: one connection, so the schema engine's session advisory lock is taken and released on
 * the same one; PGlite: the directory its parent has locked), applies the pending migrations, closes
 * it and posts the names applied, which ends the thread. Its WebAssembly memories go with it.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { openDatabase } from './database.js';
import { migrateIfPending, type MigrateWorkerData } from './migrate.js';

const { url, dataDir } = workerData as MigrateWorkerData;
const db = await openDatabase({ url, dataDir, poolSize: 1, lockHeld: true });
let applied: string[];
try {
  applied = await migrateIfPending(db);
} finally {
  await db.close();
}
// Posted once the database is closed: the parent then ends this thread at once (the schema engine's
// handles would keep its event loop alive some 10 s longer).
parentPort!.postMessage(applied);
