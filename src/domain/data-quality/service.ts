/**
 * Data quality of one tenant (api-contract.md F; docs/decisions/0035-data-quality.md,
 * docs/decisions/0040-quality-counts-records.md): per record kind, the records written in the window
 * (each once, by its latest write: the values it holds now) and, per recommended field, how many of
 * them leave it empty, read from the stored records; beside them the contract's coverage, which counts
 * writes (every accepted write, skipped re-posts included, per source: the write statements' counters,
 * db/field-coverage.ts); and the findings: checks across stored records that no single request can
 * fail, each with a count and the newest permalinks to fix. Read by GraphQL `dataQuality` (graphql.ts).
 *
 * Every finding is computed on demand for the window, by one index-backed statement that starts at
 * the tenant's loads active since `since` (`load_activity (tenant_id, last_activity_at)`: every child's
 * write moves its load's activity) and reaches their legs, stops and updates by their parent keys; their
 * costs on 100,000 loads are in docs/guides/data-quality.md.
 */
import type { Database } from '../../db/database.js';
import { readFieldCoverage } from '../../db/field-coverage.js';
import { AppError } from '../../errors.js';
import { readUnmappedStatuses } from '../ingest-health/service.js';
import type { IngestSourceName } from '../ingest-health/report.js';
import { recordSpecOf, recordSpecs, type RecordKind } from '../registry.js';
import { recommendedFields, tableOf, type RecordSpec } from '../declaration/record.js';
import { quote } from '../../db/sql-text.js';

/** The window read when no `since` is given: the last 24 hours (api-contract.md F). */
const defaultWindowMs = 24 * 3_600_000;

/** Most example permalinks a finding or a field answers (`first` is at most this). */
export const maxExamples = 50;

/** The tenant's loads (`l`) with their activity (`a`): the window starts at `a.last_activity_at`'s index. */
const activeLoads = 'load_activity a JOIN loads l ON l.tenant_id = a.tenant_id AND l.id = a.load_id';

/** The window over `activeLoads`: the tenant's (`$1`) loads active since the window's start (`$2`). */
const inWindow = 'a.tenant_id = $1 AND a.last_activity_at >= $2';

/** How long a load may stay without a live leg before it is the `load_without_legs` finding. */
export const legGraceMs = 15 * 60_000;

/** How far after its receipt an update's `occurred_at` may lie before it is the `update_in_future` finding. */
export const futureToleranceMs = 15 * 60_000;

/** The coverage of one recommended field of one kind over the window. */
export interface FieldCoverage {
  kind: RecordKind;
  field: string;
  feeds: string;
  /** Accepted writes of the window that carried a non-empty value (the contract's coverage: skipped and duplicate writes too). */
  present: number;
  /** Accepted writes of the window that left it empty. */
  missing: number;
  /** present / (present + missing); null when both are 0. */
  ratio: number | null;
  /** Records of the window (`KindQuality.records`) whose stored value is empty: those `missingExamples` lists. */
  recordsMissing: number;
}

export interface KindQuality {
  kind: RecordKind;
  /** Live records of the kind written in the window, each counted once (by its latest write), whatever its source. */
  records: number;
  /** Accepted writes of the kind counted in the window (processed, skipped, duplicate), of the source asked for. */
  writes: number;
  fields: FieldCoverage[];
}

/** The codes of the findings (api-contract.md F): stable, never renamed. */
export type FindingCode =
  'load_without_legs' | 'leg_sequence_gap' | 'stop_without_appointment' | 'update_without_position' | 'update_in_future' | 'unmapped_status';

export interface QualityFinding {
  code: FindingCode;
  kind: RecordKind;
  count: number;
  message: string;
  /** Permalinks of the records to fix, newest first (at most `maxExamples`). */
  examples: string[];
}

export interface DataQuality {
  tenantId: string;
  since: Date;
  /** The source the coverage was read for; null: every source. */
  source: IngestSourceName | null;
  kinds: KindQuality[];
  findings: QualityFinding[];
}

export interface ReadDataQualityOptions {
  db: Database;
  tenantId: string;
  now: Date;
  /** Start of the window; default `now` minus 24 hours. */
  since?: Date | null;
  source?: IngestSourceName | null;
}

/** The window's start: the given instant, or 24 hours before `now`. */
function windowStart(now: Date, since?: Date | null): Date {
  return since ?? new Date(now.getTime() - defaultWindowMs);
}

/** A text column "missing" as coverage counts it: null, or white space only; any other column: null. */
const missingSql = (column: string, type: string) => (type === 'text' ? `(${column} IS NULL OR ${column} ~ '^[[:space:]]*$')` : `${column} IS NULL`);

