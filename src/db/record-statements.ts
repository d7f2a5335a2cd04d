/**
 * Every write statement of a record table is built here, once per table at module load:
 * - the set-based upsert of one or many records: parent lookups, the tenant-scoped `INSERT … ON
 *   CONFLICT (tenant_id, permalink)` and the `sync_run_time` guard are one atomic database step per
 *   record, so concurrent requests can neither create two records nor overwrite fresher data
 *   (api-contract.md, "sync_run_time precisely");
 * - a user's edit of a stored record (`UPDATE … WHERE tenant_id AND permalink`).
 * Both share the keep-unless-sent rule (an absent field keeps its stored value) and the phase
 * lookup. This module knows tables and columns only; the domain describes its records with them.
 */
import { historyCte } from './payload-history.js';
import { activityCte, changeEffects, eventsCte, eventTime, loadIdJoin, loadJoin, loadSetCtes, type SetDeltas } from './record-effects.js';
import type { CascadeTable, ColumnSpec, ParentColumn, RecordTable } from './record-table.js';

/**
 * SQL for the phase of a status (both arguments SQL expressions), looked up in the tenant's status
 * mapping as the mapping stores its keys (trimmed, lower case): what every write path stores.
 */
const phaseSql = (tenantId: string, status: string) =>
  `COALESCE((SELECT m.phase FROM status_mappings m WHERE m.tenant_id = ${tenantId} AND m.status_key = status_key(${status}::text)), 'UNMAPPED')`;

const q = (identifier: string) => `"${identifier}"`;

/** `column = value`, unless `sentColumn` is absent from the present-columns parameter: then the stored value stays. */
const keepUnlessSent = (column: string, present: string, value: string, sentColumn = column) =>
  `${q(column)} = CASE WHEN '${sentColumn}' = ANY(${present}::text[]) THEN ${value} ELSE t.${q(column)} END`;

/** One record to write: its permalink, its column values and its parents' permalinks, each by column name. */
export interface UpsertRow {
  permalink: string;
  /** Column values by column name (absent or undefined → NULL); date-times as ISO 8601 strings or Dates. */
  values: Readonly<Record<string, unknown>>;
  /** Parent permalinks by the parent's column (`load_id`; absent or null → none given). */
  parents: Readonly<Record<string, string | null>>;
  extra: Record<string, unknown>;
}

/**
 * The name under which a row carries its parent's permalink (into the statement, as a field of its
 * JSON row) and under which the statement answers whether it found the parent.
 */
const parentPermalink = (parent: ParentColumn) => `${parent.column}_permalink`;
const parentFound = (parent: ParentColumn) => `${parent.column}_found`;

/**
 * What the log entries of a statement record (db/payload-history.ts's `historyCte`; a statement built
 * with `history: true` or `coverage`): one per settled row.
 */
export interface HistoryInput {
  source: string;
  requestId: string | null;
  /** The request's parameters as received (db/payload-history.ts); null when none. */
  query: string | null;
  /** The bodies as received, in `rows` order (keys and values verbatim); required by `history: true`. */
  bodies?: readonly unknown[];
  /**
   * Per row, in `rows` order, the presence of the counted recommended fields as a bit string ('1011',
   * in the order of `UpsertOptions.coverage`); required by a statement built with `coverage`.
   */
  coverage?: readonly string[];
}

/** What one statement writes: rows with distinct permalinks that carry the same fields. */
export interface UpsertInput {
  tenantId: string;
  now: Date;
  /** The request's `sync_run_time`; null for event-driven posts. */
  syncRunTime: Date | null;
  /** Columns the rows' bodies carried: absent fields keep their stored value on update. */
  present: readonly string[];
  rows: readonly UpsertRow[];
  /** Required by a statement built with `history: true` or `coverage`, ignored otherwise. */
  history?: HistoryInput;
}

export interface RowResult {
  /** true: created; false: updated; null: nothing written (skipped, duplicate or a missing parent). */
  inserted: boolean | null;
  /** Delete statements only: what the delete found (`deleted` now, `already_deleted`, `not_found`, or `skipped`). */
  tombstone?: 'deleted' | 'already_deleted' | 'not_found' | 'skipped';
  /** Tables with a phase: the phase the written row's status maps to (null when nothing was written or it has none). */
  phase?: string | null;
  /** By the parent's column, whether it was found (null when no permalink was given). */
  parents: Record<string, boolean | null>;
  /**
   * Upserts only: the record was created by a concurrent transaction while the statement ran, so
   * nothing was written or derived for it; written again, it is read as stored (`raced`, below).
   */
  raced?: boolean;
}

