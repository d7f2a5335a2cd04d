/**
 * The records of one ingestion operation (a kind's upsert, create or delete), written in four steps:
 * validate (each record alone) → plan (rounds and statements) → write (a few set-based statements)
 * → outcome (each record's typed result), then reported to ingest accounting. `createIngestion`
 * compiles the validator and the statements once per operation (`operation.ts`, which owns the rules
 * of the request around the records: batch size, `sync_run_time`, dry run, the answer's shape).
 */
import type { Database, Sql } from '../../db/database.js';
import type { Logger } from '../../logger.js';
import type { EventSequencer } from '../events/sequencer.js';
import type { TableStatistics } from '../../db/table-statistics.js';
import { buildDeleteStatement, buildUpsertStatement, type RowResult, type UpsertRow } from '../../db/record-statements.js';
import { AppError, isDataRefusal, toAppError, validationFailed, type FieldIssue } from '../../errors.js';
import { reportIngest, type IngestRecorder, type IngestSourceName, type ReportedResult } from '../ingest-health/report.js';
import type { UpsertOutcome, UpsertStatus } from './outcome.js';
import { countedFields, hasValue, type IngestAction, type RecordSpec } from '../declaration/record.js';
import { recordTableOf } from './record-tables.js';
import type { TenantRef } from '../declaration/tenant-ref.js';
import type { RecordKind } from '../registry.js';
import { createValidator, type ValidRecord } from '../declaration/validate.js';
import { createFieldHints, suggestionSentence } from '../declaration/hints.js';

/** Who writes, where, by which path, and when (the service clock at the start of the request). */
export interface IngestScope {
  db: Database;
  /** Numbers the change events of what was written, before the results are answered. */
  sequencer: Pick<EventSequencer, 'committed' | 'touched'>;
  /** Told how many rows each statement wrote, so the planner's statistics keep up (db/table-statistics.ts). */
  statistics: Pick<TableStatistics, 'wrote'>;
  recorder: IngestRecorder;
  tenant: TenantRef;
  source: IngestSourceName;
  now: Date;
  /** Where the cause of a record the database refused is logged (the record answers `internal`). */
  log: Pick<Logger, 'error'>;
  /**
   * The payload history of the request's writes (api-contract.md E): recorded in the write's own
   * statement with the request's id (its `X-Request-Id`) and its parameters as received (REST's
   * query string; null when none); null when payload history is off.
   */
  history: { requestId: string; query: string | null } | null;
  /**
   * Whether the write statements' log entries carry the records' recommended fields (api-contract.md
   * F, field coverage, added up by the tenant's pass; db/field-coverage.ts). Off only to measure its cost (`INGEST_FIELD_COVERAGE=off`, the bench).
   */
  fieldCoverage: boolean;
  /**
   * A dry run: the same validation and statements, run in a transaction that is rolled back
   * (`Database.rehearse`); no event is numbered and ingest accounting counts the records apart.
   */
  dryRun: boolean;
}

export interface IngestOptions {
  /** The request's `sync_run_time`, checked by the operation: a stored record fresher than it is left alone (`skipped`). */
  syncRunTime?: Date | null;
  /** Problems of the request around its one record (a bad `sync_run_time`), reported with the record's own. */
  requestIssues?: readonly FieldIssue[];
}

/** What happened to one record: its outcome, or the contract error that rejected it. */
export type RecordResult = { ok: true; outcome: UpsertOutcome } | { ok: false; error: AppError };

/**
 * A record a transport could not turn into a body (a GraphQL input's bad `extra`): answered with its
 * error and reported, with what could be read of it, like any rejected record.
 */
export class UnreadableRecord {
  constructor(
    readonly body: Record<string, unknown>,
    readonly error: AppError,
  ) {}
}

/** What an ingestion writes: a kind, an action, and the body one record of it has. */
export interface IngestTarget {
  spec: RecordSpec<RecordKind>;
  action: IngestAction;
  body: RecordSpec['body'];
}

/** Query parameters a sender may put in the body by mistake: there they are only unknown fields. */
const queryParameters = ['sync_run_time'];