/** The stored column of a recommended field (its column, or its parent's reference) and its type. */
function columnOf(spec: RecordSpec, field: string): { column: string; type: string } {
  const column = spec.columns[field];
  if (column) return column;
  const parent = spec.parents.find((p) => p.field === field);
  if (parent) return { column: parent.column, type: 'uuid' };
  throw new Error(`${spec.kind}.${field}: a recommended field with no column`);
}

/** A kind's write time: `changed_at`, or `created_at` for an append-only kind (whose records are never changed). */
const timeOf = (spec: RecordSpec) => (spec.freshness === 'append_only' ? 'created_at' : 'changed_at');
/** A kind's records that live: without a tombstone (an append-only kind keeps none). */
const liveOnly = (spec: RecordSpec, alias: string) => (spec.freshness === 'append_only' ? [] : [`${alias}.deleted_at IS NULL`]);

/**
 * Where a kind's records of the window are, as SQL over the alias `t` (parameters: $1 tenant, $2
 * since), derived from its declaration: a kind under no load by its own rows; a load itself among the
 * loads active in the window (its activity is never before its `changed_at`, which has no index:
 * decision 0053), newest first by its own time; a kind under a load (its `load` chain, `tableOf`) under
 * the loads active in the window (`l`), reached through its parents on the way, newest first by their
 * load's activity.
 */
function windowOf(spec: RecordSpec): { from: string; where: string; order: string } {
  const time = `t.${timeOf(spec)}`;
  const path = tableOf(spec, recordSpecs).loadPath;
  if (!path) {
    return { from: `${spec.table} t`, where: ['t.tenant_id = $1', ...liveOnly(spec, 't'), `${time} >= $2`].join(' AND '), order: `${time} DESC, t.id DESC` };
  }
  if (!path.length) {
    return {
      from: `load_activity a JOIN ${spec.table} t ON t.tenant_id = a.tenant_id AND t.id = a.load_id`,
      where: [inWindow, ...liveOnly(spec, 't'), `${time} >= $2`].join(' AND '),
      order: `${time} DESC, t.id DESC`,
    };
  }
  // The hops from the record up to its load (`[{ table, column }]`: the row of `table` that the previous row's `column` names), joined from the load down.
  const aliases = path.map((hop, i) => (i === path.length - 1 ? 'l' : `h${i + 1}`));
  const joins: string[] = [];
  const live = ['l.deleted_at IS NULL'];
  for (let i = path.length - 2; i >= 0; i--) {
    const hop = path[i]!;
    const [a, up] = [aliases[i]!, aliases[i + 1]!];
    joins.push(`JOIN ${hop.table} ${a} ON ${a}.tenant_id = ${up}.tenant_id AND ${a}.${path[i + 1]!.column} = ${up}.id`);
    live.push(
      ...liveOnly(
        recordSpecs.find((k) => k.table === hop.table)!,
        a,
      ),
    );
  }
  joins.push(`JOIN ${spec.table} t ON t.tenant_id = ${aliases[0]}.tenant_id AND t.${path[0]!.column} = ${aliases[0]}.id`);
  return {
    from: `${activeLoads} ${joins.join(' ')}`,
    where: [inWindow, ...live, ...liveOnly(spec, 't'), `${time} >= $2`].join(' AND '),
    order: `a.last_activity_at DESC, l.id DESC, ${time} DESC`,
  };
}

const windowed = Object.fromEntries(recordSpecs.map((spec) => [spec.kind, windowOf(spec)])) as Record<
  RecordKind,
  { from: string; where: string; order: string }
>;

/**
 * The newest permalinks (at most `first`) of the tenant's records of `kind` in the window whose
 * stored `field` is empty: the records to fix. Read from the stored records (whatever source wrote them).
 */
export async function readMissingExamples(db: Database, q: { tenantId: string; kind: RecordKind; field: string; since: Date; first: number }) {
  const spec = recordSpecOf[q.kind];
  const { column, type } = columnOf(spec, q.field);
  const w = windowed[q.kind];
  const rows = await db.sql.query<{ permalink: string }>(
    `SELECT t.permalink FROM ${w.from} WHERE ${w.where} AND ${missingSql(`t.${quote(column)}`, type)} ORDER BY ${w.order} LIMIT $3`,
    [q.tenantId, q.since, q.first],
  );
  return rows.map((row) => row.permalink);
}

/**
 * The records of each kind written in the window, each once with the values its latest write stored,
 * and per recommended field how many leave it empty: one statement per kind over the rows
 * `readMissingExamples` reads (so a field's count is the number of records it would list).
 */