export interface UpsertStatement {
  name: string;
  text: string;
  params(input: UpsertInput): unknown[];
  /**
   * A statement to run first, in the same transaction (a delete that cascades: it locks the rows to
   * delete, so the delete's own statement, which starts after every writer of a child under them has
   * committed, sees those children too).
   */
  lock?: { name: string; text: string; params(input: UpsertInput): unknown[] };
  /** The statement's result rows → one result per input row, in input order. */
  read(rows: readonly Record<string, unknown>[], count: number): RowResult[];
}

/**
 * SQL for the permalink of the load an input row (`i`, with its parents' permalinks) belongs to: the
 * order every write takes its locks in (none for tables under no load, or for loads: their own).
 */
function loadOrder(spec: RecordTable): string[] {
  const path = spec.loadPath;
  if (!path?.length) return [];
  const first = spec.parents.find((p) => p.column === path[0]!.column);
  if (!first) throw new Error(`${spec.table}: its load path starts at ${path[0]!.column}, no parent`);
  const permalink = `i.${q(parentPermalink(first))}`;
  if (path.length === 1) return [permalink];
  // Up the chain from the first parent (found by its permalink) to the load, each hop in the tenant.
  const hops = path
    .slice(1)
    .map((hop, n) => `JOIN ${q(hop.table)} h${n + 1} ON h${n + 1}.tenant_id = h${n}.tenant_id AND h${n + 1}.id = h${n}.${q(hop.column)}`);
  return [
    `(SELECT h${path.length - 1}.permalink FROM ${q(path[0]!.table)} h0 ${hops.join(' ')} WHERE h0.tenant_id = $1::uuid AND h0.permalink = ${permalink})`,
  ];
}

/**
 * The CTE of the log entries of a statement's settled rows (db/payload-history.ts's `historyCte`): the
 * tenant `$1`, the time `$2`, and the request's source, id and query as the parameters from `$<first>` on;
 * `bodies` and `coverage` SQL expressions, or null when the entries carry none.
 */
function logEntries(spec: RecordTable, first: number, log: { bodies: string | null; coverage: string | null; one: boolean }): string {
  return `,
  ${historyCte({
    settled: 'settled',
    tenantId: '$1::uuid',
    receivedAt: '$2::timestamptz',
    kind: `'${spec.name}'`,
    source: `$${first}::text`,
    requestId: `$${first + 1}::text`,
    query: `$${first + 2}::text`,
    ...log,
  })}`;
}

/** What a statement records besides its rows, and for how many rows it is planned. */
export interface UpsertOptions {
  /** Record the payload history of what it settles: its log entries carry the bodies. */
  history?: boolean;
  /**
   * Count the field coverage of these recommended fields: its log entries carry their presence, which
   * the tenant's pass adds up (docs/decisions/0051-derived-from-the-log.md).
   */
  coverage?: readonly string[];
  /**
   * The statement writes exactly one record (a single-record request): PostgreSQL plans its row set as
   * one row (a `LIMIT 1`), so each join of the statement is a nested loop over one row. Planned for a
   * set (jsonb_to_recordset counts as 100 rows), each of the statement's joins built a hash table on
   * every execution, for one row: the dearest part of a single write's execution after its index
   * inserts (docs/explanation/performance/2026-11-28-write-path.md, "The single write").
   */
  one?: boolean;
}

/**
 * Builds the set-based upsert of one table: any number of rows in one statement (the rows travel as
 * one jsonb array, unpacked by `jsonb_to_recordset`), each row atomic on its own: parent lookups,
 * `INSERT … ON CONFLICT (tenant_id, permalink)` and the `sync_run_time` guard are one database step.
 * Two rows of one statement must not share a permalink (ON CONFLICT cannot touch a row twice), and
 * they share one set of present columns (the keep-unless-sent rule is per statement).
 *
 * The same statement records what the write did (db/record-effects.ts): its change events, its phase
 * history and its loads' activity, from the stored rows before the write (each locked first, in the
 * write's order, and read at its latest version) and after it. The CTE `settled` holds the rows the
 * statement accepted (written, skipped or duplicate; not those missing a parent).
 *
 * With `history: true` or `coverage` the same statement also records a log entry per settled row
 * (db/payload-history.ts): with `history`, its body, and whether the write changed the stored record
 * (created, or a stored value — a column, a parent, the phase, `extra`, `deleted_at` — differs from the
 * row before); with `coverage`, which of those recommended fields its body carried.
 */
