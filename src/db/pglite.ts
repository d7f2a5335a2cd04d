/**
 * The embedded PGlite side of `Database` (db/database.ts): its data directory locked (db/pglite-lock.ts),
 * its one connection shared by the scheduler (db/pglite-scheduler.ts), Prisma through pglite-prisma-adapter.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { PrismaPGlite } from 'pglite-prisma-adapter';
import { PrismaClient } from './generated/prisma/client.js';
import type { Database, DatabaseOptions, PgliteExtension, Sql } from './interface.js';
import { lockDataDir } from './pglite-lock.js';
import { shareConnection } from './pglite-scheduler.js';
import { listenerSet, observeAdapterFactory, savepointed, statementObserver } from './statement-observation.js';

/**
 * PGlite's defaults, with a 16 MB buffer cache instead of PostgreSQL's 128 MB: that cache lives in the
 * process's WebAssembly memory, and a smaller one takes about 140 MB off the service's resident memory
 * (measured, docs/guides/production-build.md). The data directory's files stay in the OS page cache.
 */
const pgliteStartParams = [...PGlite.defaultStartParams, '-c', 'shared_buffers=16MB'];

/** True when `dataDir` holds no PGlite database yet (its first open runs initdb). */
export const isFreshDataDir = (dataDir: string) => !dataDir.startsWith('memory://') && !existsSync(join(dataDir, 'PG_VERSION'));

/**
 * Opens the embedded database under `options.dataDir` with the `extensions` its migrations create
 * (db/database.ts `pgliteExtensions`).
 */
export async function openPglite(
  options: DatabaseOptions,
  onLockTakenOver: (message: string) => void,
  extensions: Readonly<Record<string, PgliteExtension>>,
): Promise<Database> {
  const { dataDir, loadDataDir } = options;
  const inMemory = dataDir.startsWith('memory://');
  let unlock = () => {};
  if (!inMemory) {
    mkdirSync(dataDir, { recursive: true });
    if (!options.lockHeld) unlock = lockDataDir(dataDir, onLockTakenOver);
  }
  const pglite = await (async () => {
    await options.beforeOpen?.();
    return PGlite.create(dataDir, { startParams: pgliteStartParams, loadDataDir, extensions });
  })().catch((error) => {
    unlock();
    throw error;
  });
  const connection = shareConnection();
  pglite.query = connection.share(pglite.query.bind(pglite)) as PGlite['query'];
  pglite.exec = connection.share(pglite.exec.bind(pglite));
  pglite.transaction = connection.share(pglite.transaction.bind(pglite));
  const statements = statementObserver({ engine: 'pglite' });
  const listeners = listenerSet();
  const adapterFactory = observeAdapterFactory(new PrismaPGlite(pglite), statements.observe);
  const prisma = new PrismaClient({ adapter: adapterFactory });
  const sql: Sql = {
    query: <Row>(text: string, params: readonly unknown[], name?: string) =>
      statements.observe(text, async () => (await pglite.query<Row>(text, params as unknown[])).rows, name),
  };
  return {
    kind: 'pglite',
    prisma,
    adapterFactory,
    onStatement: statements.add,
    sql,
    tenantSql: (_tenantId, on = sql) => on,
    citus: async () => false,
    rehearse: (work) =>
      pglite.transaction(async (tx) => {
        try {
          return await work(savepointed(async (text, params = []) => (await tx.query(text, params as unknown[])).rows, statements.observe));
        } finally {
          if (!tx.closed) await tx.rollback();
        }
      }),
    transaction: (work) =>
      pglite.transaction((tx) =>
        work({
          query: <Row>(text: string, params: readonly unknown[], name?: string) =>
            statements.observe(text, async () => (await tx.query<Row>(text, params as unknown[])).rows, name),
        }),
      ),
    async listen(channel, onNotify) {
      const unlisten = await pglite.listen(channel, onNotify);
      return listeners.add(() => unlisten());
    },
    poolStats: () => {
      const waiting = connection.waiting();
      return { total: 1, idle: connection.held() ? 0 : 1, waiting: waiting.all, waitingRequests: waiting.requests };
    },
    embeddedBusyMs: () => connection.busyMs(),
    async close() {
      await listeners.closeAll();
      await prisma.$disconnect();
      await pglite.close();
      unlock();
    },
  };
}
