/**
 * Keeps the planner's statistics of the record tables current where autovacuum cannot be counted on:
 * PGlite has none, and PostgreSQL's may be off or a minute behind a first sync. A table that grew from
 * empty without an ANALYZE has indexes whose statistics say "no rows" (CREATE INDEX on an empty table
 * records none): the planner then costs every index of the table alike and may look a permalink up
 * through `(tenant_id, created_at)` instead of the unique `(tenant_id, permalink)` key, reading all of
 * the tenant's rows for each record: a first sync slows down as the table grows (20,000 new loads in
 * batches of 500: 129 s against 7.3 s, docs/decisions/0019-table-statistics.md).
 *
 * Rule: once the rows written to a table (by this process, since its last check) reach as many as its
 * statistics know (at least `minRows`), the table is analysed in the background. So a first sync
 * analyses each table at 200 or so rows, then each time it has doubled; a table whose statistics
 * are current (autovacuum's, another instance's) is left alone.
 */
import type { Sql } from './database.js';

/** Rows written to a table before its statistics are first checked. */
export const minRows = 200;

export interface TableStatistics {
  /** Counts rows a statement wrote (created or changed) in `table`; may start an ANALYZE of it. */
  wrote(table: string, rows: number): void;
  /** Resolves once no ANALYZE is running (before the database is closed). */
  idle(): Promise<void>;
}

interface Entry {
  written: number;
  known: number;
  checking: boolean;
}

export function createTableStatistics(sql: Sql, onError: (error: unknown, table: string) => void): TableStatistics {
  /** Per table: rows written since the last check, how many rows its statistics knew then, and whether a check runs. */
  const tables = new Map<string, Entry>();
  const running = new Set<Promise<void>>();

  /** The rows the table's statistics know: `pg_class.reltuples` (-1 when never analysed). */
  const knownRows = async (table: string) =>
    (await sql.query<{ n: number }>('SELECT reltuples::float8 AS n FROM pg_class WHERE oid = $1::regclass', [table]))[0]?.n ?? -1;

  async function check(table: string, entry: Entry) {
    const written = entry.written;
    entry.written = 0;
    entry.checking = true;
    try {
      let known = await knownRows(table);
      if (written >= Math.max(minRows, known)) {
        await sql.query(`ANALYZE "${table}"`, []);
        known = await knownRows(table);
      }
      entry.known = Math.max(0, known);
    } catch (error) {
      onError(error, table);
    } finally {
      entry.checking = false;
    }
  }

  return {
    wrote(table, rows) {
      const entry = tables.get(table) ?? { written: 0, known: 0, checking: false };
      tables.set(table, entry);
      entry.written += rows;
      if (entry.checking || entry.written < Math.max(minRows, entry.known)) return;
      const run = check(table, entry).finally(() => running.delete(run));
      running.add(run);
    },
    async idle() {
      await Promise.all(running);
    },
  };
}
