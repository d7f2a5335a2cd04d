/**
 * Ingest accounting without a second round trip on the hot path: events are aggregated in memory
 * and flushed on an interval (and at shutdown) as additive upserts into five-minute buckets
 * (`count = count + excluded.count`), so several service instances on one database add up.
 *
 * Guarantees:
 * - A flush is one SQL statement (data-modifying CTEs), so it lands whole or not at all: a flush
 *   that fails for a reason outside the data (database away, schema missing) keeps its batch in
 *   memory for the next one, and a retried batch is never counted twice. On a Citus coordinator a
 *   flush is one such statement per tenant, each a call on the tenant's node (rows of several tenants
 *   in one statement are several shards' work: docs/explanation/scaling.md); each tenant's part lands
 *   whole or stays in memory on its own.
 * - One bad event never blocks the others: text taken from a rejected body (permalink, field,
 *   message) is made storable when it is recorded (no NUL, no lone surrogate, within the column
 *   length), and should a row still be refused for its data (SQLSTATE class 22 or 23), the batch is
 *   split in halves until the offending rows are isolated: every other row is written, the
 *   offending ones are dropped with an error log line, never retried.
 * - Flushes never overlap: a flush asked for while one runs waits for it and then writes everything
 *   recorded meanwhile (callers that ask at the same time share that one follow-up flush).
 * - Dry runs (`event.dryRun`) are counted in their own rows (`dry_run`), and only counted: they
 *   move no source's last received time and enter no rejection sample (a rehearsal never makes a
 *   silent path look alive nor pushes production rejections out of the sample).
 * - Memory and tables stay bounded: at most `rejectionSampleSize` rejections per tenant (the most
 *   recent) in memory and in `ingest_rejections`; count buckets older than `countRetentionMs` are
 *   dropped from both (nothing reads them).
 */
import type { Clock } from '../../clock.js';
import type { Database, Sql } from '../../db/database.js';
import type { Logger } from '../../logger.js';
import { isDatabaseUnavailable } from '../../errors.js';
import type { IngestEvent, IngestRecorder } from './report.js';

/** Most recent rejections kept per tenant. */
export const rejectionSampleSize = 50;
/** Width of one count bucket: "last hour" is read from whole buckets (see service.ts). */
export const bucketMs = 5 * 60_000;
/** How long count buckets are kept: the longest window read (a day) plus one bucket. */
export const countRetentionMs = 24 * 3_600_000 + bucketMs;

/** Start of the bucket holding `at`. */
export const bucketOf = (at: Date) => new Date(Math.floor(at.getTime() / bucketMs) * bucketMs);

/** NUL and lone surrogates: what a PostgreSQL text column cannot hold. */
// eslint-disable-next-line no-control-regex -- matching NUL is the point (PostgreSQL text cannot hold it).
const unstorable = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/**
 * Text from a request made storable in a PostgreSQL text column: NUL (which PostgreSQL cannot
 * store) and lone surrogates (not UTF-8) become U+FFFD, and it is cut to `max` characters without
 * splitting a surrogate pair.
 */
export function storableText(value: string, max: number): string {
  const chars = Array.from(value.replace(unstorable, '\uFFFD'));
  return chars.length > max ? chars.slice(0, max).join('') : chars.join('');
}

/** Largest rejected body kept, in characters of its JSON text (16 KiB); a larger one is kept cut, as a JSON string. */
export const maxRejectedBodyChars = 16_384;

/** A JSON value whose strings and keys a jsonb column can hold (NUL and lone surrogates become U+FFFD). */
function storableJson(value: unknown): unknown {
  if (typeof value === 'string') return value.replace(unstorable, '\uFFFD');
  if (Array.isArray(value)) return value.map(storableJson);
  if (typeof value === 'object' && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key.replace(unstorable, '\uFFFD'), storableJson(inner)]));
  }
  return value;
}

