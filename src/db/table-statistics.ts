/**
 * Keeps the planner's statistics of the record tables current where autovacuum cannot be counted on:
 * PGlite has none, and PostgreSQL's may be off or a minute behind a first sync. A table that grew from
 * empty without an ANALYZE has indexes whose statistics say "no rows" (CREATE INDEX on an empty table
 * records none): the planner then costs every index of the table alike and may look a permalink up
 * through `(tenant_id, created_at)` instead of the unique `(tenant_id, permalink)` key, reading all of
 * the tenant's rows for each record: a first sync slows down as the table grows (20,000 new loads in
 * batches of 500: 129 s against 7.3 s, docs/decisions/0019-table-statistics.md).
 *
 * Rules, each starting an ANALYZE of the table in the background:
 * - once the rows written to a table (by this process, since its last check) reach as many as its
 *   statistics know (at least `minRows`): a first sync analyses each table at 200 or so rows, then each
 *   time it has doubled; a table whose statistics are current (autovacuum's, another instance's) is left
 *   alone;
 * - once a tenant the statistics do not know has written `newTenantRows` rows to it since the last
 *   ANALYZE. The statistics know the tenants among `tenant_id`'s most common values (and those that had
 *   written that many rows when the table was analysed). For any other tenant, when the most common values
 *   cover the table, the planner expects about one row, and costs the `(tenant_id, created_at)` index
 *   like the unique key again: a new tenant's first sync into a table already holding other tenants'
 *   rows read all of its own rows per record (40,000 legs in 180 s in the bench, 2026-11-27), however far
 *   the table was from doubling.
 *
 * On a Citus coordinator a distributed table's own catalog rows describe its empty shell: its statistics
 * are its shards', on the workers (the coordinator's ANALYZE of the table runs on every shard). The checks
 * read them there (`run_command_on_shards`: the rows summed over the shards, the common tenants of each).
 */
import { asBackgroundWork, type Sql } from './database.js';

/** Opens every statement of these checks, so a statement log (or a test counting a request's statements) can tell them apart. */
export const statisticsTag = '/* table statistics */ ';

/** Rows written to a table before its statistics are first checked. */
export const minRows = 200;

/** Rows a tenant unknown to a table's statistics writes to it before the table is analysed again. */
export const newTenantRows = 1_000;

export interface TableStatistics {
  /** Counts rows a statement wrote (created or changed) in `table` for `tenantId`; may start an ANALYZE of it. */
  wrote(table: string, tenantId: string, rows: number): void;
  /** Resolves once no ANALYZE is running (before the database is closed). */
  idle(): Promise<void>;
}

interface Entry {
  written: number;
  known: number;
  checking: boolean;
  /** Rows written since the last ANALYZE by each tenant the statistics do not know. */
  unknownTenants: Map<string, number>;
  /** The tenants the statistics know (see above). */
  knownTenants: Set<string>;
}

export function createTableStatistics(sql: Sql, onError: (error: unknown, table: string) => void): TableStatistics {
  /** Per table: rows written since the last check, how many rows its statistics knew then, and whether a check runs. */
  const tables = new Map<string, Entry>();
  const running = new Set<Promise<void>>();

  /** Whether the database is a Citus coordinator (asked once), and per table whether Citus distributes it. */
  let citus: Promise<boolean> | undefined;
  const distributed = new Map<string, Promise<boolean>>();
  const isDistributed = async (table: string) => {
    citus ??= sql
      .query(`${statisticsTag}SELECT 1 FROM pg_extension WHERE extname = 'citus'`, [])
      .then((rows) => rows.length > 0)
      .catch(() => {
        citus = undefined;
        return false;
      });
    if (!(await citus)) return false;
    let known = distributed.get(table);
    if (!known) {
      known = sql
        .query(`${statisticsTag}SELECT 1 FROM pg_dist_partition WHERE logicalrelid = $1::regclass AND partmethod = 'h'`, [table])
        .then((rows) => rows.length > 0);
      distributed.set(table, known);
    }
    return known;
  };

  /** The rows the table's statistics know: `pg_class.reltuples` (-1 when never analysed), summed over its shards on Citus. */
  const knownRows = async (table: string) => {
    const text = (await isDistributed(table))
      ? `${statisticsTag}SELECT CASE WHEN bool_and(r.result::float8 < 0) THEN -1 ELSE sum(greatest(r.result::float8, 0)) END AS n
         FROM run_command_on_shards($1::regclass, $$SELECT reltuples FROM pg_class WHERE oid = '%s'::regclass$$) r WHERE r.success`
      : `${statisticsTag}SELECT reltuples::float8 AS n FROM pg_class WHERE oid = $1::regclass`;
    return (await sql.query<{ n: number | null }>(text, [table]))[0]?.n ?? -1;
  };

  /** The tenants among the table's most common `tenant_id` values, as its statistics (each shard's on Citus) hold them. */
  const commonTenants = async (table: string) => {
    const text = (await isDistributed(table))
      ? `${statisticsTag}SELECT string_agg(btrim(r.result, '{}'), ',') AS vals FROM run_command_on_shards($1::regclass,
           $$SELECT coalesce((SELECT s.most_common_vals::text FROM pg_stats s JOIN pg_class c ON c.relname = s.tablename AND c.relnamespace::regnamespace::text = s.schemaname
             WHERE c.oid = '%s'::regclass AND s.attname = 'tenant_id'), '{}')$$) r WHERE r.success`
      : `${statisticsTag}SELECT most_common_vals::text AS vals FROM pg_stats WHERE schemaname = current_schema() AND tablename = $1 AND attname = 'tenant_id'`;
    const rows = await sql.query<{ vals: string | null }>(text, [table]);
    return (rows[0]?.vals ?? '{}')
      .replace(/^\{|\}$/g, '')
      .split(',')
      .filter(Boolean);
  };

  async function check(table: string, entry: Entry) {
    const written = entry.written;
    entry.written = 0;
    entry.checking = true;
    try {
      let known = await knownRows(table);
      const newcomers = [...entry.unknownTenants].filter(([, rows]) => rows >= newTenantRows).map(([tenant]) => tenant);
      if (written >= Math.max(minRows, known) || newcomers.length > 0) {
        await sql.query(`${statisticsTag}ANALYZE "${table}"`, []);
        known = await knownRows(table);
        entry.knownTenants = new Set([...(await commonTenants(table)), ...newcomers]);
        entry.unknownTenants.clear();
      }
      entry.known = Math.max(0, known);
    } catch (error) {
      onError(error, table);
    } finally {
      entry.checking = false;
    }
  }

  return {
    wrote(table, tenantId, rows) {
      const entry: Entry = tables.get(table) ?? {
        written: 0,
        known: 0,
        checking: false,
        unknownTenants: new Map<string, number>(),
        knownTenants: new Set<string>(),
      };
      tables.set(table, entry);
      entry.written += rows;
      let byUnknownTenant = 0;
      if (rows > 0 && !entry.knownTenants.has(tenantId)) {
        byUnknownTenant = (entry.unknownTenants.get(tenantId) ?? 0) + rows;
        entry.unknownTenants.set(tenantId, byUnknownTenant);
      }
      if (entry.checking || (entry.written < Math.max(minRows, entry.known) && byUnknownTenant < newTenantRows)) return;
      // The request that wrote the rows does not wait for the check, nor do other requests behind it.
      const run = asBackgroundWork(() => check(table, entry)).finally(() => running.delete(run));
      running.add(run);
    },
    async idle() {
      await Promise.all(running);
    },
  };
}