export function buildUpsertStatement(spec: RecordTable, options: UpsertOptions = {}): UpsertStatement {
  const history = options.history === true;
  const one = options.one === true;
  // Field coverage: the recommended fields whose presence each settled row's log entry carries.
  const coverage = options.coverage?.length ? options.coverage : null;
  const logged = history || coverage !== null;
  const { columns } = spec;
  const appendOnly = spec.freshness === 'append_only';
  // $1 tenant, $2 now, $3 rows; guarded tables also take $4 sync_run_time and $5 present columns.
  const syncRunTime = '$4::timestamptz';
  const present = '$5';
  // How many parameters precede the log entries'.
  const fixedParams = appendOnly ? 3 : 5;
  // The input rows carry every value under its column's name, each parent's permalink under its
  // `parentPermalink`; the rows CTE adds the parent's id under the parent's column.
  const value = (column: string) => `r.${q(column)}`;
  const given = (p: ParentColumn) => `r.${q(parentPermalink(p))}`;
  const found = (p: ParentColumn) => `r.${q(p.column)}`;
  if (spec.phase && !columns.some((c) => c.column === spec.phase!.statusColumn)) {
    throw new Error(`${spec.table}: phase status column ${spec.phase.statusColumn} is not a column`);
  }
  const fields = [
    ['ord', 'int'],
    ['permalink', 'text'],
    ['extra', 'jsonb'],
    ...columns.map((c) => [c.column, c.type]),
    ...spec.parents.map((p) => [parentPermalink(p), 'text']),
  ];
  const names = [...fields.map(([name]) => name), ...spec.parents.map((p) => p.column)];
  if (new Set(names).size !== names.length) throw new Error(`${spec.table}: a column's name is taken twice in the statement's rows (${names.join(', ')})`);
  const recordset = fields.map(([name, type]) => `${q(name!)} ${type}`).join(', ');
  // A deleted parent (a tombstone) is no parent: the record answers parent_not_found. The lookup
  // takes the lock the foreign key check takes anyway (KEY SHARE: no conflict with other writers of
  // the parent), a moment earlier: a delete of the parent (FOR UPDATE) in flight is waited for and
  // the parent read again, so a child never lands live under a parent deleted meanwhile, and a
  // delete waits for a child being written, whose cascade then reaches it.
  const parentIds = spec.parents.map(
    (p) =>
      `(SELECT id FROM ${q(p.table)} WHERE tenant_id = $1::uuid AND permalink = i.${q(parentPermalink(p))} AND deleted_at IS NULL FOR KEY SHARE) AS ${q(p.column)}`,
  );
  // A record deeper under a load (a stop) locks its load first, as a leg locks its load: every writer
  // under a load takes the load's lock before its parent's, in the order a load's delete takes them
  // (the load, then its legs), so the two cannot wait on each other.
  const order = loadOrder(spec);
  if (spec.loadPath && spec.loadPath.length > 1) {
    const path = spec.loadPath;
    const first = spec.parents.find((p) => p.column === path[0]!.column)!;
    const hops = path
      .slice(1)
      .map((hop, n) => `JOIN ${q(hop.table)} h${n + 1} ON h${n + 1}.tenant_id = h${n}.tenant_id AND h${n + 1}.id = h${n}.${q(hop.column)}`);
    parentIds.unshift(
      `(SELECT h${path.length - 1}.id FROM ${q(path[0]!.table)} h0 ${hops.join(' ')} WHERE h0.tenant_id = $1::uuid AND h0.permalink = i.${q(parentPermalink(first))} FOR KEY SHARE OF h${path.length - 1}) AS load_lock`,
    );
  }
  // The stored row before the write, locked now (the lock the write takes anyway), in the write's
  // order (the input is sorted first): read at its latest committed version, it is what the write
  // replaces, so its events name exactly what changed, also when writers race.
  const compares = !appendOnly;
  if (compares) {
    parentIds.push(`(SELECT b FROM ${q(spec.table)} b WHERE b.tenant_id = $1::uuid AND b.permalink = i.permalink FOR NO KEY UPDATE) AS before`);
  }
  // What "changed" compares (history): every stored value a write may replace, as one row value
  // (compared column by column with each type's equality); `deleted_at` too, so a revival is a change.
  const stored = [...columns.map((c) => c.column), ...spec.parents.map((p) => p.column), ...(spec.phase ? ['phase'] : []), 'extra', 'deleted_at'];
  const storedValues = (alias: string) => `ROW(${stored.map((column) => `${alias}.${q(column)}`).join(', ')})`;
  const storedBefore = `ROW(${stored.map((column) => `(r.before).${q(column)}`).join(', ')})`;

  // A row with a stored row before it keeps that row's id in the proposed row (`EXCLUDED.id`): the
  // update below then knows the row it conflicts with as the one it read (`raced`, below).
  const insertColumns = ['id', 'tenant_id', 'permalink', ...columns.map((c) => c.column)];
  const insertValues = [
    compares ? 'COALESCE((r.before).id, gen_random_uuid())' : 'gen_random_uuid()',
    '$1::uuid',
    'r.permalink',
    ...columns.map((c) => value(c.column)),
  ];
  spec.parents.forEach((p) => {
    insertColumns.push(p.column);
    insertValues.push(found(p));
  });
  if (spec.phase) {
    const status = value(spec.phase.statusColumn);
    insertColumns.push('phase');
    insertValues.push(
      spec.phase.withoutStatus === null
        ? `CASE WHEN coalesce(btrim(${status}), '') = '' THEN NULL ELSE ${phaseSql('$1::uuid', status)} END`
        : phaseSql('$1::uuid', status),
    );
  }
  insertColumns.push('extra');
  insertValues.push('r.extra');
  if (appendOnly) {
    insertColumns.push('created_at');
    insertValues.push('$2::timestamptz');
  } else {
    insertColumns.push('fresh_at', 'changed_at', 'created_at');
    insertValues.push(`COALESCE(${syncRunTime}, $2::timestamptz)`, '$2::timestamptz', '$2::timestamptz');
  }

  const parentsFound = spec.parents.map((p) => (p.required ? `${found(p)} IS NOT NULL` : `(${given(p)} IS NULL OR ${found(p)} IS NOT NULL)`));

  // An absent field keeps its stored value; a field sent (even as null) replaces it.
  const sent = (column: string) => keepUnlessSent(column, present, `EXCLUDED.${q(column)}`);
  const conflict = appendOnly
    ? 'DO NOTHING'
    : `DO UPDATE SET ${[
        ...columns.map((c) => sent(c.column)),
        ...spec.parents.map((p) => sent(p.column)),
        ...(spec.phase ? [keepUnlessSent('phase', present, 'EXCLUDED.phase', spec.phase.statusColumn)] : []),
        'extra = t.extra || EXCLUDED.extra',
        'fresh_at = EXCLUDED.fresh_at',
        'changed_at = EXCLUDED.changed_at',
        // An upsert that is not skipped revives a deleted record (its children stay deleted).
        'deleted_at = NULL',
      ].join(', ')}
      WHERE t.id = EXCLUDED.id AND (${syncRunTime} IS NULL OR t.fresh_at <= ${syncRunTime})`;

  // Rows are locked and inserted in the order of the load they touch (its permalink), then their own
  // permalink, so any two statements, of any kinds, lock what they share in one order. Ordered
  // otherwise, two batches locked shared loads in opposite orders and deadlocked (found by npm run
  // bench: load updates in their own permalink order; legs by load id against loads by permalink).
  const orderBy = `${order.map((key) => `${key}, `).join('')}i.permalink`;
  // A row that had no stored row when the statement read `before`, whose insert then met one (a
  // concurrent transaction created it and committed while this statement ran), is not updated (the
  // conflict's `t.id = EXCLUDED.id` fails: the stored row is not the one read, which was none), not
  // settled and derives nothing: from a `before` that is not the row the update would replace, its
  // events, phase history and city set would be false. The statement answers it `raced`, and the caller
  // writes those rows again in a statement of their own, which reads the committed row as their stored
  // row (src/domain/ingestion/ingest.ts). The other rows of the statement are written once: nothing
  // rolls back.
  const racedSql = compares ? [`w.permalink IS NULL`, `(r.before).id IS NULL`, ...parentsFound].join(' AND ') : null;
  const raced = racedSql ? `, ${racedSql} AS raced` : '';
  const settledWhere = [...parentsFound, ...(racedSql ? [`NOT (${racedSql})`] : [])];
  const effects = changeEffects(spec, 'facts');
  const text = `WITH rows AS (
    SELECT i.*${parentIds.map((p) => `, ${p}`).join('')}
    FROM (SELECT i.* FROM jsonb_to_recordset($3::jsonb) AS i(${recordset}) ORDER BY ${orderBy} ${one ? 'LIMIT 1' : 'OFFSET 0'}) i
  ),
  written AS (
    INSERT INTO ${q(spec.table)} AS t (${insertColumns.map(q).join(', ')})
    SELECT ${insertValues.join(', ')}
    FROM rows r
    ${parentsFound.length ? `WHERE ${parentsFound.join(' AND ')}` : ''}
    ON CONFLICT (tenant_id, permalink) ${conflict}
    RETURNING t.*, (t.xmax = 0) AS inserted
  ),
  facts AS (
    SELECT w.*${compares ? ', r.before' : ''}
    FROM (SELECT w.*, row_number() OVER () AS n FROM written w) w JOIN rows r ON r.permalink = w.permalink
  ),
  settled AS (
    SELECT r.ord, r.permalink,
      CASE WHEN w.permalink IS NULL THEN '${appendOnly ? 'duplicate' : 'skipped'}' ELSE 'processed' END AS outcome,
      ${compares ? `CASE WHEN w.permalink IS NULL THEN false ELSE w.inserted OR ${storedValues('w')} IS DISTINCT FROM ${storedBefore} END` : 'w.permalink IS NOT NULL'} AS changed
    FROM rows r LEFT JOIN written w ON w.permalink = r.permalink
    ${settledWhere.length ? `WHERE ${settledWhere.join(' AND ')}` : ''}
  )${effects.map((cte) => `,\n  ${cte}`).join('')}${logged ? historyCtes() : ''}
  SELECT r.ord, w.inserted${spec.phase ? ', w.phase' : ''}${spec.parents.map((p) => `, CASE WHEN ${given(p)} IS NULL THEN NULL ELSE ${found(p)} IS NOT NULL END AS ${q(parentFound(p))}`).join('')}${raced}
  FROM rows r LEFT JOIN written w ON w.permalink = r.permalink`;

  /** The log entries of the settled rows: source, request id and query, then the bodies and the presence if recorded. */
  function historyCtes() {
    const bodies = history ? `$${fixedParams + 4}::json` : null;
    return logEntries(spec, fixedParams + 1, { bodies, coverage: coverage ? `$${fixedParams + (history ? 5 : 4)}::text[]` : null, one });
  }

  return {
    name: `upsert_${spec.name}${history ? '_history' : ''}${coverage ? '_coverage' : ''}${one ? '_one' : ''}`,
    text,
    params(input) {
      const rows = input.rows.map((row, ord) => {
        const record: Record<string, unknown> = { ord, permalink: row.permalink, extra: row.extra };
        for (const { column } of columns) record[column] = row.values[column] ?? null;
        for (const p of spec.parents) record[parentPermalink(p)] = row.parents[p.column] ?? null;
        return record;
      });
      // Both drivers serialise an array for text[]; the rows go as one JSON text.
      const fixed = [input.tenantId, input.now, JSON.stringify(rows)];
      const all = appendOnly ? fixed : [...fixed, input.syncRunTime, input.present];
      if (logged) {
        const log = input.history;
        if (!log || (history && !log.bodies) || (coverage && !log.coverage)) {
          throw new Error(
            `upsert_${spec.name}: the statement records log entries${history ? ' with bodies' : ''}${coverage ? ' with field coverage' : ''} and was given none`,
          );
        }
        all.push(log.source, log.requestId, log.query);
        if (history) all.push(JSON.stringify(log.bodies));
        if (coverage) all.push(log.coverage!);
      }
      return all;
    },
    read(rows, count) {
      const none = () => Object.fromEntries(spec.parents.map((p) => [p.column, null]));
      const results: RowResult[] = Array.from({ length: count }, () => ({ inserted: null, parents: none() }));
      for (const row of rows) {
        results[row.ord as number] = {
          inserted: (row.inserted as boolean | null) ?? null,
          ...(spec.phase ? { phase: (row.phase as string | null) ?? null } : {}),
          ...(row.raced === true ? { raced: true } : {}),
          parents: Object.fromEntries(spec.parents.map((p) => [p.column, (row[parentFound(p)] as boolean | null) ?? null])),
        };
      }
      return results;
    },
  };
}

