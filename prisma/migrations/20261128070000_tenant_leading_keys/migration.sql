-- Every unique key and foreign key of the tables that would be distributed by tenant leads with
-- tenant_id (issue 30 item 5; docs/decisions/0033-tenant-leading-keys.md, docs/explanation/scaling.md):
-- the record tables (carriers, loads, load_legs, stops, load_updates), the event tables (load_events,
-- load_event_cursors, phase_changes), the history table (payload_history, which has no unique key), the
-- ingest health tables and status_mappings. Primary keys become (tenant_id, id); a foreign key to a
-- record names (tenant_id, <parent>_id) and references the parent's (tenant_id, id), so a child can
-- only point at a parent of its own tenant, and Citus accepts the key between tables distributed by
-- tenant_id (it refuses a unique or foreign key without the distribution column).
-- test/integration/database/tenant-keys.test.ts reads the catalog and fails when a key does not.
--
-- The ON DELETE behaviours are kept. A SET NULL of a two-column key names its column
-- (`SET NULL ("carrier_id")`, PostgreSQL 15): the row keeps its tenant_id. ON UPDATE is NO ACTION
-- (was CASCADE): ids never change, and Citus refuses a cascading update of a key that holds the
-- distribution column. The data stays: only constraints and indexes are rebuilt (each ADD PRIMARY KEY
-- builds its index, each ADD FOREIGN KEY checks the existing rows once).

-- 1. The foreign keys that reference the primary keys about to change.
ALTER TABLE "load_legs" DROP CONSTRAINT "load_legs_load_id_fkey";
ALTER TABLE "load_legs" DROP CONSTRAINT "load_legs_carrier_id_fkey";
ALTER TABLE "stops" DROP CONSTRAINT "stops_leg_id_fkey";
ALTER TABLE "load_updates" DROP CONSTRAINT "load_updates_load_id_fkey";
ALTER TABLE "load_updates" DROP CONSTRAINT "load_updates_leg_id_fkey";
ALTER TABLE "phase_changes" DROP CONSTRAINT "phase_changes_load_id_fkey";

ALTER TABLE "load_activity" DROP CONSTRAINT "load_activity_load_id_fkey";
-- load_activity's key is (tenant_id, load_id); the one-to-one relation no longer needs load_id unique alone.
DROP INDEX "load_activity_load_id_key";

-- 2. Primary keys (tenant_id, id).
ALTER TABLE "carriers" DROP CONSTRAINT "carriers_pkey", ADD CONSTRAINT "carriers_pkey" PRIMARY KEY ("tenant_id", "id");
ALTER TABLE "loads" DROP CONSTRAINT "loads_pkey", ADD CONSTRAINT "loads_pkey" PRIMARY KEY ("tenant_id", "id");
ALTER TABLE "load_legs" DROP CONSTRAINT "load_legs_pkey", ADD CONSTRAINT "load_legs_pkey" PRIMARY KEY ("tenant_id", "id");
ALTER TABLE "stops" DROP CONSTRAINT "stops_pkey", ADD CONSTRAINT "stops_pkey" PRIMARY KEY ("tenant_id", "id");
ALTER TABLE "load_updates" DROP CONSTRAINT "load_updates_pkey", ADD CONSTRAINT "load_updates_pkey" PRIMARY KEY ("tenant_id", "id");
ALTER TABLE "phase_changes" DROP CONSTRAINT "phase_changes_pkey", ADD CONSTRAINT "phase_changes_pkey" PRIMARY KEY ("tenant_id", "id");
ALTER TABLE "load_events" DROP CONSTRAINT "load_events_pkey", ADD CONSTRAINT "load_events_pkey" PRIMARY KEY ("tenant_id", "id");
ALTER TABLE "ingest_rejections" DROP CONSTRAINT "ingest_rejections_pkey", ADD CONSTRAINT "ingest_rejections_pkey" PRIMARY KEY ("tenant_id", "id");
ALTER TABLE "status_mappings" DROP CONSTRAINT "status_mappings_pkey", ADD CONSTRAINT "status_mappings_pkey" PRIMARY KEY ("tenant_id", "id");

-- 3. Foreign keys between records on (tenant_id, <parent>_id), with their ON DELETE behaviours, named
-- as Prisma names a key of two columns (<table>_tenant_id_<column>_fkey).
DO $$
DECLARE
  k record;
BEGIN
  FOR k IN SELECT * FROM (VALUES
      ('load_legs', 'load_id', 'loads', 'RESTRICT'),
      ('load_legs', 'carrier_id', 'carriers', 'SET NULL ("carrier_id")'),
      ('stops', 'leg_id', 'load_legs', 'RESTRICT'),
      ('load_updates', 'load_id', 'loads', 'RESTRICT'),
      ('load_updates', 'leg_id', 'load_legs', 'SET NULL ("leg_id")'),
      ('phase_changes', 'load_id', 'loads', 'CASCADE'),
      ('load_activity', 'load_id', 'loads', 'CASCADE')
    ) AS keys ("table", "column", parent, on_delete) LOOP
    EXECUTE format('ALTER TABLE %I ADD CONSTRAINT %I FOREIGN KEY ("tenant_id", %I) REFERENCES %I ("tenant_id", "id") ON DELETE %s ON UPDATE NO ACTION',
                   k."table", k."table" || '_tenant_id_' || k."column" || '_fkey', k."column", k.parent, k.on_delete);
  END LOOP;
END $$;

-- 4. The keys to tenants (a reference table under Citus) of the tables distributed by tenant_id: same
-- ON DELETE CASCADE, ON UPDATE NO ACTION (a tenant's id never changes).
DO $$
DECLARE
  t text;
BEGIN
  FOREACH t IN ARRAY ARRAY['carriers', 'loads', 'load_legs', 'stops', 'load_updates', 'phase_changes', 'load_events',
                           'load_event_cursors', 'ingest_counts', 'ingest_sources', 'ingest_rejections',
                           'ingest_health_states', 'status_mappings'] LOOP
    EXECUTE format('ALTER TABLE %I DROP CONSTRAINT %I, ADD CONSTRAINT %I FOREIGN KEY ("tenant_id") REFERENCES "tenants" ("id") ON DELETE CASCADE ON UPDATE NO ACTION',
                   t, t || '_tenant_id_fkey', t || '_tenant_id_fkey');
  END LOOP;
END $$;

-- 5. Lookups by id alone. The functions of earlier migrations (events' snapshots, load activity, the
-- event sequencer's `e.id = todo.id`) and the parent lookup of the write statements find a load, leg,
-- carrier or event by its id without its tenant; the primary key no longer serves that (its first
-- column is tenant_id), so a plain (non-unique) index on id keeps them index lookups until they name
-- the tenant. They are no keys: Citus keeps such an index per shard, and a lookup by id alone asks
-- every shard (docs/explanation/scaling.md, "What would not work today").
CREATE INDEX "carriers_id_idx" ON "carriers" ("id");
CREATE INDEX "loads_id_idx" ON "loads" ("id");
CREATE INDEX "load_legs_id_idx" ON "load_legs" ("id");
CREATE INDEX "load_events_id_idx" ON "load_events" ("id");
