/**
 * The SQL of field coverage (api-contract.md F; docs/decisions/0035-data-quality.md): the table
 * `field_coverage`, one row per tenant, hour, kind, source and field list: how many records were
 * accepted (processed, skipped or duplicate) and, per recommended field, how many carried a
 * non-empty value.
 * - Counting follows from the write log (docs/decisions/0051-derived-from-the-log.md): each write's
 *   log entry (its payload history row, db/payload-history.ts) carries the presence of its fields,
 *   and the tenant's pass (`load_events_sequence`, migration `coverage_from_the_log`) adds the
 *   entries committed since its last run into these rows. A dry run writes no entry; only the
 *   tenant's pass writes the tenant's rows (one at a time: no hot row on the write path).
 * - The maintenance drops the hours that ended before ingest health's retention (`dropFieldCoverage`).
 * This module knows the table only; the domain decides which fields count and what present means.
 */
import type { Sql } from './database.js';

/** One hour: rows are counted per hour of the received time (UTC). */
const coverageHourMs = 3_600_000;

/** Start of the hour holding `at` (UTC). */
const hourOf = (at: Date) => new Date(Math.floor(at.getTime() / coverageHourMs) * coverageHourMs);

/** Coverage of one field of one kind: records counted, and those that carried it. */
export interface CoverageRow {
  kind: string;
  field: string;
  present: number;
  missing: number;
}

/**
 * The tenant's coverage summed over the hours from the one holding `since`, per kind and field (only
 * fields counted at least once), and the records counted per kind; `source` null: every source.
 */
export async function readFieldCoverage(
  sql: Sql,
  q: { tenantId: string; since: Date; source: string | null },
): Promise<{ fields: CoverageRow[]; records: Map<string, number> }> {
  const params = [q.tenantId, hourOf(q.since), q.source];
  const where = `c.tenant_id = $1::uuid AND c.hour >= $2::timestamptz AND ($3::text IS NULL OR c.source = $3::text)`;
  const [fields, records] = await Promise.all([
    sql.query<{ kind: string; field: string; present: unknown; missing: unknown }>(
      `SELECT c.kind, f.field, sum(f.present)::int8 AS present, sum(c.records - f.present)::int8 AS missing
       FROM field_coverage c CROSS JOIN LATERAL unnest(c.fields, c.present) AS f(field, present)
       WHERE ${where} GROUP BY c.kind, f.field`,
      params,
      'read_field_coverage',
    ),
    sql.query<{ kind: string; records: unknown }>(
      `SELECT c.kind, sum(c.records)::int8 AS records FROM field_coverage c WHERE ${where} GROUP BY c.kind`,
      params,
      'read_field_coverage_records',
    ),
  ]);
  return {
    fields: fields.map((row) => ({ kind: row.kind, field: row.field, present: Number(row.present), missing: Number(row.missing) })),
    records: new Map(records.map((row) => [row.kind, Number(row.records)])),
  };
}

/** Deletes the hours that ended at or before `before` (ingest health's retention). Returns the rows deleted. */
export async function dropFieldCoverage(sql: Sql, before: Date): Promise<number> {
  const rows = await sql.query<{ deleted: number }>(
    `WITH deleted AS (DELETE FROM field_coverage WHERE hour <= $1::timestamptz - interval '1 hour' RETURNING 1) SELECT count(*)::int AS deleted FROM deleted`,
    [before],
  );
  return rows[0]?.deleted ?? 0;
}