export interface EditInput {
  tenantId: string;
  permalink: string;
  now: Date;
  present: string[];
  extra: Record<string, unknown>;
  /** Values of the editable columns by column name (absent or undefined → NULL). */
  values: Readonly<Record<string, unknown>>;
}

/**
 * A user's edit of one stored row: the editable columns the edit carries replace the stored ones
 * (keep-unless-sent), `extra` is merged, the phase is re-derived when the status changes, and the
 * edit counts as the freshest write (`fresh_at` and `changed_at` are the service clock).
 */
export function buildEditStatement(spec: RecordTable, editable: readonly ColumnSpec[]) {
  // $1 tenant, $2 permalink, $3 now, $4 columns present, $5 extra, then one value per editable column.
  const value = (column: string) => `$${6 + editable.findIndex((c) => c.column === column)}`;
  const status = spec.phase && editable.some((c) => c.column === spec.phase!.statusColumn) ? spec.phase.statusColumn : null;
  const set = [
    ...editable.map((c) => keepUnlessSent(c.column, '$4', `${value(c.column)}::${c.type}`)),
    ...(status ? [keepUnlessSent('phase', '$4', phaseSql('$1::uuid', value(status)), status)] : []),
    'extra = t.extra || $5::jsonb',
    'fresh_at = $3::timestamptz',
    'changed_at = $3::timestamptz',
  ];
  const text = storedRowsUpdate(spec, `b.tenant_id = $1::uuid AND b.permalink = $2::text AND b.deleted_at IS NULL`, set, 'SELECT id FROM written');
  return {
    name: `edit_${spec.name}`,
    text,
    params: (input: EditInput) => [
      input.tenantId,
      input.permalink,
      input.now,
      input.present,
      input.extra,
      ...editable.map((c) => input.values[c.column] ?? null),
    ],
  };
}