/**
 * A rejected body as it is stored: its JSON text when it fits in `maxRejectedBodyChars`, else the
 * first `maxRejectedBodyChars` characters of that text as a JSON string, marked truncated.
 */
function storableBody(body: unknown): { json: string | null; truncated: boolean } {
  if (body === undefined) return { json: null, truncated: false };
  const text = JSON.stringify(storableJson(body));
  if (text.length <= maxRejectedBodyChars) return { json: text, truncated: false };
  return { json: JSON.stringify(storableText(text, maxRejectedBodyChars)), truncated: true };
}

/** The rejection of an event as it is stored: every text within its column, the body as jsonb text (see prisma/schema.prisma). */
function storableRejection(rejection: NonNullable<IngestEvent['rejection']>): StoredRejection {
  const body = storableBody(rejection.body);
  return {
    code: rejection.code,
    message: storableText(rejection.message, 1000),
    ...(rejection.field === undefined ? {} : { field: storableText(rejection.field, 200) }),
    ...(rejection.permalink === undefined ? {} : { permalink: storableText(rejection.permalink, 100) }),
    details: rejection.details?.length
      ? JSON.stringify(rejection.details.map((d) => ({ field: storableText(d.field, 200), issue: storableText(d.issue, 1000) })))
      : null,
    body: body.json,
    bodyTruncated: body.truncated,
  };
}

/** A rejection ready for its row: texts cut to their columns, details and body as JSON text. */
interface StoredRejection {
  code: NonNullable<IngestEvent['rejection']>['code'];
  message: string;
  field?: string;
  permalink?: string;
  details: string | null;
  body: string | null;
  bodyTruncated: boolean;
}

/** A data error: the statement was refused for what a row holds (retrying it cannot help). */
function isDataError(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && /^2[23][0-9A-Z]{3}$/.test(code);
}

type Rejection = Omit<IngestEvent, 'rejection'> & { rejection: StoredRejection };

interface CountRow {
  tenantId: string;
  bucket: Date;
  source: string;
  kind: string;
  outcome: string;
  dryRun: boolean;
  count: number;
}

interface SourceRow {
  tenantId: string;
  source: string;
  at: Date;
}

interface Pending {
  counts: Map<string, CountRow>;
  lastReceived: Map<string, SourceRow>;
  /** Per tenant, oldest first, at most `rejectionSampleSize`. */
  rejections: Map<string, Rejection[]>;
}

const empty = (): Pending => ({ counts: new Map(), lastReceived: new Map(), rejections: new Map() });
const isEmpty = (p: Pending) => !p.counts.size && !p.lastReceived.size && !p.rejections.size;

/** Adds rejections to a tenant's sample, keeping the most recent `rejectionSampleSize`. */
function keepRecent(sample: Rejection[], added: readonly Rejection[]): Rejection[] {
  const merged = [...sample, ...added].sort((a, b) => a.at.getTime() - b.at.getTime());
  return merged.length > rejectionSampleSize ? merged.slice(-rejectionSampleSize) : merged;
}

/** One row of a flush: a count bucket, a source's last received time or a sampled rejection. */
type Row =
  | { table: 'counts'; key: string; value: CountRow }
  | { table: 'sources'; key: string; value: SourceRow }
  | { table: 'rejections'; key: string; value: Rejection };

const rowsOf = (batch: Pending): Row[] => [
  ...[...batch.counts].map(([key, value]) => ({ table: 'counts' as const, key, value })),
  ...[...batch.lastReceived].map(([key, value]) => ({ table: 'sources' as const, key, value })),
  ...[...batch.rejections].flatMap(([key, sample]) => sample.map((value) => ({ table: 'rejections' as const, key, value }))),
];

function batchOf(rows: readonly Row[]): Pending {
  const batch = empty();
  for (const row of rows) {
    if (row.table === 'counts') batch.counts.set(row.key, row.value);
    else if (row.table === 'sources') batch.lastReceived.set(row.key, row.value);
    else batch.rejections.set(row.key, [...(batch.rejections.get(row.key) ?? []), row.value]);
  }
  return batch;
}

