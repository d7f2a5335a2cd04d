/**
 * The SQL of field coverage (api-contract.md F; docs/decisions/0035-data-quality.md): the table
 * `field_coverage`, one append-only row per write statement that settled records of a kind with
 * recommended fields: how many records it settled and, per recommended field, how many carried a
 * non-empty value, for its tenant, kind, source and hour.
 * - Counting is a data-modifying CTE (`coverageCte`) the upsert statement appends, fed by its settled
 *   rows (written, skipped or duplicate): the row goes in with the write and rolls back with it (a
 *   dry run, rolled back, counts nothing), and no two statements ever update the same row (no hot
 *   row per tenant, no lock order to keep).
 * - The maintenance rolls each hour's rows up into one (`rollUpFieldCoverage`) and drops the hours
 *   that ended before ingest health's retention (`dropFieldCoverage`); reads sum whatever rows there are.
 * This module knows the table only; the domain decides which fields count and what present means.
 */
import type { Sql } from './database.js';

/** One hour: rows are counted per hour of the received time (UTC). */
const coverageHourMs = 3_600_000;

/** Start of the hour holding `at` (UTC). */
const hourOf = (at: Date) => new Date(Math.floor(at.getTime() / coverageHourMs) * coverageHourMs);

/** What a statement counting coverage is given: per row (in `rows` order), 1 or 0 per counted field; and the source. */
export interface CoverageInput {
  presence: readonly (readonly (0 | 1)[])[];
  source: string;
}

/**
 * The CTE that inserts one coverage row for the settled rows of a write statement, named `coverage`
 * (prepend `,` and put it after `settled`). `settled` has the column `ord` (the record's place in
 * the statement, from 0); `presence` is a jsonb array in `ord` order whose elements are arrays of
 * 0/1, one per name of `fields` (code constants: written into the SQL). The others are SQL
 * expressions. No row when nothing settled.
 */
export function coverageCte(p: {
  settled: string;
  tenantId: string;
  receivedAt: string;
  kind: string;
  fields: readonly string[];
  presence: string;
  source: string;
  /** The statement writes one record: its presence is read as one row (see `UpsertOptions.one`). */
  one?: boolean;
}): string {
  const presence = `jsonb_array_elements(${p.presence}) WITH ORDINALITY AS c(p, n)`;
  const names = p.fields.map((field) => `'${field.replaceAll("'", "''")}'`).join(', ');
  const sums = p.fields.map((_, i) => `coalesce(sum((c.p->>${i})::int), 0)::int`).join(', ');
  return `coverage AS (
    INSERT INTO field_coverage (tenant_id, hour, kind, source, fields, records, present)
    SELECT ${p.tenantId}, date_bin('1 hour', ${p.receivedAt}, TIMESTAMPTZ '2000-01-01 00:00:00+00'), ${p.kind}, ${p.source},
      ARRAY[${names}]::text[], count(*)::int, ARRAY[${sums}]::int[]
    FROM ${p.settled} s JOIN ${p.one ? `(SELECT * FROM ${presence} LIMIT 1) c` : presence} ON c.n = s.ord + 1
    HAVING count(*) > 0
  )`;
}

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

/**
 * Rolls every hour's rows of one tenant, kind, source and field list up into one row (one statement:
 * the rows it deletes are the rows it sums, so rows written meanwhile, or rolled up by another
 * instance at the same time, are neither lost nor counted twice), tenant by tenant (one shard's
 * statement each on a Citus cluster). Returns the rows it removed.
 */
export async function rollUpFieldCoverage(sql: Sql): Promise<number> {
  let removed = 0;
  for (const { id } of await sql.query<{ id: string }>('SELECT id FROM tenants ORDER BY id', [])) removed += await rollUpTenant(sql, id);
  return removed;
}

async function rollUpTenant(sql: Sql, tenantId: string): Promise<number> {
  const rows = await sql.query<{ removed: number }>(
    `WITH groups AS (
       SELECT tenant_id, hour, kind, source, fields FROM field_coverage WHERE tenant_id = $1::uuid
       GROUP BY tenant_id, hour, kind, source, fields HAVING count(*) > 1
     ),
     gone AS (
       DELETE FROM field_coverage c USING groups g
       WHERE c.tenant_id = $1::uuid AND c.tenant_id = g.tenant_id AND c.hour = g.hour AND c.kind = g.kind AND c.source = g.source AND c.fields = g.fields
       RETURNING c.tenant_id, c.hour, c.kind, c.source, c.fields, c.records, c.present
     ),
     sums AS (
       SELECT g.tenant_id, g.hour, g.kind, g.source, g.fields, e.i, sum(e.v)::int AS v
       FROM gone g CROSS JOIN LATERAL unnest(g.present) WITH ORDINALITY AS e(v, i)
       GROUP BY g.tenant_id, g.hour, g.kind, g.source, g.fields, e.i
     ),
     totals AS (
       SELECT tenant_id, hour, kind, source, fields, sum(records)::int AS records, count(*)::int AS removed
       FROM gone GROUP BY tenant_id, hour, kind, source, fields
     ),
     inserted AS (
       INSERT INTO field_coverage (tenant_id, hour, kind, source, fields, records, present)
       SELECT t.tenant_id, t.hour, t.kind, t.source, t.fields, t.records,
         (SELECT array_agg(s.v ORDER BY s.i) FROM sums s
          WHERE s.tenant_id = t.tenant_id AND s.hour = t.hour AND s.kind = t.kind AND s.source = t.source AND s.fields = t.fields)
       FROM totals t
     )
     SELECT coalesce(sum(removed), 0)::int AS removed FROM totals`,
    [tenantId],
  );
  return rows[0]?.removed ?? 0;
}

/** Deletes the hours that ended at or before `before` (ingest health's retention). Returns the rows deleted. */
export async function dropFieldCoverage(sql: Sql, before: Date): Promise<number> {
  const rows = await sql.query<{ deleted: number }>(
    `WITH deleted AS (DELETE FROM field_coverage WHERE hour <= $1::timestamptz - interval '1 hour' RETURNING 1) SELECT count(*)::int AS deleted FROM deleted`,
    [before],
  );
  return rows[0]?.deleted ?? 0;
}