/**
 * An UPDATE of the stored rows matching `where` (on alias `b`, in one tenant): each locked first in
 * permalink order and read at its latest version, updated by `set` (on alias `t`), with what the
 * update did recorded by the same statement (its change events, phase history and activity:
 * db/record-effects.ts). `select` reads the CTE `written` (the updated rows).
 */
function storedRowsUpdate(spec: RecordTable, where: string, set: readonly string[], select: string): string {
  const effects = changeEffects(spec, 'facts');
  return `WITH locked AS (
    SELECT b.id, b AS before FROM ${q(spec.table)} b WHERE ${where} ORDER BY b.permalink FOR NO KEY UPDATE OF b
  ),
  written AS (
    UPDATE ${q(spec.table)} AS t SET ${set.join(',\n      ')}
    FROM locked l WHERE t.tenant_id = $1::uuid AND t.tenant_id = (l.before).tenant_id AND t.id = l.id
    RETURNING t.*, false AS inserted
  ),
  facts AS (
    SELECT w.*, l.before FROM (SELECT w.*, row_number() OVER () AS n FROM written w) w JOIN locked l ON l.id = w.id
  )${effects.map((cte) => `,\n  ${cte}`).join('')}
  ${select}`;
}

/**
 * The re-phasing of a tenant's stored rows when its status mapping changes: every row whose status
 * has the key `$2` and whose phase is not `$3` takes phase `$3`; a table with a freshness time counts
 * it as a write at `$4` (its `changed_at`). Its events and phase history are recorded by the same
 * statement. Answers how many rows it re-phased.
 */