/** The message's hint for unknown fields named like a query parameter ('' when none). */
function hintFor(unknownFields: readonly string[]): string {
  const misplaced = unknownFields.filter((field) => queryParameters.includes(field));
  if (!misplaced.length) return '';
  const names = misplaced.join(', ');
  return ` ${names} in the body is not applied (kept in extra): send it as a query parameter (?${misplaced[0]}=…; GraphQL: the syncRunTime argument).`;
}

/**
 * The error of a valid record the database refused (a fault of the service: validation should have
 * caught it). Its batch's other records are written; the cause is logged by the transport.
 */
const recordNotStored = (permalink: string) =>
  new AppError('internal', `The record ${permalink} could not be stored (an internal error, logged); the other records of the request were written.`);

/** The record's own permalink as sent, when it is a string (its results and its accounting name it). */
export function permalinkOf(spec: RecordSpec, input: unknown): string | undefined {
  const body = input instanceof UnreadableRecord ? input.body : input;
  const value = typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[spec.permalinkField] : undefined;
  return typeof value === 'string' ? value : undefined;
}

/** A valid record waiting for its statement: its place in the request and its round (occurrence of its permalink). */
interface Pending {
  index: number;
  /** The record as received (its body for the payload history). */
  input: unknown;
  row: UpsertRow;
  present: string[];
  /** Per recommended field of the kind (declaration order): 1 when the body carries a non-empty value. */
  coverage: (0 | 1)[];
  round: number;
}

/** The answers of a delete (api-contract.md E): every one `processed` but a delete older than the record (`skipped`). */
const tombstoneMessages = {
  deleted: 'deleted',
  already_deleted: 'already deleted',
  not_found: 'not found: nothing to delete',
} as const;

/** One request's write: the scope, its `sync_run_time`, the results being filled, and whether it holds one record. */
interface Write {
  scope: IngestScope;
  syncRunTime: Date | null;
  results: (RecordResult | undefined)[];
  single: boolean;
}

/** The recommended fields of a record a valid body left empty (reported with an accepted record: the missing-field metric). */
type MissingFields = readonly string[];

/**
 * How many times a record created concurrently by another request while a statement wrote it (it
 * answered `raced`: db/record-statements.ts) is written again. Once is enough: by then the record is
 * committed and is read as stored, so the second statement cannot race on it; after the last run
 * the write fails as a transient conflict (503, retry).
 */
const racedRuns = 3;