/** A batch's rows per tenant: each tenant with its rows as a batch of their own. */
function byTenant(batch: Pending): [string, Pending][] {
  const rows = new Map<string, Row[]>();
  for (const row of rowsOf(batch)) rows.set(row.value.tenantId, [...(rows.get(row.value.tenantId) ?? []), row]);
  return [...rows].map(([tenantId, own]) => [tenantId, batchOf(own)]);
}

/** Two disjoint parts of one batch, back together. */
const merge = (a: Pending, b: Pending): Pending => batchOf([...rowsOf(a), ...rowsOf(b)]);

/** What a dropped row held, for the log (no request text beyond the rejection's code and field). */
const describeRows = (rows: readonly Row[]) =>
  rows.map((row) =>
    row.table === 'rejections'
      ? { table: row.table, tenantId: row.value.tenantId, kind: row.value.kind, code: row.value.rejection.code }
      : row.table === 'counts'
        ? { table: row.table, tenantId: row.value.tenantId, kind: row.value.kind, outcome: row.value.outcome, dryRun: row.value.dryRun, count: row.value.count }
        : { table: row.table, tenantId: row.value.tenantId, source: row.value.source },
  );

export interface RecorderOptions {
  db: Database;
  clock: Clock;
  logger: Logger;
  /** 0 disables the timer (tests flush by hand). */
  flushIntervalMs: number;
}

/** Rows of a flush whose tenant still exists (a deleted tenant must not block everyone's accounting). */
const liveTenant = (alias: string) => `WHERE EXISTS (SELECT 1 FROM tenants t WHERE t.id = ${alias}.tenant_id)`;

/**
 * A flush's rows (the stored rows named by alias, not by table: on Citus a tenant's flush is carried to its
 * node with every table renamed to the tenant's shard; exported for the carried statements' test).
 */
export const writeStatement = `
WITH counts AS (
  INSERT INTO ingest_counts AS n (tenant_id, bucket_start, source, kind, outcome, dry_run, count)
  SELECT * FROM unnest($1::uuid[], $2::timestamptz[], $3::text[], $4::text[], $5::text[], $6::boolean[], $7::int[])
    AS c(tenant_id, bucket_start, source, kind, outcome, dry_run, count) ${liveTenant('c')}
  ON CONFLICT (tenant_id, bucket_start, source, kind, outcome, dry_run) DO UPDATE SET count = n.count + EXCLUDED.count
), sources AS (
  INSERT INTO ingest_sources AS l (tenant_id, source, last_received_at)
  SELECT * FROM unnest($8::uuid[], $9::text[], $10::timestamptz[]) AS s(tenant_id, source, last_received_at) ${liveTenant('s')}
  ON CONFLICT (tenant_id, source) DO UPDATE SET last_received_at = GREATEST(l.last_received_at, EXCLUDED.last_received_at)
), rejections AS (
  INSERT INTO ingest_rejections (tenant_id, source, kind, code, field, message, permalink, received_at, details, body, body_truncated)
  SELECT * FROM unnest($11::uuid[], $12::text[], $13::text[], $14::text[], $15::text[], $16::text[], $17::text[], $18::timestamptz[],
      $19::jsonb[], $20::jsonb[], $21::boolean[])
    AS r(tenant_id, source, kind, code, field, message, permalink, received_at, details, body, body_truncated) ${liveTenant('r')}
)
SELECT 1`;

/**
 * Housekeeping after a successful write (idempotent, so a failure only postpones it): drops the
 * flushed tenants' expired count buckets and trims their rejection samples to the most recent. The
 * tenants are `tenants` (a condition on `tenant_id`): the flushed ones at once (`= ANY($1)`, `$3` those
 * with rejections), or one tenant (`= $1`, `$3` the same), which Citus gets as one call on the tenant's
 * node (an array of tenants is every shard's work, and so is a DELETE … USING a windowed subquery there).
 */
