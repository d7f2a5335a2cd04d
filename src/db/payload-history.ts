/**
 * The SQL of payload history (api-contract.md E; docs/decisions/0016-payload-history.md): the table
 * `payload_history`, partitioned by day on `received_at`, one row per write answered processed,
 * skipped or duplicate. It is also the write log the tenant's pass derives from
 * (docs/decisions/0051-derived-from-the-log.md): each row carries what the pass needs (the presence
 * of the record's recommended fields, the writing transaction's id), and without payload history
 * (`PAYLOAD_HISTORY_DAYS=0`) the rows are written without their bodies.
 * - Recording is a data-modifying CTE (`historyCte`) any write statement appends: the rows go in with
 *   the write, in the same statement (no round trip of their own), and roll back with it.
 * - Retention drops whole days (`DROP TABLE` of a day's partition), so pruning never deletes rows
 *   from the table ingestion writes to; the per-record cap is applied when reading and trimmed by the
 *   maintenance job for the records written since its last pass.
 * This module knows the table only; the domain decides when to record and what to keep.
 */
import type { Sql } from './database.js';

/** Milliseconds in a day: partitions are whole UTC days. */
const dayMs = 86_400_000;

/** The partition holding the day that starts at `dayStart` (UTC midnight): `payload_history_p20261126`. */
const partitionName = (dayStart: number) => `payload_history_p${new Date(dayStart).toISOString().slice(0, 10).replaceAll('-', '')}`;

const startOfDay = (at: Date) => Math.floor(at.getTime() / dayMs) * dayMs;

/** The day a partition name stands for (its start, UTC), or null for a name that is not a day's partition. */
function dayOf(name: string): number | null {
  const match = /^payload_history_p(\d{4})(\d{2})(\d{2})$/.exec(name);
  return match ? Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])) : null;
}

/**
 * The CTE that records one log entry per settled record of a write statement, named `history`
 * (prepend `,` and put it after the statement's other CTEs): its payload history row, which also
 * carries what the tenant's pass derives from it (docs/decisions/0051-derived-from-the-log.md): the
 * presence of the kind's recommended fields (`coverage`, a bit per field) and the writing
 * transaction's id (`xid`, by which the pass finds the entries committed since its last run).
 * `settled` is a relation of the statement with the columns `ord` (the record's place in the
 * statement, from 0), `permalink`, `outcome` and `changed`; records rejected by the statement (a
 * missing parent) must not be in it. The other arguments are SQL expressions (parameters): the
 * tenant, the received time, the kind, the source, the request id, the request's parameters (its
 * query string), the bodies as one JSON array in `ord` order (`json`, so keys keep their order; null:
 * no payload history is kept, the entries carry no body) and the presence of each record's counted
 * fields as a `text[]` of bit strings in `ord` order ('1011'; null: no coverage counted). The entry's
 * `seq` is taken explicitly, as the events' ids are (`eventsCte`: a Citus shard has no sequence default).
 */
export function historyCte(p: {
  settled: string;
  tenantId: string;
  receivedAt: string;
  kind: string;
  source: string;
  requestId: string;
  query: string;
  bodies: string | null;
  coverage: string | null;
  /** The statement writes one record: its body is read as one row (see `UpsertOptions.one`). */
  one?: boolean;
}): string {
  const bodies = `json_array_elements(${p.bodies}) WITH ORDINALITY AS b(body, n)`;
  const bodyJoin = p.bodies ? ` JOIN ${p.one ? `(SELECT * FROM ${bodies} LIMIT 1) b` : bodies} ON b.n = s.ord + 1` : '';
  return `history AS (
    INSERT INTO payload_history (seq, tenant_id, kind, permalink, received_at, source, request_id, query, outcome, changed, body, coverage, xid)
    SELECT nextval('payload_history_seq_seq'), ${p.tenantId}, ${p.kind}, s.permalink, ${p.receivedAt}, ${p.source}, ${p.requestId}, ${p.query}, s.outcome, s.changed,
      ${p.bodies ? 'b.body' : 'NULL'}, ${p.coverage ? `(${p.coverage})[s.ord + 1]::varbit` : 'NULL'}, pg_current_xact_id()
    FROM ${p.settled} s${bodyJoin}
  )`;
}

/** One kept body, as read. */
export interface PayloadRow {
  receivedAt: Date;
  source: string;
  requestId: string | null;
  /** The request's parameters as received (REST: its query string without `?`); null when none. */
  query: string | null;
  outcome: string;
  changed: boolean;
  body: unknown;
}

/**
 * The history of records of one kind, newest first: at most `limit` rows per permalink, none received
 * before `since` (what the retention keeps, even before the job has dropped the day). One statement
 * for all the permalinks asked for.
 */