/** Compiles the use case of one operation: its validator, its statements, its rows and its outcomes. */
export function createIngestion({ spec, action, body }: IngestTarget) {
  const validate = createValidator({ body });
  const hints = createFieldHints({ body });
  const deletes = action === 'delete';
  const build = deletes ? buildDeleteStatement : buildUpsertStatement;
  const table = recordTableOf(spec);
  /**
   * The recommended fields an upsert counts (api-contract.md F): its statements' log entries carry
   * which of them each settled record's body had, and the tenant's pass adds them up into field
   * coverage (docs/decisions/0051-derived-from-the-log.md). Deletes carry no fields.
   */
  const counted = deletes ? [] : countedFields(spec);
  /**
   * The statements of a group, planned for one record or for a set (`UpsertOptions.one`): the plain
   * one; the same recording the payload history of what it settles (db/payload-history.ts's
   * `historyCte`: an upsert's written, skipped and duplicate rows, a delete's every answer); and, for
   * an upsert of a kind with recommended fields, both counting its field coverage.
   */
  const statementsFor = (one: boolean) => ({
    statement: build(table, { one }),
    recording: build(table, { history: true, one }),
    counting: counted.length
      ? {
          plain: buildUpsertStatement(table, { coverage: counted, one }),
          recording: buildUpsertStatement(table, { history: true, coverage: counted, one }),
        }
      : null,
  });
  const statements = { one: statementsFor(true), set: statementsFor(false) };
  // A delete names its record only: no column, no parent.
  const columnEntries = deletes ? [] : Object.entries(spec.columns);
  const parents = deletes ? [] : spec.parents;
  const lower = spec.label.toLowerCase();

  /** A valid record as a statement row, with the columns its body carried; throws when a required parent cannot be named. */
  function toRow(tenant: TenantRef, { body, extra }: ValidRecord) {
    const present: string[] = [];
    const values: Record<string, unknown> = {};
    for (const [field, { column }] of columnEntries) {
      if (!(field in body)) continue;
      present.push(column);
      values[column] = body[field];
    }
    const resolved: Record<string, string | null> = {};
    for (const parent of parents) {
      const permalink = body[parent.field];
      const id = parent.idField ? body[parent.idField] : undefined;
      const named = typeof permalink === 'string' ? permalink : typeof id === 'string' && id ? `${id}-${tenant.slug}` : null;
      if (parent.field in body || named) present.push(parent.column);
      if (parent.required && !named) {
        throw new AppError('parent_not_found', `A ${lower} needs its parent: ${parent.field} is null and cannot be built.`, [
          { field: parent.field, issue: `is null and ${parent.idField ?? 'no TMS id'} does not name the parent either` },
        ]);
      }
      resolved[parent.column] = named;
    }
    return { row: { permalink: body[spec.permalinkField] as string, values, parents: resolved, extra }, present };
  }

  /**
   * Step 1, validate: each record alone, in request order. A record the contract rejects gets its
   * error in `results`; a valid one becomes a pending row of round n, its permalink's n-th occurrence.
   */
  function validateAll(scope: IngestScope, records: readonly unknown[], requestIssues: readonly FieldIssue[]) {
    const results = new Array<RecordResult | undefined>(records.length);
    const pending: Pending[] = [];
    const seen = new Map<string, number>();
    records.forEach((input, index) => {
      try {
        if (input instanceof UnreadableRecord) throw input.error;
        const checked = validate(scope.tenant, input);
        if (requestIssues.length || !checked.ok) {
          throw validationFailed([...requestIssues, ...(checked.ok ? [] : checked.issues)], checked.ok ? '' : suggestionSentence(checked.suggestions));
        }
        const { row, present } = toRow(scope.tenant, checked.record);
        const round = seen.get(row.permalink) ?? 0;
        seen.set(row.permalink, round + 1);
        const coverage = counted.map((field) => (hasValue(checked.record.body[field]) ? 1 : 0));
        pending.push({ index, input, row, present, coverage, round });
      } catch (thrown) {
        if (!(thrown instanceof AppError)) throw thrown;
        results[index] = { ok: false, error: thrown };
      }
    });
    return { results, pending };
  }

  /** Per record of the request, the recommended fields its valid body left empty (none for a rejected one). */
  function missingOf(records: number, pending: readonly Pending[]): MissingFields[] {
    const missing = Array.from({ length: records }, (): MissingFields => []);
    for (const p of pending) missing[p.index] = counted.filter((_, i) => !p.coverage[i]);
    return missing;
  }

  /**
   * Step 2, plan: one statement per round and set of fields carried (a repeated permalink is written
   * after its earlier occurrence, as two requests in order), rounds in order.
   */
  function plan(pending: readonly Pending[]): Pending[][] {
    const groups = new Map<string, Pending[]>();
    for (const p of pending) {
      const key = `${p.round}:${p.present.join(',')}`;
      const group = groups.get(key);
      if (group) group.push(p);
      else groups.set(key, [p]);
    }
    return [...groups.values()].sort((a, b) => a[0]!.round - b[0]!.round);
  }

  /**
   * Step 3, write: one group in one statement (one implicit transaction: all its rows or none). When
   * the database refuses the data of its rows (`isDataRefusal`), the halves are written apart until
   * the refusing record stands alone: it answers `internal`, every other record is written. Any other
   * failure (an outage, a rolled-back conflict, a broken schema), or any failure of a one-record
   * request, concerns the request: thrown.
   */
  async function write(sql: Sql, group: readonly Pending[], w: Write, run = 1): Promise<void> {
    // A dry run writes nothing, its history neither (its transaction is rolled back): the plain statement.
    const history = w.scope.dryRun ? null : w.scope.history;
    // Coverage too: what a dry run counted would roll back anyway.
    const { statement, recording, counting } = group.length === 1 ? statements.one : statements.set;
    const counts = counting && w.scope.fieldCoverage && !w.scope.dryRun ? counting : null;
    const chosen = counts ? (history ? counts.recording : counts.plain) : history ? recording : statement;
    const input = {
      tenantId: w.scope.tenant.id,
      now: w.scope.now,
      syncRunTime: w.syncRunTime,
      present: group[0]!.present,
      rows: group.map((p) => p.row),
      // The log entries (db/payload-history.ts): the bodies when payload history is kept, the fields' presence when counted.
      history:
        history || counts
          ? {
              source: w.scope.source,
              requestId: history?.requestId ?? null,
              query: history?.query ?? null,
              bodies: history ? group.map((p) => p.input) : undefined,
              coverage: counts ? group.map((p) => p.coverage.join('')) : undefined,
            }
          : undefined,
    };
    const params = chosen.params(input);
    let rows: Record<string, unknown>[];
    // A delete that cascades locks its rows first, then deletes in a statement of the same transaction
    // (a dry run is one transaction already).
    const { lock } = chosen;
    const execute = async (over: Sql) => {
      // Every statement of a write reads and writes its tenant's rows only: on Citus, one call on the tenant's
      // node (db/tenant-statement.ts); a dry run's too, each call under its savepoint, rolled back with the rehearsal.
      const on = w.scope.db.tenantSql(w.scope.tenant.id, over);
      if (lock) await on.query(lock.text, lock.params(input), lock.name);
      return on.query<Record<string, unknown>>(chosen.text, params, chosen.name);
    };
    try {
      rows = await (lock && !w.scope.dryRun ? w.scope.db.transaction(execute) : execute(sql));
    } catch (thrown) {
      if (!isDataRefusal(thrown) || w.single) throw thrown;
      const [first] = group;
      if (group.length === 1) {
        w.scope.log.error({ err: thrown, kind: spec.kind, permalink: first!.row.permalink }, 'record refused by the database');
        w.results[first!.index] = { ok: false, error: recordNotStored(first!.row.permalink) };
        return;
      }
      const half = Math.ceil(group.length / 2);
      await write(sql, group.slice(0, half), w);
      await write(sql, group.slice(half), w);
      return;
    }
    const read = chosen.read(rows, group.length);
    const raced = group.filter((_, i) => read[i]!.raced);
    read.forEach((result, i) => {
      if (!result.raced) w.results[group[i]!.index] = outcomeOf(group[i]!.row, result);
    });
    if (!w.scope.dryRun) w.scope.statistics.wrote(spec.table, w.scope.tenant.id, read.filter((result) => result.inserted !== null).length);
    // Records another request created while this statement ran: written again, now read as stored.
    if (raced.length) {
      if (run >= racedRuns)
        throw new AppError('unavailable', 'Concurrent writes of the same new records kept conflicting; retry the request.', undefined, {
          'Retry-After': '1',
        });
      await write(sql, raced, w, run + 1);
    }
  }

  /** Step 4, outcome: what the statement did with a row, as the contract words it (or the parent_not_found error). */
  function outcomeOf(row: UpsertRow, result: RowResult): RecordResult {
    const { permalink } = row;
    const unknownFields = Object.keys(row.extra);
    const suggestions = unknownFields.length ? hints.suggestions(unknownFields.filter((field) => !queryParameters.includes(field))) : [];
    const outcome = (status: UpsertStatus, message: string, phase?: Pick<UpsertOutcome, 'phase'>): RecordResult => ({
      ok: true,
      outcome: { status, message: message + hintFor(unknownFields) + suggestionSentence(suggestions), permalink, unknownFields, suggestions, ...phase },
    });
    const missing = parents.flatMap((parent) =>
      result.parents[parent.column] === false
        ? [{ field: parent.field, issue: `no record with permalink ${row.parents[parent.column]} exists for this tenant` }]
        : [],
    );
    if (missing.length) {
      const fields = missing.map((m) => m.field).join(', ');
      return { ok: false, error: new AppError('parent_not_found', `The ${lower} references a record that does not exist: ${fields}.`, missing) };
    }
    if (result.tombstone) {
      return result.tombstone === 'skipped'
        ? outcome('skipped', `${spec.label} ${permalink} changed after sync_run_time; the stored record was kept (not deleted).`)
        : outcome('processed', `${spec.label} ${permalink} ${tombstoneMessages[result.tombstone]}.`);
    }
    if (result.inserted === null) {
      return action === 'create'
        ? outcome('duplicate', `${spec.label} ${permalink} was already received; the stored record is unchanged.`)
        : outcome('skipped', `${spec.label} ${permalink} changed after sync_run_time; the stored record was kept.`);
    }
    // A phased kind's written row tells the phase its status maps to (the answer shows it).
    const phase = result.phase === undefined ? undefined : { phase: result.phase };
    return outcome('processed', `${spec.label} ${permalink} processed (${result.inserted ? 'created' : 'updated'}).`, phase);
  }

  function report(scope: IngestScope, results: readonly ReportedResult[]) {
    reportIngest(scope.recorder, { tenant: scope.tenant, source: scope.source, kind: spec.kind, at: scope.now, dryRun: scope.dryRun }, results);
  }

  const resultReport = (result: RecordResult, input: unknown, missing: MissingFields = []): ReportedResult =>
    result.ok
      ? { outcome: result.outcome.status, permalink: result.outcome.permalink, missingFields: missing }
      : { outcome: 'rejected', error: result.error, permalink: permalinkOf(spec, input), body: input instanceof UnreadableRecord ? input.body : input };

  /**
   * The records of one request, in order: validate → plan → write → outcome, each reported to ingest
   * accounting. A dry run runs the very same statements in one transaction that is rolled back (each
   * under a savepoint, so a refused one fails alone as in autocommit) and numbers no event. A failure
   * of the database itself (503/500) is reported for every record not yet written and thrown, since
   * the request cannot be answered record by record.
   */
  async function ingest(scope: IngestScope, records: readonly unknown[], options: IngestOptions = {}): Promise<RecordResult[]> {
    const { results, pending } = validateAll(scope, records, options.requestIssues ?? []);
    const groups = plan(pending);
    const missing = missingOf(records.length, pending);
    const w: Write = { scope, syncRunTime: options.syncRunTime ?? null, results, single: records.length === 1 };
    const writeAll = async (sql: Sql) => {
      for (const group of groups) await write(sql, group, w);
    };
    try {
      // A dry run with nothing valid to write opens no transaction.
      if (!scope.dryRun) await writeAll(scope.db.sql);
      else if (groups.length) await scope.db.rehearse(writeAll);
    } catch (thrown) {
      const error = toAppError(thrown);
      report(
        scope,
        records.map((input, i) => resultReport(results[i] ?? { ok: false, error }, input, missing[i])),
      );
      throw thrown;
    }
    const done = results as RecordResult[];
    const accepted = !scope.dryRun && done.some((result) => result.ok);
    // The tenant's pass numbers what was processed and adds up the field coverage of every accepted record.
    if (accepted && ((scope.fieldCoverage && counted.length > 0) || done.some((result) => result.ok && result.outcome.status === 'processed'))) {
      scope.sequencer.committed(scope.tenant.id);
    }
    // Skipped and duplicate writes of a kind that counts nothing change only the payload history: cached GraphQL answers of the tenant go.
    else if (accepted && scope.history) scope.sequencer.touched(scope.tenant.id);
    report(
      scope,
      records.map((input, i) => resultReport(done[i]!, input, missing[i])),
    );
    return done;
  }

  return {
    ingest,
    /**
     * Reports a request rejected before its records could be read (its `Service-Ingest-Source`,
     * content type, size, JSON or envelope): one rejection, with the record's permalink when the body has one.
     */
    rejectRequest(scope: IngestScope, thrown: unknown, body?: unknown) {
      report(scope, [{ outcome: 'rejected', error: toAppError(thrown), permalink: permalinkOf(spec, body), body }]);
    },
  };
}

export type Ingestion = ReturnType<typeof createIngestion>;
