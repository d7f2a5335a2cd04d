/**
 * The one ingestion path every record kind and both transports share: validate → one SQL statement
 * → outcome. `createIngester(spec)` compiles the validator and the statement once per kind.
 */
import { AppError } from '../../errors.js';
import type { Database } from '../../db/database.js';
import { buildUpsertStatement } from '../../db/upsert-statement.js';
import type { UpsertOutcome } from './outcome.js';
import type { RecordSpec } from './record.js';
import type { TenantRef } from './tenant-ref.js';
import { assertValid, createValidator, type ValidRecord } from './validate.js';

/** Who writes, where, and when (the service clock at the start of the request). */
export interface IngestScope {
  db: Database;
  tenant: TenantRef;
  now: Date;
}

export interface IngestOptions {
  /** The caller's `sync_run_time`: a stored record fresher than it is left alone (`skipped`). */
  syncRunTime?: Date | null;
}

const dateTypes = new Set(['timestamptz']);

/** Compiles the validator and statement of one record kind. */
export function createIngester(spec: RecordSpec) {
  const validate = createValidator(spec);
  const statement = buildUpsertStatement(spec);
  const columnEntries = Object.entries(spec.columns);
  const lower = spec.label.toLowerCase();

  function statementValues(tenant: TenantRef, { body }: ValidRecord) {
    const present: string[] = [];
    const values = columnEntries.map(([field, { column, type }]) => {
      if (!(field in body)) return null;
      present.push(column);
      const value = body[field];
      return dateTypes.has(type) && typeof value === 'string' ? new Date(value) : value;
    });
    const parents = spec.parents.map((parent) => {
      const permalink = body[parent.field];
      const id = parent.idField ? body[parent.idField] : undefined;
      const resolved = typeof permalink === 'string' ? permalink : typeof id === 'string' && id ? `${id}-${tenant.slug}` : null;
      if (parent.field in body || resolved) present.push(parent.column);
      if (parent.required && !resolved) {
        throw new AppError('parent_not_found', `A ${lower} needs its parent: ${parent.field} is null and cannot be built.`, [
          { field: parent.field, issue: `is null and ${parent.idField ?? 'no TMS id'} does not name the parent either` },
        ]);
      }
      return resolved;
    });
    return { present, values, parents };
  }

  async function ingest(scope: IngestScope, input: unknown, options: IngestOptions = {}): Promise<UpsertOutcome> {
    const syncRunTime = options.syncRunTime ?? null;
    const record = assertValid(validate(scope.tenant, input, { syncRunTime, now: scope.now }));
    const permalink = record.body[spec.permalinkField] as string;
    const { present, values, parents } = statementValues(scope.tenant, record);
    const params = statement.params({
      tenantId: scope.tenant.id,
      permalink,
      now: scope.now,
      syncRunTime: spec.appendOnly ? null : syncRunTime,
      present,
      extra: record.extra,
      values,
      parents,
    });
    const [row] = await scope.db.sql.query<Record<string, unknown>>(statement.text, params, statement.name);
    const result = statement.read(row ?? {});

    const missing = spec.parents.flatMap((parent, i) =>
      result.parents[i] === false ? [{ field: parent.field, issue: `no record with permalink ${parents[i]} exists for this tenant` }] : [],
    );
    if (missing.length) {
      throw new AppError('parent_not_found', `The ${lower} references a record that does not exist: ${missing.map((m) => m.field).join(', ')}.`, missing);
    }
    if (result.inserted === null) {
      return spec.appendOnly
        ? { status: 'duplicate', message: `${spec.label} ${permalink} was already received; the stored record is unchanged.`, permalink }
        : { status: 'skipped', message: `${spec.label} ${permalink} changed after sync_run_time; the stored record was kept.`, permalink };
    }
    return { status: 'processed', message: `${spec.label} ${permalink} processed (${result.inserted ? 'created' : 'updated'}).`, permalink };
  }

  return { spec, validate, ingest };
}

export type Ingester = ReturnType<typeof createIngester>;
