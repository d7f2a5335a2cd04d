/**
 * Builds, once per record kind at module load, the single SQL statement that writes one record:
 * parent lookups, the tenant-scoped `INSERT … ON CONFLICT (tenant_id, permalink)` and the
 * `sync_run_time` guard are one atomic database step, so concurrent requests can neither create
 * two records nor overwrite fresher data (api-contract.md, "sync_run_time precisely").
 */
import type { RecordSpec } from '../domain/shared/record.js';
import { phaseSql } from '../domain/status-mapping/service.js';

/** Parameters every statement takes, in this order, before the column values. */
export interface StatementInput {
  tenantId: string;
  permalink: string;
  now: Date;
  /** The request's `sync_run_time`; null for event-driven posts. */
  syncRunTime: Date | null;
  /** Columns whose field the body carried: absent fields keep their stored value on update. */
  present: string[];
  extra: Record<string, unknown>;
  /** Column values in `spec.columns` order (undefined → NULL). */
  values: unknown[];
  /** Parent permalinks in `spec.parents` order (null → none given). */
  parents: (string | null)[];
}

export interface StatementRow {
  /** true: created; false: updated; null: nothing written (skipped, duplicate or a missing parent). */
  inserted: boolean | null;
  /** For each parent, whether it was found (null when no permalink was given). */
  parents: (boolean | null)[];
}

export interface UpsertStatement {
  name: string;
  text: string;
  params(input: StatementInput): unknown[];
  read(row: Record<string, unknown>): StatementRow;
}

const q = (identifier: string) => `"${identifier}"`;

/** Builds the statement for one record kind. */
export function buildUpsertStatement(spec: RecordSpec): UpsertStatement {
  const columns = Object.values(spec.columns);
  // Append-only records have no freshness guard and no partial update: they take fewer parameters.
  const fixedParams = spec.appendOnly
    ? (['tenantId', 'permalink', 'now', 'extra'] as const)
    : (['tenantId', 'permalink', 'now', 'syncRunTime', 'present', 'extra'] as const);
  const fixed = fixedParams.length;
  const $ = (name: (typeof fixedParams)[number]) => `$${(fixedParams as readonly string[]).indexOf(name) + 1}`;
  const valueParam = (i: number) => `$${fixed + 1 + i}`;
  const parentParam = (i: number) => `$${fixed + 1 + columns.length + i}`;
  const phaseStatus = spec.phaseFrom ? spec.columns[spec.phaseFrom] : undefined;

  const ctes = spec.parents.map(
    (p, i) => `parent_${i} AS (SELECT id FROM ${q(p.table)} WHERE tenant_id = $1::uuid AND permalink = ${parentParam(i)}::text)`,
  );

  const insertColumns = ['id', 'tenant_id', 'permalink', ...columns.map((c) => c.column)];
  const insertValues = ['gen_random_uuid()', '$1::uuid', '$2::text', ...columns.map((c, i) => `${valueParam(i)}::${c.type}`)];
  spec.parents.forEach((p, i) => {
    insertColumns.push(p.column);
    insertValues.push(`(SELECT id FROM parent_${i})`);
  });
  if (phaseStatus) {
    const status = valueParam(columns.indexOf(phaseStatus));
    insertColumns.push('phase');
    insertValues.push(
      spec.phaseWithoutStatus === null
        ? `CASE WHEN coalesce(btrim(${status}::text), '') = '' THEN NULL ELSE ${phaseSql('$1::uuid', status)} END`
        : phaseSql('$1::uuid', status),
    );
  }
  insertColumns.push('extra');
  insertValues.push(`${$('extra')}::jsonb`);
  if (spec.appendOnly) {
    insertColumns.push('created_at');
    insertValues.push('$3::timestamptz');
  } else {
    insertColumns.push('fresh_at', 'changed_at', 'created_at');
    insertValues.push(`COALESCE(${$('syncRunTime')}::timestamptz, $3::timestamptz)`, '$3::timestamptz', '$3::timestamptz');
  }

  const parentsFound = spec.parents.map((p, i) =>
    p.required ? `EXISTS (SELECT 1 FROM parent_${i})` : `(${parentParam(i)}::text IS NULL OR EXISTS (SELECT 1 FROM parent_${i}))`,
  );

  // An absent field keeps its stored value; a field sent (even as null) replaces it.
  const keepUnlessSent = (column: string) =>
    `${q(column)} = CASE WHEN '${column}' = ANY(${$('present')}::text[]) THEN EXCLUDED.${q(column)} ELSE t.${q(column)} END`;
  const conflict = spec.appendOnly
    ? 'DO NOTHING'
    : `DO UPDATE SET ${[
        ...columns.map((c) => keepUnlessSent(c.column)),
        ...spec.parents.map((p) => keepUnlessSent(p.column)),
        ...(phaseStatus ? [`phase = CASE WHEN '${phaseStatus.column}' = ANY(${$('present')}::text[]) THEN EXCLUDED.phase ELSE t.phase END`] : []),
        'extra = t.extra || EXCLUDED.extra',
        'fresh_at = EXCLUDED.fresh_at',
        'changed_at = EXCLUDED.changed_at',
      ].join(', ')}
      WHERE ${$('syncRunTime')}::timestamptz IS NULL OR t.fresh_at <= ${$('syncRunTime')}::timestamptz`;

  const written = `written AS (
    INSERT INTO ${q(spec.table)} AS t (${insertColumns.map(q).join(', ')})
    SELECT ${insertValues.join(', ')}
    ${parentsFound.length ? `WHERE ${parentsFound.join(' AND ')}` : ''}
    ON CONFLICT (tenant_id, permalink) ${conflict}
    RETURNING (xmax = 0) AS inserted)`;

  const text = `WITH ${[...ctes, written].join(',\n')}
  SELECT (SELECT inserted FROM written) AS inserted${spec.parents
    .map((_, i) => `, CASE WHEN ${parentParam(i)}::text IS NULL THEN NULL ELSE EXISTS (SELECT 1 FROM parent_${i}) END AS parent_${i}`)
    .join('')}`;

  return {
    name: `upsert_${spec.kind}`,
    text,
    // Both drivers serialise an object for a jsonb parameter and an array for text[].
    params: (input) => [...fixedParams.map((name) => input[name]), ...input.values.map((v) => v ?? null), ...input.parents],
    read: (row) => ({
      inserted: (row.inserted as boolean | null) ?? null,
      parents: spec.parents.map((_, i) => (row[`parent_${i}`] as boolean | null) ?? null),
    }),
  };
}
