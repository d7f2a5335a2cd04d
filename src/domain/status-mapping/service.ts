/**
 * The tenant's status mapping: TMS status text (compared trimmed and case-insensitively) → phase.
 * Changing it re-phases the tenant's stored loads and load updates in the same transaction; the
 * re-phasing statement (db/record-statements.ts) records each phase change and its event.
 */
import { AppError } from '../../errors.js';
import type { Database, Sql } from '../../db/database.js';
import type { Phase } from '../../db/generated/prisma/enums.js';
import type { StatusMapping } from '../../db/generated/prisma/client.js';
import { Phase as Phases } from '../../db/generated/prisma/enums.js';
import { buildRephaseStatement } from '../../db/record-statements.js';
import { recordTableOf } from '../ingestion/record-tables.js';
import { recordSpecs } from '../registry.js';

export const phases = Object.values(Phases) as Phase[];

/**
 * The one rule for "these two statuses are the same": equal keys, the status trimmed of spaces and
 * lower-cased. The database has it as `status_key(text)` (migration `load_status_key`), which keys
 * each stored load (`loads.status_key`) and the phase lookup of every write; the mappings and the
 * load filter (`loads(filter: { status })`) key their argument here, with the same steps.
 */
export const statusKey = (status: string) => status.replace(/^ +| +$/g, '').toLowerCase();

function requireStatus(status: string) {
  const key = statusKey(status);
  if (!key || key.length > 100) {
    throw new AppError('validation_failed', 'A status must have 1 to 100 characters.', [{ field: 'status', issue: 'must have 1 to 100 characters' }]);
  }
  return key;
}

/** The tenant's status mappings, by status key (CLI `list-status-mappings`). */
export async function listStatusMappings(db: Database, tenantId: string) {
  return db.prisma.statusMapping.findMany({ where: { tenantId }, orderBy: { statusKey: 'asc' } });
}

/** The re-phasing statement of each phased kind (a load's records its phase change and its events). */
export const rephasing = recordSpecs.filter((spec) => spec.phase).map((spec) => buildRephaseStatement(recordTableOf(spec)));

/** Re-phases every record of a phased kind (loads, load updates) of the tenant whose status has the given key. */
async function rephase(sql: Sql, tenantId: string, key: string, phase: Phase, now: Date) {
  for (const statement of rephasing) await sql.query(statement.text, statement.params(tenantId, key, phase, now));
}

/** Maps a TMS status to a phase (creating or replacing the mapping) and re-phases stored records. */
export async function setStatusMapping(db: Database, tenantId: string, status: string, phase: Phase, now = new Date()) {
  const key = requireStatus(status);
  if (!phases.includes(phase)) {
    throw new AppError('validation_failed', `Unknown phase ${phase}.`, [{ field: 'phase', issue: `must be one of ${phases.join(', ')}` }]);
  }
  // One transaction, each statement one call on the tenant's node on Citus (through the transaction's connection).
  return db.transaction(async (tx) => {
    const sql = db.tenantSql(tenantId, tx);
    const [row] = await sql.query<Omit<StatusMapping, 'phase' | 'updatedAt'> & { updatedAt: Date | string }>(upsertMappingSql, [
      tenantId,
      status.trim(),
      key,
      phase,
      now,
    ]);
    await rephase(sql, tenantId, key, phase, now);
    // Carried to a Citus node the row comes back as JSON, its time as text.
    return { ...row!, updatedAt: new Date(row!.updatedAt), phase } satisfies StatusMapping;
  });
}

/**
 * $1 tenant, $2 status, $3 its key, $4 phase, $5 now. Its RETURNING leaves the phase out (the caller knows
 * it): a Citus coordinator refuses an enum's output function (not IMMUTABLE) in a RETURNING clause, which
 * Prisma's upsert writes (`"phase"::text`).
 */
export const upsertMappingSql = `INSERT INTO status_mappings AS m (id, tenant_id, status, status_key, phase, updated_at)
  VALUES (gen_random_uuid(), $1::uuid, $2::text, $3::text, $4::"Phase", $5::timestamptz)
  ON CONFLICT (tenant_id, status_key) DO UPDATE SET status = EXCLUDED.status, phase = EXCLUDED.phase, updated_at = EXCLUDED.updated_at
  RETURNING m.id, m.tenant_id AS "tenantId", m.status, m.status_key AS "statusKey", m.updated_at AS "updatedAt"`;

/** Removes a mapping; loads with that status become UNMAPPED. Returns false when there was none. */
export async function removeStatusMapping(db: Database, tenantId: string, status: string, now = new Date()): Promise<boolean> {
  const key = requireStatus(status);
  return db.transaction(async (tx) => {
    const sql = db.tenantSql(tenantId, tx);
    const removed = (await sql.query(removeMappingSql, [tenantId, key])).length > 0;
    if (removed) await rephase(sql, tenantId, key, 'UNMAPPED', now);
    return removed;
  });
}

/** $1 tenant, $2 status key. */
export const removeMappingSql = `DELETE FROM status_mappings WHERE tenant_id = $1::uuid AND status_key = $2::text RETURNING id`;
