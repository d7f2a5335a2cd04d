/**
 * Statement observation: the one path every statement of a database takes (Prisma's through its
 * adapter, the raw runner's directly), reported to the statement listeners (tests count statements)
 * and traced while tracing is on; and the rehearsal's savepointed runner built on it.
 */
import type { SqlMigrationAwareDriverAdapterFactory, SqlQueryable, SqlDriverAdapter } from '@prisma/driver-adapter-utils';
import { tracing, type StatementTarget } from '../observability/tracing.js';
import type { Sql, StatementListener } from './interface.js';

/** Runs one statement (`execute`) as the database's statement `text`: reported to the listeners, and traced while tracing is on. */
export type ObserveStatement = <T>(text: string, execute: () => Promise<T>, name?: string) => Promise<T>;

/** A connection's statement runner (one transaction's), without statement names. */
export type RunStatement = (text: string, params?: readonly unknown[], name?: string) => Promise<unknown[]>;

/**
 * The `Sql` of a rehearsal transaction: every statement under a savepoint (released when it succeeds,
 * rolled back to when it fails), so a refused statement leaves the transaction usable, as autocommit would.
 */
export function savepointed(run: RunStatement, observe: ObserveStatement): Sql {
  return {
    query<Row>(text: string, params: readonly unknown[], name?: string) {
      return observe(
        text,
        async () => {
          await run('SAVEPOINT rehearsal');
          let rows: unknown[];
          try {
            rows = await run(text, params, name);
          } catch (error) {
            await run('ROLLBACK TO SAVEPOINT rehearsal');
            throw error;
          }
          await run('RELEASE SAVEPOINT rehearsal');
          return rows as Row[];
        },
        name,
      );
    },
  };
}

/**
 * The statement listeners of one database, and the one path every statement takes (`observe`): the
 * listeners cost nothing while none is registered, and the span nothing while tracing is off (it is
 * decided when the database opens: observability/tracing.ts starts first).
 */
export function statementObserver(target: StatementTarget) {
  const listeners = new Set<StatementListener>();
  const traced = tracing()?.statements(target);
  const observe: ObserveStatement = (text, execute, name) => {
    for (const listener of listeners) listener(text);
    return traced ? traced(text, execute, name) : execute();
  };
  return {
    observe,
    add(listener: StatementListener) {
      listeners.add(listener);
      return () => void listeners.delete(listener);
    },
  };
}

/** Observes every statement an adapter (or a transaction it starts) runs. */
function observeQueryable<Q extends SqlQueryable>(queryable: Q, observe: ObserveStatement): Q {
  const { queryRaw, executeRaw } = queryable;
  queryable.queryRaw = (query) => observe(query.sql, () => queryRaw.call(queryable, query));
  queryable.executeRaw = (query) => observe(query.sql, () => executeRaw.call(queryable, query));
  const adapter = queryable as unknown as Partial<SqlDriverAdapter>;
  const startTransaction = adapter.startTransaction;
  if (startTransaction) {
    adapter.startTransaction = async (isolationLevel) => observeQueryable(await startTransaction.call(adapter, isolationLevel), observe);
  }
  return queryable;
}

/** Makes every adapter the factory connects observe its statements. */
export function observeAdapterFactory<F extends SqlMigrationAwareDriverAdapterFactory>(factory: F, observe: ObserveStatement): F {
  const connect = factory.connect.bind(factory);
  factory.connect = async () => observeQueryable(await connect(), observe);
  return factory;
}

/** Tracks a database's listeners so `close()` stops them too. */
export function listenerSet() {
  const stops = new Set<() => Promise<void>>();
  return {
    add(stop: () => Promise<void>) {
      const once = async () => {
        if (stops.delete(once)) await stop();
      };
      stops.add(once);
      return once;
    },
    async closeAll() {
      await Promise.all([...stops].map((stop) => stop()));
    },
  };
}