const pruneStatementOf = (counted: string, rejected: string) => `
WITH expired AS (
  DELETE FROM ingest_counts WHERE tenant_id ${counted} AND bucket_start < $2::timestamptz
), trimmed AS (
  DELETE FROM ingest_rejections r USING (
    SELECT tenant_id, id FROM (
      SELECT tenant_id, id, row_number() OVER (PARTITION BY tenant_id ORDER BY received_at DESC, id) AS n
      FROM ingest_rejections WHERE tenant_id ${rejected}) ranked
    WHERE n > $4::int) old
  WHERE r.tenant_id = old.tenant_id AND r.id = old.id
)
SELECT 1`;
const pruneStatement = pruneStatementOf('= ANY($1::uuid[])', '= ANY($3::uuid[])');
/** One tenant's housekeeping, on Citus one call on its node (exported for the carried statements' test). */
export const pruneTenantStatement = pruneStatementOf('= $1::uuid', '= $3::uuid');

export function createIngestRecorder({ db, clock, logger, flushIntervalMs }: RecorderOptions): IngestRecorder {
  let pending = empty();

  function record(event: IngestEvent) {
    const bucket = bucketOf(event.at);
    const dryRun = event.dryRun === true;
    const key = `${event.tenantId}|${bucket.getTime()}|${event.source}|${event.kind}|${event.outcome}|${dryRun}`;
    const row = pending.counts.get(key);
    if (row) row.count++;
    else pending.counts.set(key, { tenantId: event.tenantId, bucket, source: event.source, kind: event.kind, outcome: event.outcome, dryRun, count: 1 });
    if (dryRun) return;
    const sourceKey = `${event.tenantId}|${event.source}`;
    const last = pending.lastReceived.get(sourceKey);
    if (!last || last.at < event.at) pending.lastReceived.set(sourceKey, { tenantId: event.tenantId, source: event.source, at: event.at });
    if (event.rejection) {
      const rejection: Rejection = { ...event, rejection: storableRejection(event.rejection) };
      pending.rejections.set(event.tenantId, keepRecent(pending.rejections.get(event.tenantId) ?? [], [rejection]));
    }
  }

  /** Writes a batch over `sql`: a tenant's call on its node on Citus (the batch that tenant's), `db.sql` elsewhere. */
  async function write(batch: Pending, sql: Sql) {
    const c = [...batch.counts.values()];
    const s = [...batch.lastReceived.values()];
    const r = [...batch.rejections.values()].flat();
    await sql.query(writeStatement, [
      c.map((x) => x.tenantId),
      c.map((x) => x.bucket),
      c.map((x) => x.source),
      c.map((x) => x.kind),
      c.map((x) => x.outcome),
      c.map((x) => x.dryRun),
      c.map((x) => x.count),
      s.map((x) => x.tenantId),
      s.map((x) => x.source),
      s.map((x) => x.at),
      r.map((e) => e.tenantId),
      r.map((e) => e.source),
      r.map((e) => e.kind),
      r.map((e) => e.rejection.code),
      r.map((e) => e.rejection.field ?? null),
      r.map((e) => e.rejection.message),
      r.map((e) => e.rejection.permalink ?? null),
      r.map((e) => e.at),
      r.map((e) => e.rejection.details),
      r.map((e) => e.rejection.body),
      r.map((e) => e.rejection.bodyTruncated),
    ]);
  }

  async function prune(batch: Pending) {
    const tenants = [...new Set([...batch.counts.values()].map((x) => x.tenantId))];
    const rejected = [...batch.rejections.keys()];
    const cutoff = new Date(clock.now().getTime() - countRetentionMs);
    if (!(await db.citus())) {
      await db.sql.query(pruneStatement, [tenants, cutoff, rejected, rejectionSampleSize]);
      return;
    }
    // On Citus one call per tenant on its node, as a write is (docs/explanation/scaling.md).
    for (const tenantId of new Set([...tenants, ...rejected])) {
      await db.tenantSql(tenantId).query(pruneTenantStatement, [tenantId, cutoff, rejected.includes(tenantId) ? tenantId : null, rejectionSampleSize]);
    }
  }

  /** Puts a batch that could not be written back in front of what arrived meanwhile. */
  function restore(batch: Pending) {
    const cutoff = clock.now().getTime() - countRetentionMs;
    for (const [key, row] of batch.counts) {
      if (row.bucket.getTime() < cutoff) continue; // expired while the database was away: nothing would read it
      const current = pending.counts.get(key);
      if (current) current.count += row.count;
      else pending.counts.set(key, row);
    }
    for (const [key, last] of batch.lastReceived) {
      const current = pending.lastReceived.get(key);
      if (!current || current.at < last.at) pending.lastReceived.set(key, last);
    }
    for (const [tenantId, sample] of batch.rejections) {
      pending.rejections.set(tenantId, keepRecent(sample, pending.rejections.get(tenantId) ?? []));
    }
  }

  /**
   * Writes a batch; when the database refuses it for its data, writes each half on its own (down to
   * single rows, which are then dropped), so only the offending rows are lost. Returns what could not
   * be written for another reason (kept for the next flush), or null when everything was handled.
   */
  async function writeIsolating(batch: Pending, sql: Sql): Promise<{ left: Pending; error: unknown } | null> {
    try {
      await write(batch, sql);
      return null;
    } catch (error) {
      if (isDatabaseUnavailable(error) || !isDataError(error)) return { left: batch, error };
      const rows = rowsOf(batch);
      if (rows.length <= 1) {
        logger.error({ err: error, dropped: describeRows(rows) }, 'ingest accounting dropped an event the database refuses to store');
        return null;
      }
      const half = Math.ceil(rows.length / 2);
      const first = await writeIsolating(batchOf(rows.slice(0, half)), sql);
      if (first) return { left: merge(first.left, batchOf(rows.slice(half))), error: first.error };
      return writeIsolating(batchOf(rows.slice(half)), sql);
    }
  }

  async function flushOnce() {
    const batch = pending;
    pending = empty();
    if (isEmpty(batch)) return;
    // On Citus each tenant's part is a statement of its own, a call on the tenant's node (see the header).
    const parts = (await db.citus()) ? byTenant(batch).map(([tenantId, part]) => ({ part, sql: db.tenantSql(tenantId) })) : [{ part: batch, sql: db.sql }];
    for (const { part, sql } of parts) {
      const failed = await writeIsolating(part, sql);
      if (failed) {
        restore(failed.left);
        logger.warn({ err: failed.error }, 'ingest accounting flush failed; will retry');
        continue;
      }
      await prune(part).catch((error) => logger.warn({ err: error }, 'ingest accounting pruning failed; will retry'));
    }
  }

  let running: Promise<void> | null = null;
  let queued: Promise<void> | null = null;

  function flush(): Promise<void> {
    if (queued) return queued;
    if (!running) {
      running = flushOnce().finally(() => {
        running = null;
      });
      return running;
    }
    queued = running.then(() => {
      queued = null;
      return flush();
    });
    return queued;
  }

  const timer = flushIntervalMs > 0 ? setInterval(() => void flush(), flushIntervalMs) : null;
  timer?.unref();

  return {
    record,
    flush,
    async close() {
      if (timer) clearInterval(timer);
      await flush();
      if (!isEmpty(pending)) {
        const lost = [...pending.counts.values()].reduce((sum, row) => sum + row.count, 0);
        logger.error({ lostEvents: lost }, 'ingest accounting could not be written at shutdown');
      }
    },
  };
}
