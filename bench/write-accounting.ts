/**
 * What PostgreSQL itself wrote for a scenario (issue 39 item 6): rows and WAL per record, by table,
 * HOT updates, the passes' own time, and how long a write waited to be numbered. Measured from outside
 * the service, request and passes together, after the service settled. PostgreSQL only.
 *
 * - **Settled**: no unnumbered change event is left (`load_events.seq IS NULL`, every tenant), and for
 *   the service the ingest recorder's periodic flush (INGEST_FLUSH_INTERVAL_MS, 5 s by default) has run
 *   since the last request, so its counts land in the scenario that caused them.
 * - **Rows**: `n_tup_ins + n_tup_upd + n_tup_del` of `pg_stat_user_tables` (partitions counted under
 *   their root), delta over the scenario; HOT ratio `n_tup_hot_upd / n_tup_upd` per table. A backend
 *   publishes its counts at the end of a transaction at most once a second, and an idle backend with
 *   counts still pending publishes them 10 s after it went idle (PostgreSQL 15's `PGSTAT_MIN_INTERVAL`
 *   and `PGSTAT_IDLE_INTERVAL`); `pg_stat_force_next_flush()` acts on the calling backend only. So a
 *   reading waits until every other backend of the database is idle and either finished a transaction
 *   at least a second after the service settled (which flushed what was pending) or has been idle for
 *   10 s, then clears its own snapshot (`pg_stat_clear_snapshot()`).
 * - **WAL**: `pg_current_wal_lsn()` before and after. The cluster is shared (other databases on the
 *   server write WAL too: on this machine, other sessions' test databases), so with `pg_walinspect`
 *   the records between the two positions are read and only those of the bench database are counted:
 *   a record whose block references name its database, or that belongs to a transaction that wrote
 *   there (its commit record). They are grouped by table (indexes and TOAST under their table,
 *   partitions under their root, system catalogs as `(catalog)`, block-less records such as commits as
 *   `(transaction records)`), with the full-page images apart (the first change of a page after a
 *   checkpoint logs the whole page: noise that depends on when checkpoints fall). A temporary physical
 *   replication slot, advanced after each reading and dropped with the connection, keeps the WAL from
 *   being recycled before it is read. Without `pg_walinspect` the figure is the whole cluster's.
 * - **Passes' own time**: `pg_stat_user_functions` (the bench sets `track_functions = 'pl'` on its
 *   database before the service connects): calls, total and self time of every PL/pgSQL function the
 *   scenario called, such as the numbering pass `load_events_sequence`. `pg_stat_statements` would
 *   give statements too, but it needs `shared_preload_libraries` (a server restart).
 * - **Lag** (`watchLag`): a LISTEN connection on `load_events` (each numbering pass NOTIFYs the tenant
 *   id); on a notification it reads the tenant's events numbered since the last read (`seq >` the last
 *   seen, by the `(tenant_id, seq)` index) and stamps them with the arrival of that notification (the
 *   pass committed before it was sent), or, for a read the poll started, with the time it returned:
 *   within one read's time of their numbering. A poll every 250 ms stands in should a pass not notify. Two lags per write:
 *   from its 200 at the load generator (an upper bound of the commit, so this lag is a lower bound), for
 *   a sample of the requests, each matched to its event by load permalink and time; and, for the same
 *   events, from their `occurred_at` (the service's clock when the write began, before its statement
 *   ran: an upper bound).
 *
 * Background work could add rows: autovacuum and autoanalyze (off on this machine's server; when on,
 * they change no `n_tup_*` count, and their WAL shows under the table or `(catalog)`), and the
 * service's own periodic jobs (event maintenance every 30 s, the webhook poll every second), whose
 * rows show under their tables. The bench database is used by the bench alone.
 */
import pg from 'pg';
import { setTimeout as sleep } from 'node:timers/promises';

