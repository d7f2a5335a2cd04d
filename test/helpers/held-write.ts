/**
 * Another writer's transaction held open, for the tests that race the service against it on PostgreSQL
 * (truly parallel connections): a leg written by the service's own upsert statement and not committed
 * yet, then a request started under it, committed once that request waits for its locks.
 */
import type { Database } from '../../src/db/database.js';
import { buildUpsertStatement } from '../../src/db/record-statements.js';
import { recordTableOf } from '../../src/domain/ingestion/record-tables.js';
import { recordSpecOf } from '../../src/domain/registry.js';
import { onCitus } from '../setup/database.js';
import { expect } from '../fixtures.js';

const table = recordTableOf(recordSpecOf.load_leg);
const statement = buildUpsertStatement(table);

// On a Citus coordinator the request waits on the worker that holds the tenant's shards: the cluster's lock waits.
const waiting = () =>
  onCitus()
    ? `SELECT count(*)::int AS n FROM citus_lock_waits`
    : `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'`;

/**
 * Writes the leg `permalink` under the load `loadPermalink` in a transaction of its own (it holds the
 * leg's new row and its load's KEY SHARE lock), starts `request`, and commits once a statement of the
 * database waits for a lock. Answers what `request` answers.
 */
export async function underHeldLegWrite<T>(db: Database, tenantId: string, loadPermalink: string, permalink: string, request: () => Promise<T>): Promise<T> {
  const waitingForLocks = async () => (await db.sql.query<{ n: number }>(waiting(), []))[0]!.n;
  let answered: Promise<T> | undefined;
  await db.transaction(async (sql) => {
    await sql.query(
      statement.text,
      statement.params({
        tenantId,
        now: new Date(),
        syncRunTime: null,
        present: table.columns.map((c) => c.column),
        rows: [{ permalink, values: {}, parents: { load_id: loadPermalink }, extra: {} }],
      }),
    );
    answered = request();
    for (let polls = 0; (await waitingForLocks()) === 0; polls++) expect(polls).toBeLessThan(100_000);
  });
  return answered!;
}
