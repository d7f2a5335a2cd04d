/**
 * The purge of tombstones (api-contract.md E): records deleted before the retention
 * (`DELETED_RETENTION_DAYS`) are removed for good with what hangs under them, in one transaction:
 * the stops of purged legs, the legs and load updates of purged loads (their phase history goes
 * with them by its foreign key), then the loads and carriers themselves. A load update of a live load
 * that named a purged leg keeps its load (its leg becomes null); a leg naming a purged carrier keeps
 * its other assignments (its carrier becomes null, by the foreign key; no `leg.changed` is recorded).
 * Run by the periodic maintenance (`events/maintenance.ts`); idempotent, so instances may overlap.
 */
import type { Database } from '../../db/database.js';

// Each row matched with its tenant, by the children's keys `(tenant_id, <parent>_id)`.
const purgedLoads = `SELECT tenant_id, id FROM loads WHERE deleted_at < $1::timestamptz`;
const purgedLegs = `SELECT tenant_id, id FROM load_legs WHERE deleted_at < $1::timestamptz OR (tenant_id, load_id) IN (${purgedLoads})`;

/** The statements in order: children before their parents (the foreign keys restrict). */
const statements = [
  `DELETE FROM stops WHERE deleted_at < $1::timestamptz OR (tenant_id, leg_id) IN (${purgedLegs})`,
  `DELETE FROM load_updates WHERE (tenant_id, load_id) IN (${purgedLoads})`,
  `DELETE FROM load_legs WHERE deleted_at < $1::timestamptz OR (tenant_id, load_id) IN (${purgedLoads})`,
  `DELETE FROM loads WHERE deleted_at < $1::timestamptz`,
  `DELETE FROM carriers WHERE deleted_at < $1::timestamptz`,
];

/** Removes the tombstones deleted before `before` and what hangs under them; returns how many rows went. */
export async function purgeTombstones(db: Database, before: Date): Promise<number> {
  const counts = await db.prisma.$transaction(statements.map((text) => db.prisma.$executeRawUnsafe(text, before)));
  return counts.reduce((sum, n) => sum + n, 0);
}