/** How often the ingest recorder writes its counts (src/config.ts INGEST_FLUSH_INTERVAL_MS, not set by the bench). */
const recorderFlushMs = 5000;
/** PostgreSQL 15: pending statistics of an idle backend are published this long after it went idle (pgstat.c). */
const idleFlushMs = 10_000;
/** … and at the end of a transaction when the last publication is older than this. */
const minFlushMs = 1000;
/** WAL of the whole cluster beyond which a scenario's range is not decoded (about a minute of decoding on a quiet machine). */
const maxDecodedWal = 2 * 2 ** 30;

export interface TableWrites {
  table: string;
  inserted: number;
  updated: number;
  hotUpdated: number;
  deleted: number;
  walBytes: number;
  walFpiBytes: number;
  walRecords: number;
}

export interface FunctionTime {
  name: string;
  calls: number;
  totalMs: number;
  selfMs: number;
}

export interface LagFigures {
  /** Sampled writes matched to their event: from the 200 at the load generator to numbered (a lower bound). */
  fromAnswer: { writes: number; p50Ms: number; p99Ms: number; maxMs: number };
  /** The same writes: from their event's `occurred_at` (the write's start, service clock) to numbered (an upper bound). */
  fromWrite: { p50Ms: number; p99Ms: number; maxMs: number };
  /** Events numbered during the scenario (the sampled writes' among them). */
  events: number;
}

export interface WriteCost {
  records: number;
  rows: number;
  rowsPerRecord: number;
  updates: number;
  hotUpdates: number;
  /** WAL of the bench database (pg_walinspect), or of the whole cluster without it. */
  walBytes: number;
  walBytesPerRecord: number;
  walFpiBytes: number;
  walRecords: number;
  walSource: 'bench database (pg_walinspect)' | 'whole cluster (pg_current_wal_lsn)';
  /** `pg_wal_lsn_diff` over the scenario: every database of the cluster. */
  clusterWalBytes: number;
  tables: TableWrites[];
  functions: FunctionTime[];
  lag?: LagFigures;
  /** From the end of the load to settled (no unnumbered event; the recorder's flush), ms. */
  settleMs: number;
  /** Then until every backend had published its statistics, ms. */
  statsWaitMs: number;
  /** Decoding the WAL of the range (every database's), ms. */
  walReadMs: number;
  /** Something that could not be waited for or read: the figures may be incomplete. */
  warnings: string[];
}

interface Snapshot {
  lsn: string;
  /** Records the service's ingest recorder counted (`ingest_counts`, dry runs and rejections aside), or null without the table. */
  ingested: number | null;
  tables: Map<string, { ins: number; upd: number; hot: number; del: number }>;
  functions: Map<string, { calls: number; total: number; self: number }>;
}

/** A load generator's requests, sampled: each answered write with the load permalinks it carried. */
export interface AnswerSample {
  loads: string[];
  sentAt: number;
  answeredAt: number;
}

export type Accounting = Awaited<ReturnType<typeof openAccounting>>;

const percentile = (sorted: number[], p: number) => (sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)]! : NaN);
const spread = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return { p50Ms: percentile(sorted, 0.5), p99Ms: percentile(sorted, 0.99), maxMs: sorted.at(-1) ?? NaN };
};

/** Before the service connects: PL/pgSQL functions timed in `pg_stat_user_functions` (superuser). */
export async function trackFunctions(url: string): Promise<string | null> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ db: string }>('SELECT current_database() AS db');
    await client.query(`ALTER DATABASE ${client.escapeIdentifier(rows[0]!.db)} SET track_functions = 'pl'`);
    return null;
  } catch (error) {
    return `track_functions not set (${(error as Error).message}): no pass times`;
  } finally {
    await client.end();
  }
}