async function readRecordCounts(
  db: Database,
  q: { tenantId: string; since: Date },
): Promise<Map<RecordKind, { records: number; missing: Map<string, number> }>> {
  const counted = recordSpecs.filter((spec) => recommendedFields(spec).length);
  const answers = await Promise.all(
    counted.map(async (spec) => {
      const fields = recommendedFields(spec).map(({ field }) => field);
      const w = windowed[spec.kind];
      const sums = fields.map((field, i) => {
        const { column, type } = columnOf(spec, field);
        return `, count(*) FILTER (WHERE ${missingSql(`t.${quote(column)}`, type)})::int8 AS m${i}`;
      });
      const [row] = await db.sql.query<Record<string, unknown>>(
        `SELECT count(*)::int8 AS records${sums.join('')} FROM ${w.from} WHERE ${w.where}`,
        [q.tenantId, q.since],
        `quality_records_${spec.kind}`,
      );
      const missing = new Map(fields.map((field, i) => [field, Number(row?.[`m${i}`] ?? 0)]));
      return [spec.kind, { records: Number(row?.records ?? 0), missing }] as const;
    }),
  );
  return new Map(answers);
}

/** One finding's statement: the matches (`permalink` and an `at` to order them, newest first) as SQL over $1 tenant, $2 since, $4 now. */
interface FindingCheck {
  code: Exclude<FindingCode, 'unmapped_status'>;
  kind: RecordKind;
  matches: string;
  message: (count: number) => string;
}

const plural = (count: number, one: string, many: string) => `${count.toLocaleString('en-US')} ${count === 1 ? one : many}`;

const checks: readonly FindingCheck[] = [
  {
    code: 'load_without_legs',
    kind: 'load',
    matches: `SELECT l.permalink, a.last_activity_at AS at, l.id FROM ${activeLoads}
      WHERE ${inWindow} AND l.deleted_at IS NULL AND l.created_at <= $4::timestamptz - interval '${legGraceMs / 60_000} minutes'
        AND NOT EXISTS (SELECT 1 FROM load_legs g WHERE g.tenant_id = l.tenant_id AND g.load_id = l.id AND g.deleted_at IS NULL)`,
    message: (n) =>
      `${plural(n, 'load has', 'loads have')} no live leg ${legGraceMs / 60_000} minutes or more after being created: no carrier, driver or stop is known for ${n === 1 ? 'it' : 'them'}. Send the legs (POST /api/v1/loadlegs/upsert).`,
  },
  {
    code: 'leg_sequence_gap',
    kind: 'load',
    matches: `SELECT l.permalink, a.last_activity_at AS at, l.id FROM ${activeLoads}
      WHERE ${inWindow} AND l.deleted_at IS NULL
        AND (SELECT bool_or(g.sequence IS NULL) OR count(DISTINCT g.sequence) <> count(*) OR min(g.sequence) <> 1 OR max(g.sequence) <> count(*)
             FROM load_legs g WHERE g.tenant_id = l.tenant_id AND g.load_id = l.id AND g.deleted_at IS NULL)`,
    message: (n) =>
      `${plural(n, 'load has', 'loads have')} live legs whose load_leg_sequence values are not 1, 2, … n (a gap, a repeat or a missing sequence): the route is shown out of order or with a leg missing.`,
  },
  {
    code: 'stop_without_appointment',
    kind: 'stop',
    matches: `SELECT t.permalink, a.last_activity_at AS at, l.id FROM ${activeLoads} JOIN load_legs g ON g.tenant_id = l.tenant_id AND g.load_id = l.id JOIN stops t ON t.tenant_id = g.tenant_id AND t.leg_id = g.id
      WHERE ${inWindow} AND l.deleted_at IS NULL AND g.deleted_at IS NULL AND t.deleted_at IS NULL AND t.changed_at >= $2
        AND t.appointment_start IS NULL AND t.appointment_end IS NULL`,
    message: (n) =>
      `${plural(n, 'stop has', 'stops have')} neither appointment_start nor appointment_end: nobody can tell whether ${n === 1 ? 'it is' : 'they are'} on time.`,
  },
  {
    code: 'update_without_position',
    kind: 'load_update',
    matches: `SELECT t.permalink, t.created_at AS at, l.id FROM ${activeLoads} JOIN load_updates t ON t.tenant_id = l.tenant_id AND t.load_id = l.id
      WHERE ${inWindow} AND l.deleted_at IS NULL AND t.created_at >= $2
        AND (t.latitude IS NULL OR t.longitude IS NULL) AND (t.city IS NULL OR t.city ~ '^[[:space:]]*$')`,
    message: (n) =>
      `${plural(n, 'load update has', 'load updates have')} neither coordinates (latitude and longitude) nor a city: nobody can tell where the load was.`,
  },
  {
    code: 'update_in_future',
    kind: 'load_update',
    matches: `SELECT t.permalink, t.created_at AS at, l.id FROM ${activeLoads} JOIN load_updates t ON t.tenant_id = l.tenant_id AND t.load_id = l.id
      WHERE ${inWindow} AND l.deleted_at IS NULL AND t.created_at >= $2
        AND t.occurred_at > t.created_at + interval '${futureToleranceMs / 60_000} minutes'`,
    message: (n) =>
      `${plural(n, 'load update has', 'load updates have')} an occurred_at more than ${futureToleranceMs / 60_000} minutes after ${n === 1 ? 'it was' : 'they were'} received: a clock or time-zone error in the feed (send UTC or an offset).`,
  },
];