export function buildRephaseStatement(spec: RecordTable) {
  if (!spec.phase) throw new Error(`${spec.table}: no phase to re-phase`);
  const text = storedRowsUpdate(
    spec,
    `b.tenant_id = $1::uuid AND status_key(b.${q(spec.phase.statusColumn)}) = $2::text AND b.phase IS DISTINCT FROM $3::"Phase"`,
    ['phase = $3::"Phase"', ...(spec.freshness === 'append_only' ? [] : ['changed_at = $4::timestamptz'])],
    'SELECT count(*)::int AS count FROM written',
  );
  return {
    name: `rephase_${spec.name}`,
    text,
    params: (tenantId: string, key: string, phase: string, now: Date) =>
      spec.freshness === 'append_only' ? [tenantId, key, phase] : [tenantId, key, phase, now],
  };
}

/**
 * Builds the set-based delete (tombstone) of one table: any number of permalinks in one statement.
 * Each row is locked first (`FOR UPDATE`, in permalink order), so what the statement decides is read
 * from the row's latest committed version. A row whose freshness time is later than the caller's
 * `sync_run_time` is `skipped`; any other row takes the delete's freshness (its `sync_run_time`, or
 * the clock): a live row also gets `deleted_at` and `changed_at` (the clock) and answers `deleted`, a
 * tombstone keeps them and answers `already_deleted` (so a stale upsert cannot revive it either). No
 * row is `not_found`. The same statement deletes the cascade (`spec.cascade`: the live rows under a
 * row deleted now, recursively, with its `deleted_at` and `changed_at` and a freshness no older than
 * its own, so a stale upsert of a child cannot revive it), records a `*.deleted` event per row deleted
 * now and moves the activity of the loads it touched. Takes the upsert's input (its `present` columns
 * and rows' values are unused).
 *
 * With `history: true` the same statement also records each delete's body in the payload history
 * (db/payload-history.ts): every row it answers, `not_found` included (history is kept by permalink),
 * with `changed` true only for a record deleted now. The cascade's children get no row (no body of
 * theirs was sent).
 */