export async function openAccounting(url: string) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const notes: string[] = [];
  const [{ oid, pid }] = (
    await client.query<{ oid: number; pid: number }>('SELECT oid::int AS oid, pg_backend_pid() AS pid FROM pg_database WHERE datname = current_database()')
  ).rows as [{ oid: number; pid: number }];
  const ownPids = new Set<number>([pid]);

  let walinspect = false;
  try {
    await client.query('CREATE EXTENSION IF NOT EXISTS pg_walinspect');
    walinspect = true;
  } catch (error) {
    notes.push(`pg_walinspect unavailable (${(error as Error).message}): WAL is the whole cluster's`);
  }
  const slot = `tms_bench_${process.pid}`;
  let slotHeld = false;
  if (walinspect) {
    try {
      await client.query('SELECT pg_create_physical_replication_slot($1, true, true)', [slot]);
      slotHeld = true;
    } catch (error) {
      notes.push(`no replication slot (${(error as Error).message}): WAL may be recycled before it is read`);
    }
  }

  const tenants = async () => (await client.query<{ id: string }>('SELECT id FROM tenants')).rows.map((r) => r.id);

  async function unnumbered(): Promise<boolean> {
    for (const id of await tenants()) {
      const { rows } = await client.query('SELECT 1 FROM load_events WHERE tenant_id = $1::uuid AND seq IS NULL LIMIT 1', [id]);
      if (rows.length) return true;
    }
    return false;
  }

  /** Whether another backend of the database runs a statement or holds a transaction open. */
  async function busy(): Promise<boolean> {
    const { rows } = await client.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM pg_stat_activity
       WHERE datname = current_database() AND backend_type = 'client backend' AND state <> 'idle' AND NOT (pid = ANY ($1::int[]))`,
      [[...ownPids]],
    );
    return rows[0]!.n > 0;
  }

  /**
   * Waits until the requests still in flight when the load generator stopped are done (no other
   * backend busy for 150 ms) and no event is left unnumbered; for the service, then until the ingest
   * recorder has flushed what they counted. Returns the settled instant (database clock, ms).
   */
  async function settle(loadEnded: number, service: boolean, warnings: string[]): Promise<number> {
    const deadline = Date.now() + 120_000;
    let quiet = 0;
    let quietSince = loadEnded;
    while (quiet < 3) {
      if (Date.now() > deadline) {
        warnings.push('still writing or unnumbered events left after 120 s');
        break;
      }
      await sleep(50);
      if ((await busy()) || (await unnumbered())) quiet = 0;
      else if (quiet++ === 0) quietSince = Date.now();
    }
    if (service) {
      await sleep(Math.max(0, Math.max(loadEnded, quietSince) + recorderFlushMs + 250 - Date.now()));
      while ((await unnumbered()) && Date.now() < deadline) await sleep(20);
    }
    const { rows } = await client.query<{ at: number }>('SELECT (extract(epoch FROM clock_timestamp()) * 1000)::float8 AS at');
    return rows[0]!.at;
  }

  /** Waits until every other backend of the database has published what it did before `settled`. */
  async function statsPublished(settled: number, warnings: string[]) {
    const deadline = Date.now() + 30_000;
    for (;;) {
      const { rows } = await client.query<{ pending: number }>(
        `SELECT count(*)::int AS pending FROM pg_stat_activity
         WHERE datname = current_database() AND backend_type = 'client backend' AND NOT (pid = ANY ($1::int[]))
           AND NOT (state = 'idle' AND (state_change >= to_timestamp($2 / 1000.0) OR backend_start >= to_timestamp($3 / 1000.0)
                                        OR state_change <= clock_timestamp() - make_interval(secs => $4 / 1000.0)))`,
        [[...ownPids], settled + minFlushMs + 50, settled, idleFlushMs + 200],
      );
      if (!rows[0]!.pending) break;
      if (Date.now() > deadline) {
        warnings.push(`${rows[0]!.pending} backends still busy after 30 s: their last second of statistics may be missing`);
        break;
      }
      await sleep(100);
    }
    await client.query('SELECT pg_stat_clear_snapshot()');
  }

  async function snapshot(): Promise<Omit<Snapshot, 'lsn'>> {
    const { rows: tables } = await client.query<{ table: string; ins: string; upd: string; hot: string; del: string }>(
      `SELECT coalesce(pg_partition_root(relid), relid)::regclass::text AS table, sum(n_tup_ins) AS ins, sum(n_tup_upd) AS upd,
              sum(n_tup_hot_upd) AS hot, sum(n_tup_del) AS del
       FROM pg_stat_user_tables GROUP BY 1`,
    );
    const { rows: functions } = await client.query<{ name: string; calls: string; total: number; self: number }>(
      'SELECT funcname AS name, calls, total_time AS total, self_time AS self FROM pg_stat_user_functions',
    );
    let ingested: number | null = null;
    try {
      const { rows } = await client.query<{ n: string | null }>(
        `SELECT sum(count) FILTER (WHERE NOT dry_run AND outcome <> 'rejected') AS n FROM ingest_counts`,
      );
      ingested = Number(rows[0]!.n ?? 0);
    } catch {
      /* no such table: the records sent are the count */
    }
    return {
      ingested,
      tables: new Map(tables.map((r) => [r.table, { ins: Number(r.ins), upd: Number(r.upd), hot: Number(r.hot), del: Number(r.del) }])),
      functions: new Map(functions.map((r) => [r.name, { calls: Number(r.calls), total: Number(r.total), self: Number(r.self) }])),
    };
  }

  /** The bench database's WAL between two positions, by table (see the module's comment). */
  async function walByTable(from: string, to: string) {
    const { rows } = await client.query<{ spc: string | null; filenode: string | null; records: string; bytes: string; fpi: string }>(
      `WITH r AS (
         SELECT xid::text::bigint AS xid, record_length, fpi_length, m[1]::bigint AS spc, m[2]::bigint AS db, m[3]::bigint AS filenode
         FROM pg_get_wal_records_info($1::pg_lsn, $2::pg_lsn) w, LATERAL (SELECT regexp_match(w.block_ref, 'rel (\\d+)/(\\d+)/(\\d+)') AS m) b
       ), ours AS (SELECT DISTINCT xid FROM r WHERE db = $3 AND xid <> 0)
       SELECT spc::text, filenode::text, count(*) AS records, sum(record_length) AS bytes, sum(fpi_length) AS fpi
       FROM r WHERE db = $3 OR (xid <> 0 AND xid IN (SELECT xid FROM ours)) GROUP BY 1, 2`,
      [from, to, oid],
    );
    const files = rows.filter((r) => r.filenode !== null);
    // Each relation file to the table it belongs to: an index to its table, a TOAST table (or its index)
    // to its owner, a partition to its root; system catalogs together.
    const { rows: names } = await client.query<{ n: number; table: string | null }>(
      `WITH f AS (SELECT n, pg_filenode_relation(spc::oid, node::oid) AS rel FROM unnest($1::bigint[], $2::bigint[]) WITH ORDINALITY AS f(spc, node, n)),
       i AS (SELECT f.n, coalesce(x.indrelid, f.rel) AS rel FROM f LEFT JOIN pg_index x ON x.indexrelid = f.rel),
       t AS (SELECT i.n, coalesce(o.oid, i.rel) AS rel FROM i LEFT JOIN pg_class o ON o.reltoastrelid = i.rel)
       SELECT t.n::int AS n, CASE WHEN t.rel IS NULL THEN NULL WHEN t.rel < 16384 OR ns.nspname IN ('pg_catalog', 'information_schema') THEN '(catalog)'
                                  ELSE coalesce(pg_partition_root(t.rel), t.rel)::regclass::text END AS table
       FROM t LEFT JOIN pg_class c ON c.oid = t.rel LEFT JOIN pg_namespace ns ON ns.oid = c.relnamespace`,
      [files.map((r) => r.spc), files.map((r) => r.filenode)],
    );
    const tableOf = new Map(names.map((r) => [files[r.n - 1]!, r.table ?? '(other relations)']));
    const byTable = new Map<string, { bytes: number; fpi: number; records: number }>();
    for (const r of rows) {
      const table = r.filenode === null ? '(transaction records)' : tableOf.get(r)!;
      const sum = byTable.get(table) ?? { bytes: 0, fpi: 0, records: 0 };
      sum.bytes += Number(r.bytes);
      sum.fpi += Number(r.fpi);
      sum.records += Number(r.records);
      byTable.set(table, sum);
    }
    return byTable;
  }

  let last: Snapshot | null = null;
  /** What the reading a scenario started from could not do (reported with the scenario). */
  const beginWarnings: string[] = [];
  /** Requests sent since the last reading (a reading with none since is reused), and when the last was. */
  let sentSince = 0;
  let lastSentAt = 0;

  const currentLsn = async () => (await client.query<{ lsn: string }>('SELECT pg_current_wal_lsn()::text AS lsn')).rows[0]!.lsn;

  /**
   * Settles, then reads the statistics once published. Its WAL position is the settled one: the wait
   * for the statistics writes nothing of the scenario's, and every byte of WAL in the range is decoded.
   */
  async function reading(loadEnded: number, service: boolean, warnings: string[], onSettled?: () => Promise<void>) {
    const settled = await settle(loadEnded, service, warnings);
    const settleMs = Date.now() - loadEnded;
    const lsn = await currentLsn();
    await onSettled?.();
    const statsStarted = Date.now();
    await statsPublished(settled, warnings);
    const statsWaitMs = Date.now() - statsStarted;
    return { snap: { ...(await snapshot()), lsn }, settleMs, statsWaitMs };
  }

  /** Keeps the WAL from `lsn` on. An error in this session drops its temporary slot: it is then made again. */
  async function holdWalFrom(lsn: string, warnings: string[]) {
    if (!slotHeld) return;
    try {
      await client.query('SELECT pg_replication_slot_advance($1, $2::pg_lsn)', [slot, lsn]);
    } catch {
      try {
        await client.query('SELECT pg_create_physical_replication_slot($1, true, true)', [slot]);
      } catch (error) {
        slotHeld = false;
        warnings.push(`the replication slot is gone (${(error as Error).message}): WAL may be recycled before it is read`);
      }
    }
  }

  return {
    notes,
    /** Backends of the bench database the bench itself opened (left out of the database's CPU). */
    ownPids,
    /** Counts requests sent, so a reading knows whether anything happened since the last. */
    sent() {
      sentSince++;
      lastSentAt = Date.now();
    },
    /** The reading a scenario starts from: the last one if no request was sent since, else a fresh one after settling. */
    async begin(service: boolean): Promise<Snapshot> {
      if (last && sentSince === 0) {
        const started = { ...last, lsn: await currentLsn() };
        await holdWalFrom(started.lsn, beginWarnings);
        return started;
      }
      const { snap } = await reading(lastSentAt, service, beginWarnings);
      sentSince = 0;
      last = snap;
      // The scenario's WAL starts now (a reading reused, or just taken, is older).
      const started = { ...snap, lsn: await currentLsn() };
      await holdWalFrom(started.lsn, beginWarnings);
      return started;
    },
    /**
     * Settles, reads, and gives what the scenario wrote. Its records: for the service, what its ingest
     * recorder counted (requests still in flight when the load generator stopped are written, and
     * counted, after the window); else `sentRecords`, the records of every request sent.
     */
    async end(before: Snapshot, sentRecords: number, service: boolean, onSettled?: () => Promise<LagFigures>): Promise<WriteCost> {
      const warnings = beginWarnings.splice(0);
      let lag: LagFigures | undefined;
      const {
        snap: after,
        settleMs,
        statsWaitMs,
      } = await reading(Date.now(), service, warnings, async () => {
        lag = await onSettled?.();
      });
      sentSince = 0;
      last = after;
      const records = service && after.ingested !== null && before.ingested !== null ? after.ingested - before.ingested : sentRecords;
      const { rows: diff } = await client.query<{ bytes: string }>('SELECT pg_wal_lsn_diff($2::pg_lsn, $1::pg_lsn)::text AS bytes', [before.lsn, after.lsn]);
      const clusterWalBytes = Number(diff[0]!.bytes);
      let wal: Map<string, { bytes: number; fpi: number; records: number }> | null = null;
      const walReadStarted = Date.now();
      if (walinspect && clusterWalBytes > maxDecodedWal) {
        warnings.push(`${Math.round(clusterWalBytes / 2 ** 20)} MB of WAL on the cluster meanwhile, not decoded: the whole cluster's`);
      } else if (walinspect) {
        try {
          wal = await walByTable(before.lsn, after.lsn);
        } catch (error) {
          warnings.push(`WAL not read (${(error as Error).message}): the whole cluster's`);
        }
      }
      const walReadMs = Date.now() - walReadStarted;
      await holdWalFrom(after.lsn, warnings);
      const tables: TableWrites[] = [];
      for (const name of new Set([...after.tables.keys(), ...(wal?.keys() ?? [])])) {
        const a = after.tables.get(name) ?? { ins: 0, upd: 0, hot: 0, del: 0 };
        const b = before.tables.get(name) ?? { ins: 0, upd: 0, hot: 0, del: 0 };
        const w = wal?.get(name) ?? { bytes: 0, fpi: 0, records: 0 };
        const t: TableWrites = {
          table: name,
          inserted: a.ins - b.ins,
          updated: a.upd - b.upd,
          hotUpdated: a.hot - b.hot,
          deleted: a.del - b.del,
          walBytes: w.bytes,
          walFpiBytes: w.fpi,
          walRecords: w.records,
        };
        if (t.inserted || t.updated || t.deleted || t.walBytes) tables.push(t);
      }
      tables.sort((x, y) => y.inserted + y.updated + y.deleted - (x.inserted + x.updated + x.deleted) || y.walBytes - x.walBytes);
      const functions: FunctionTime[] = [];
      for (const [name, a] of after.functions) {
        const b = before.functions.get(name) ?? { calls: 0, total: 0, self: 0 };
        if (a.calls > b.calls) functions.push({ name, calls: a.calls - b.calls, totalMs: a.total - b.total, selfMs: a.self - b.self });
      }
      const sum = (f: (t: TableWrites) => number) => tables.reduce((s, t) => s + f(t), 0);
      const rows = sum((t) => t.inserted + t.updated + t.deleted);
      const walBytes = wal ? sum((t) => t.walBytes) : clusterWalBytes;
      return {
        records,
        rows,
        rowsPerRecord: records ? rows / records : NaN,
        updates: sum((t) => t.updated),
        hotUpdates: sum((t) => t.hotUpdated),
        walBytes,
        walBytesPerRecord: records ? walBytes / records : NaN,
        walFpiBytes: sum((t) => t.walFpiBytes),
        walRecords: sum((t) => t.walRecords),
        walSource: wal ? 'bench database (pg_walinspect)' : 'whole cluster (pg_current_wal_lsn)',
        clusterWalBytes,
        tables,
        functions,
        ...(lag ? { lag } : {}),
        settleMs,
        statsWaitMs,
        walReadMs,
        warnings,
      };
    },
    /** Starts watching numbering (LISTEN `load_events`); `stop()` after the scenario settled gives the lags. */
    async watchLag() {
      const listener = new pg.Client({ connectionString: url });
      await listener.connect();
      const [{ pid: listenerPid }] = (await listener.query<{ pid: number }>('SELECT pg_backend_pid() AS pid')).rows as [{ pid: number }];
      ownPids.add(listenerPid);
      const lastSeq = new Map<string, string>();
      for (const id of await tenants()) {
        const { rows } = await listener.query<{ seq: string | null }>('SELECT max(seq)::text AS seq FROM load_events WHERE tenant_id = $1::uuid', [id]);
        lastSeq.set(id, rows[0]!.seq ?? '0');
      }
      /** Numbered events: the load they concern, when the write began, when the bench saw them numbered (ms). */
      const numbered: { load: string | null; at: number; seenAt: number }[] = [];
      const dirty = new Set<string>();
      /** Per tenant, when its latest notification not yet followed by a read arrived. */
      const notifiedAt = new Map<string, number>();
      let reading: Promise<void> | null = null;
      const read = (): Promise<void> =>
        (reading ??= (async () => {
          while (dirty.size) {
            const tenants = [...dirty];
            dirty.clear();
            for (const id of tenants) {
              const stamp = notifiedAt.get(id);
              notifiedAt.delete(id);
              const { rows } = await listener.query<{ seq: string; load: string | null; at: number }>(
                `SELECT seq::text, load_permalink AS load, (extract(epoch FROM occurred_at) * 1000)::float8 AS at
                 FROM load_events WHERE tenant_id = $1::uuid AND seq > $2::bigint ORDER BY seq`,
                [id, lastSeq.get(id) ?? '0'],
              );
              // The events of a pass that notified were numbered before its notification arrived; those
              // the poll found (or a pass committed while this read ran) by the time the read returned.
              const seenAt = stamp ?? Date.now();
              for (const r of rows) numbered.push({ load: r.load, at: r.at, seenAt });
              if (rows.length) lastSeq.set(id, rows.at(-1)!.seq);
            }
          }
        })().finally(() => (reading = null)));
      listener.on('notification', (message) => {
        if (message.payload) {
          dirty.add(message.payload);
          notifiedAt.set(message.payload, Date.now());
        }
        void read();
      });
      await listener.query('LISTEN load_events');
      const poll = setInterval(() => {
        for (const id of lastSeq.keys()) dirty.add(id);
        void read();
      }, 250);
      return {
        async stop(samples: AnswerSample[], since: number): Promise<LagFigures> {
          clearInterval(poll);
          for (const id of lastSeq.keys()) dirty.add(id);
          await (reading ?? Promise.resolve());
          await read();
          await listener.end();
          ownPids.delete(listenerPid);
          // Events written before the scenario (numbered late by a pass of its own) are not its lag.
          const events = numbered.filter((e) => e.at >= since - 1000);
          const byLoad = new Map<string, typeof events>();
          for (const e of events) {
            if (!e.load) continue;
            const list = byLoad.get(e.load);
            if (list) list.push(e);
            else byLoad.set(e.load, [e]);
          }
          const fromAnswer: number[] = [];
          const fromWrite: number[] = [];
          for (const s of samples) {
            // Its events: of its loads, written while the request was in flight (the service's clock is
            // this machine's; occurred_at has millisecond precision). Concurrent requests may write the
            // same load meanwhile: a request's records share the write's time, so the time most of the
            // candidates share is the request's own. A load named twice in a request (two of its legs) is
            // looked up once, so each event counts once.
            const candidates = [...new Set(s.loads)].flatMap((load) => byLoad.get(load)?.filter((e) => e.at >= s.sentAt - 2 && e.at <= s.answeredAt + 1) ?? []);
            const votes = new Map<number, number>();
            for (const e of candidates) votes.set(e.at, (votes.get(e.at) ?? 0) + 1);
            const own = [...votes].sort((a, b) => b[1] - a[1])[0]?.[0];
            for (const e of candidates) {
              if (e.at !== own) continue;
              fromAnswer.push(e.seenAt - s.answeredAt);
              fromWrite.push(e.seenAt - e.at);
            }
          }
          return {
            fromAnswer: { writes: fromAnswer.length, ...spread(fromAnswer) },
            fromWrite: spread(fromWrite),
            events: events.length,
          };
        },
      };
    },
    async close() {
      await client.end();
    },
  };
}