/** The SQL of one finding: its count and its newest `$3` permalinks, in one statement. */
const findingSql = (check: Pick<FindingCheck, 'matches'>) =>
  `WITH hits AS (${check.matches})
   SELECT (SELECT count(*) FROM hits)::int8 AS count, ARRAY(SELECT permalink FROM hits ORDER BY at DESC, id DESC, permalink LIMIT $3) AS examples`;

async function readFinding(db: Database, check: FindingCheck, q: { tenantId: string; since: Date; now: Date }): Promise<QualityFinding> {
  // Only a statement that reads `now` ($4) is given it (an unused parameter has no type for PostgreSQL).
  const params = [q.tenantId, q.since, maxExamples, ...(check.matches.includes('$4') ? [q.now] : [])];
  const [row] = await db.sql.query<{ count: unknown; examples: string[] }>(findingSql(check), params, `finding_${check.code}`);
  const count = Number(row?.count ?? 0);
  return { code: check.code, kind: check.kind, count, message: check.message(count), examples: row?.examples ?? [] };
}

/** `unmapped_status`: ingest health's report of statuses without a phase mapping (all live loads, not only the window's). */
async function readUnmappedFinding(db: Database, tenantId: string): Promise<QualityFinding> {
  const [statuses, examples] = await Promise.all([
    readUnmappedStatuses(db, tenantId),
    db.sql.query<{ permalink: string }>(
      `SELECT l.permalink FROM ${activeLoads}
       WHERE l.tenant_id = $1 AND l.deleted_at IS NULL AND l.phase = 'UNMAPPED' AND btrim(coalesce(l.status, '')) <> ''
       ORDER BY a.last_activity_at DESC, l.id DESC LIMIT $2`,
      [tenantId, maxExamples],
      'finding_unmapped_status',
    ),
  ]);
  const count = statuses.reduce((sum, s) => sum + s.loadCount, 0);
  const named = statuses.map((s) => s.status).join(', ');
  return {
    code: 'unmapped_status',
    kind: 'load',
    count,
    message: `${plural(count, 'load carries', 'loads carry')} a status with no phase mapping${named ? ` (${named})` : ''}: their phase is UNMAPPED. Map each status with setStatusMapping.`,
    examples: examples.map((row) => row.permalink),
  };
}

/** The tenant's data quality for the window starting at `since` (default: the last 24 hours). */
export async function readDataQuality({ db, tenantId, now, since, source = null }: ReadDataQualityOptions): Promise<DataQuality> {
  const start = windowStart(now, since);
  if (Number.isNaN(start.getTime())) throw new AppError('validation_failed', 'since must be a date-time.', [{ field: 'since', issue: 'must be a date-time' }]);
  const q = { tenantId, since: start, now };
  const [coverage, stored, ...findings] = await Promise.all([
    readFieldCoverage(db.sql, { tenantId, since: start, source }),
    readRecordCounts(db, q),
    ...checks.map((check) => readFinding(db, check, q)),
    readUnmappedFinding(db, tenantId),
  ]);
  const counted = new Map(coverage.fields.map((row) => [`${row.kind}|${row.field}`, row]));
  const kinds = recordSpecs.flatMap((spec): KindQuality[] => {
    const records = stored.get(spec.kind);
    const fields = recommendedFields(spec).map(({ field, feeds }) => {
      const row = counted.get(`${spec.kind}|${field}`);
      const present = row?.present ?? 0;
      const missing = row?.missing ?? 0;
      const recordsMissing = records?.missing.get(field) ?? 0;
      return { kind: spec.kind, field, feeds, present, missing, ratio: present + missing === 0 ? null : present / (present + missing), recordsMissing };
    });
    return fields.length ? [{ kind: spec.kind, records: records?.records ?? 0, writes: coverage.records.get(spec.kind) ?? 0, fields }] : [];
  });
  return { tenantId, since: start, source, kinds, findings };
}