export function buildDeleteStatement(spec: RecordTable, options: Pick<UpsertOptions, 'history' | 'one'> = {}): UpsertStatement {
  if (spec.freshness === 'append_only') throw new Error(`${spec.table}: append-only records are never deleted`);
  const history = options.history === true;
  const one = options.one === true;
  // The cascade, level by level: each table's live rows under a row deleted now (locked first, in id
  // order, as a writer of such a row locks its parent before it), deleted with the parent's times.
  // Each locking CTE reads its keys as an array (`= ANY (ARRAY(…))`), not joined with another relation:
  // a join would add that relation's whole row to the locking plan's output (for a re-check under
  // concurrency), and a Citus coordinator then reads the CTE's intermediate result in a format other than
  // the one it was written in (`invalid input syntax for type uuid: "PGCOPY"`).
  const levels: { name: string; table: CascadeTable | null; ctes: string[] }[] = [{ name: 'written', table: null, ctes: [] }];
  const cascade = (tables: readonly CascadeTable[], parent: string) => {
    for (const table of tables) {
      const name = `cascade_${levels.length}`;
      levels.push({
        name,
        table,
        ctes: [
          `${name}_locked AS (
    SELECT c.id FROM ${q(table.table)} c
    WHERE c.tenant_id = $1::uuid AND c.deleted_at IS NULL AND c.${q(table.column)} = ANY (ARRAY(SELECT p.id FROM ${parent} p WHERE p.deleted_now))
    ORDER BY c.id FOR UPDATE OF c
  )`,
          `${name} AS (
    UPDATE ${q(table.table)} AS c SET deleted_at = p.deleted_at, changed_at = p.changed_at, fresh_at = GREATEST(c.fresh_at, p.fresh_at)
    FROM ${name}_locked k, ${parent} p
    WHERE c.tenant_id = $1::uuid AND c.id = k.id AND p.tenant_id = c.tenant_id AND p.id = c.${q(table.column)}
    RETURNING c.*, true AS deleted_now
  )`,
        ],
      });
      cascade(table.cascade, name);
    }
  };
  cascade(spec.cascade, 'written');
  const deletedOf = (level: (typeof levels)[number]) => (level.table ? level.table.deleted : spec.events.deleted);
  const pathOf = (level: (typeof levels)[number]) => (level.table ? level.table.loadPath : spec.loadPath);
  // The `*.deleted` events of every row deleted now (the cascade's after their parents'), and the
  // activity of the loads of every row written.
  const deleted = levels.flatMap((level, i) => {
    const type = deletedOf(level);
    if (!type) return [];
    const load = loadJoin(pathOf(level), 'd');
    const data = `jsonb_build_object('permalink', d.permalink, 'deletedAt', ${eventTime('d.deleted_at')}${load ? `, 'loadPermalink', ${load.permalink}` : ''})`;
    return [
      `SELECT ${i} AS level, d.permalink AS ord, d.tenant_id, '${type}' AS type, ${load ? load.permalink : 'NULL::text'} AS load_permalink, ${data} AS data, d.deleted_at AS at
    FROM ${level.name} d${load?.joins ?? ''} WHERE d.deleted_now`,
    ];
  });
  const touched = levels.flatMap((level) => {
    const load = loadJoin(pathOf(level), 'd');
    return load ? [`SELECT d.tenant_id, ${load.id} AS load_id, d.changed_at AS at FROM ${level.name} d${load.joins}`] : [];
  });
  // Each live row deleted now leaves its load's set (a stop its load's cities), the cascade's too.
  const setDeltas = levels.flatMap((level): SetDeltas[] => {
    const set = level.table ? level.table.loadSet : spec.loadSet;
    if (!set) return [];
    const load = loadIdJoin(pathOf(level), 'd');
    if (!load) throw new Error(`${level.table?.table ?? spec.table}: a load-level set needs a way to the load`);
    return [
      {
        set,
        sql: `SELECT d.tenant_id, ${load.id} AS load_id, d.${q(set.key)}::text AS key, -1 AS delta FROM ${level.name} d${load.joins} WHERE d.deleted_now`,
      },
    ];
  });
  const effects = [
    ...levels.flatMap((level) => level.ctes),
    ...(deleted.length ? [eventsCte(deleted.join(' UNION ALL '), 'x.level, x.ord')] : []),
    ...loadSetCtes(setDeltas),
    ...(touched.length ? [activityCte(touched.join(' UNION ALL '))] : []),
  ];
  const text = `WITH rows AS (
    SELECT i.* FROM jsonb_to_recordset($3::jsonb) AS i(ord int, permalink text)${one ? ' LIMIT 1' : ''}
  ),
  locked AS (
    SELECT t.id, t.permalink, t.deleted_at, t.fresh_at FROM ${q(spec.table)} t
    WHERE t.tenant_id = $1::uuid AND t.permalink = ANY (ARRAY(SELECT permalink FROM rows))
    ORDER BY t.permalink
    FOR UPDATE OF t
  ),
  written AS (
    UPDATE ${q(spec.table)} AS t SET
      deleted_at = COALESCE(l.deleted_at, $2::timestamptz),
      changed_at = CASE WHEN l.deleted_at IS NULL THEN $2::timestamptz ELSE t.changed_at END,
      fresh_at = COALESCE($4::timestamptz, $2::timestamptz)
    FROM locked l
    WHERE t.tenant_id = $1::uuid AND t.id = l.id AND ($4::timestamptz IS NULL OR l.fresh_at <= $4::timestamptz)
    RETURNING t.*, (l.deleted_at IS NULL) AS deleted_now
  ),
  settled AS (
    SELECT r.ord, r.permalink,
      CASE WHEN l.id IS NOT NULL AND w.id IS NULL THEN 'skipped' ELSE 'processed' END AS outcome,
      (w.id IS NOT NULL AND l.deleted_at IS NULL) AS changed
    FROM rows r LEFT JOIN locked l ON l.permalink = r.permalink LEFT JOIN written w ON w.id = l.id
  )${effects.map((cte) => `,\n  ${cte}`).join('')}${history ? historyCtes() : ''}
  SELECT r.ord, CASE WHEN l.id IS NULL THEN 'not_found' WHEN w.id IS NULL THEN 'skipped'
    WHEN l.deleted_at IS NULL THEN 'deleted' ELSE 'already_deleted' END AS tombstone
  FROM rows r LEFT JOIN locked l ON l.permalink = r.permalink LEFT JOIN written w ON w.id = l.id`;

  /** Every delete settles (none misses a parent): skipped when kept by freshness, changed when deleted now. */
  function historyCtes() {
    return logEntries(spec, 6, { bodies: '$5::json', coverage: null, one });
  }

  return {
    name: `delete_${spec.name}${history ? '_history' : ''}${one ? '_one' : ''}`,
    text,
    ...(spec.cascade.length
      ? {
          lock: {
            name: `lock_${spec.name}`,
            text: `SELECT t.id FROM ${q(spec.table)} t WHERE t.tenant_id = $1::uuid AND t.permalink = ANY($2::text[]) ORDER BY t.permalink FOR UPDATE OF t`,
            params: (input: UpsertInput) => [input.tenantId, input.rows.map((row) => row.permalink)],
          },
        }
      : {}),
    params(input) {
      const all = [input.tenantId, input.now, JSON.stringify(input.rows.map((row, ord) => ({ ord, permalink: row.permalink }))), input.syncRunTime];
      if (!history) return all;
      if (!input.history) throw new Error(`delete_${spec.name}_history: the statement records history and was given none`);
      return [...all, JSON.stringify(input.history.bodies), input.history.source, input.history.requestId, input.history.query];
    },
    read(rows, count) {
      const results: RowResult[] = Array.from({ length: count }, () => ({ inserted: null, parents: {} }));
      for (const row of rows) {
        const tombstone = row.tombstone as NonNullable<RowResult['tombstone']>;
        results[row.ord as number] = { inserted: tombstone === 'deleted' ? false : null, parents: {}, tombstone };
      }
      return results;
    },
  };
}
