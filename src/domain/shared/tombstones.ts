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

// $1 the retention's end, $2 the tenant. Each row matched with its tenant, by the children's keys `(tenant_id, <parent>_id)`.
const purgedLoads = `SELECT tenant_id, id FROM loads WHERE tenant_id = $2::uuid AND deleted_at < $1::timestamptz`;
const purgedLegs = `SELECT tenant_id, id FROM load_legs WHERE tenant_id = $2::uuid AND (deleted_at < $1::timestamptz OR (tenant_id, load_id) IN (${purgedLoads}))`;
const purgedCarriers = `SELECT tenant_id, id FROM carriers WHERE tenant_id = $2::uuid AND deleted_at < $1::timestamptz`;

/**
 * The statements in order: children before their parents (the foreign keys restrict). A leg naming a purged
 * carrier, and a load update naming a purged leg, lose that parent first (set null here: Citus refuses a key
 * that sets a column null when it holds the distribution column, migration `citus_placement`).
 */
const statements = [
  `UPDATE load_updates SET leg_id = NULL WHERE tenant_id = $2::uuid AND (tenant_id, leg_id) IN (${purgedLegs})`,
  `DELETE FROM stops WHERE tenant_id = $2::uuid AND (deleted_at < $1::timestamptz OR (tenant_id, leg_id) IN (${purgedLegs}))`,
  `DELETE FROM load_updates WHERE tenant_id = $2::uuid AND (tenant_id, load_id) IN (${purgedLoads})`,
  `UPDATE load_legs SET carrier_id = NULL WHERE tenant_id = $2::uuid AND (tenant_id, carrier_id) IN (${purgedCarriers})`,
  `DELETE FROM load_legs WHERE tenant_id = $2::uuid AND (deleted_at < $1::timestamptz OR (tenant_id, load_id) IN (${purgedLoads}))`,
  `DELETE FROM loads WHERE tenant_id = $2::uuid AND deleted_at < $1::timestamptz`,
  `DELETE FROM carriers WHERE tenant_id = $2::uuid AND deleted_at < $1::timestamptz`,
];

/**
 * Removes the tombstones deleted before `before` and what hangs under them, tenant by tenant (one
 * transaction each: on a Citus cluster, each is one shard's work); returns how many rows went (the
 * parents cleared from the children that stay are not counted).
 */
export async function purgeTombstones(db: Database, before: Date): Promise<number> {
  let purged = 0;
  for (const { id } of await db.sql.query<{ id: string }>('SELECT id FROM tenants ORDER BY id', [])) {
    const counts = await db.prisma.$transaction(statements.map((text) => db.prisma.$executeRawUnsafe(text, before, id)));
    purged += counts.reduce((sum, n, i) => sum + (statements[i]!.startsWith('UPDATE') ? 0 : n), 0);
  }
  return purged;
}