export async function readPayloadHistory(
  sql: Sql,
  q: { tenantId: string; kind: string; permalinks: readonly string[]; limit: number; since: Date },
): Promise<Map<string, PayloadRow[]>> {
  const rows = await sql.query<PayloadRow & { permalink: string }>(
    `SELECT p.permalink, h.received_at AS "receivedAt", h.source, h.request_id AS "requestId", h.query, h.outcome, h.changed, h.body
     FROM unnest($3::text[]) AS p(permalink)
     CROSS JOIN LATERAL (
       SELECT * FROM payload_history x
       WHERE x.tenant_id = $1::uuid AND x.kind = $2 AND x.permalink = p.permalink AND x.received_at >= $5::timestamptz AND x.body IS NOT NULL
       ORDER BY x.seq DESC LIMIT $4::int
     ) h`,
    [q.tenantId, q.kind, q.permalinks, q.limit, q.since],
    'read_payload_history',
  );
  const byPermalink = new Map<string, PayloadRow[]>(q.permalinks.map((permalink) => [permalink, []]));
  for (const { permalink, ...row } of rows) {
    byPermalink.get(permalink)!.push({ ...row, receivedAt: new Date(row.receivedAt), body: typeof row.body === 'string' ? JSON.parse(row.body) : row.body });
  }
  return byPermalink;
}

/**
 * Creates the partitions of the `days` days starting with the one holding `from` (those that exist are
 * left alone). A day whose rows already went to the default partition cannot get its own partition
 * (PostgreSQL refuses): it is skipped, its rows stay in the default one until they expire. Returns the
 * partitions created.
 */
export async function createPayloadPartitions(sql: Sql, from: Date, days: number): Promise<string[]> {
  const created: string[] = [];
  const existing = new Set(await listPartitions(sql));
  for (let i = 0; i < days; i++) {
    const start = startOfDay(from) + i * dayMs;
    const name = partitionName(start);
    if (existing.has(name)) continue;
    try {
      await sql.query(
        `CREATE TABLE IF NOT EXISTS "${name}" PARTITION OF payload_history FOR VALUES FROM ('${new Date(start).toISOString()}') TO ('${new Date(start + dayMs).toISOString()}')`,
        [],
      );
      created.push(name);
    } catch (error) {
      // Another instance created it at the same time, or the default partition holds rows of that day.
      if (!(await listPartitions(sql)).includes(name) && !/default partition|already exists/i.test(String((error as Error).message))) throw error;
    }
  }
  return created;
}

async function listPartitions(sql: Sql): Promise<string[]> {
  const rows = await sql.query<{ name: string }>(
    `SELECT c.relname AS name FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = 'payload_history'::regclass`,
    [],
  );
  return rows.map((row) => row.name);
}

/**
 * Drops the partitions of the days that ended at or before `before` (a whole day's rows at once: no
 * DELETE on the table ingestion writes to), and deletes the default partition's rows received before
 * it. Returns the partitions dropped.
 */
export async function dropPayloadPartitions(sql: Sql, before: Date): Promise<string[]> {
  const dropped: string[] = [];
  for (const name of await listPartitions(sql)) {
    const day = dayOf(name);
    if (day === null || day + dayMs > before.getTime()) continue;
    await sql.query(`DROP TABLE IF EXISTS "${name}"`, []);
    dropped.push(name);
  }
  // Of the default partition, only the entries the tenant's pass has taken (docs/decisions/0051-derived-from-the-log.md).
  await sql.query(
    `DELETE FROM payload_history_default d WHERE d.received_at < $1::timestamptz
       AND (d.xid IS NULL OR d.coverage IS NULL OR pg_visible_in_snapshot(d.xid, (SELECT c.derived_through FROM load_event_cursors c WHERE c.tenant_id = d.tenant_id)))`,
    [before],
  );
  return dropped;
}

/**
 * Deletes the rows beyond the newest `perRecord` of each record that got a row received at or after
 * `since` (the records written since the job's last pass). Returns how many rows it deleted.
 */
export async function trimPayloadHistory(sql: Sql, since: Date, perRecord: number): Promise<number> {
  let deleted = 0;
  // Tenant by tenant: each is one shard's statement on a Citus cluster.
  for (const { id } of await sql.query<{ id: string }>('SELECT id FROM tenants ORDER BY id', [])) {
    const rows = await sql.query<{ deleted: number }>(
      `WITH touched AS (
         SELECT DISTINCT tenant_id, kind, permalink FROM payload_history WHERE tenant_id = $3::uuid AND received_at >= $1::timestamptz
       ),
       beyond AS (
         SELECT h.seq, h.received_at FROM touched t
         CROSS JOIN LATERAL (
           SELECT x.seq, x.received_at, x.xid, x.coverage FROM payload_history x
           WHERE x.tenant_id = $3::uuid AND x.tenant_id = t.tenant_id AND x.kind = t.kind AND x.permalink = t.permalink
           ORDER BY x.seq DESC OFFSET $2::int
         ) h
         -- Only entries the tenant's pass has taken (docs/decisions/0051-derived-from-the-log.md).
         WHERE h.xid IS NULL OR h.coverage IS NULL OR pg_visible_in_snapshot(h.xid, (SELECT c.derived_through FROM load_event_cursors c WHERE c.tenant_id = $3::uuid))
       ),
       deleted AS (
         DELETE FROM payload_history d USING beyond b WHERE d.tenant_id = $3::uuid AND d.seq = b.seq AND d.received_at = b.received_at RETURNING 1
       )
       SELECT count(*)::int AS deleted FROM deleted`,
      [since, perRecord, id],
    );
    deleted += rows[0]?.deleted ?? 0;
  }
  return deleted;
}
