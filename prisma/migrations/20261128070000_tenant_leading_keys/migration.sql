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

-- load_activity (migration 20261128060000, made in parallel) has a foreign key (load_id) → loads (id).
-- When the table is there, its foreign keys to loads go too and come back on (tenant_id, load_id) below.
DO $$
DECLARE
  fk record;
BEGIN
  IF to_regclass('load_activity') IS NOT NULL THEN
    FOR fk IN SELECT conname FROM pg_constraint
              WHERE conrelid = 'load_activity'::regclass AND confrelid = 'loads'::regclass AND contype = 'f' LOOP
      EXECUTE format('ALTER TABLE "load_activity" DROP CONSTRAINT %I', fk.conname);
    END LOOP;
  END IF;
END $$;

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

-- 3. Foreign keys between records on (tenant_id, <parent>_id), with their ON DELETE behaviours (named
-- as Prisma names a key of two columns).
ALTER TABLE "load_legs" ADD CONSTRAINT "load_legs_tenant_id_load_id_fkey" FOREIGN KEY ("tenant_id", "load_id")
  REFERENCES "loads" ("tenant_id", "id") ON DELETE RESTRICT ON UPDATE NO ACTION;
ALTER TABLE "load_legs" ADD CONSTRAINT "load_legs_tenant_id_carrier_id_fkey" FOREIGN KEY ("tenant_id", "carrier_id")
  REFERENCES "carriers" ("tenant_id", "id") ON DELETE SET NULL ("carrier_id") ON UPDATE NO ACTION;
ALTER TABLE "stops" ADD CONSTRAINT "stops_tenant_id_leg_id_fkey" FOREIGN KEY ("tenant_id", "leg_id")
  REFERENCES "load_legs" ("tenant_id", "id") ON DELETE RESTRICT ON UPDATE NO ACTION;
ALTER TABLE "load_updates" ADD CONSTRAINT "load_updates_tenant_id_load_id_fkey" FOREIGN KEY ("tenant_id", "load_id")
  REFERENCES "loads" ("tenant_id", "id") ON DELETE RESTRICT ON UPDATE NO ACTION;
ALTER TABLE "load_updates" ADD CONSTRAINT "load_updates_tenant_id_leg_id_fkey" FOREIGN KEY ("tenant_id", "leg_id")
  REFERENCES "load_legs" ("tenant_id", "id") ON DELETE SET NULL ("leg_id") ON UPDATE NO ACTION;
ALTER TABLE "phase_changes" ADD CONSTRAINT "phase_changes_tenant_id_load_id_fkey" FOREIGN KEY ("tenant_id", "load_id")
  REFERENCES "loads" ("tenant_id", "id") ON DELETE CASCADE ON UPDATE NO ACTION;

DO $$
BEGIN
  IF to_regclass('load_activity') IS NOT NULL THEN
    ALTER TABLE "load_activity" ADD CONSTRAINT "load_activity_tenant_id_load_id_fkey" FOREIGN KEY ("tenant_id", "load_id")
      REFERENCES "loads" ("tenant_id", "id") ON DELETE CASCADE ON UPDATE NO ACTION;
  END IF;
END $$;

-- 4. The keys to tenants (a reference table under Citus) of the tables distributed by tenant_id: same
-- ON DELETE CASCADE, ON UPDATE NO ACTION (a tenant's id never changes).
ALTER TABLE "carriers" DROP CONSTRAINT "carriers_tenant_id_fkey", ADD CONSTRAINT "carriers_tenant_id_fkey"
  FOREIGN KEY ("tenant_id") REFERENCES "tenants" ("id") ON DELETE CASCADE ON UPDATE NO ACTION;
ALTER TABLE "loads" DROP CONSTRAINT "loads_tenant_id_fkey", ADD CONSTRAINT "loads_tenant_id_fkey"
  FOREIGN KEY ("tenant_id") REFERENCES "tenants" ("id") ON DELETE CASCADE ON UPDATE NO ACTION;
ALTER TABLE "load_legs" DROP CONSTRAINT "load_legs_tenant_id_fkey", ADD CONSTRAINT "load_legs_tenant_id_fkey"
  FOREIGN KEY ("tenant_id") REFERENCES "tenants" ("id") ON DELETE CASCADE ON UPDATE NO ACTION;
ALTER TABLE "stops" DROP CONSTRAINT "stops_tenant_id_fkey", ADD CONSTRAINT "stops_tenant_id_fkey"
  FOREIGN KEY ("tenant_id") REFERENCES "tenants" ("id") ON DELETE CASCADE ON UPDATE NO ACTION;
ALTER TABLE "load_updates" DROP CONSTRAINT "load_updates_tenant_id_fkey", ADD CONSTRAINT "load_updates_tenant_id_fkey"
  FOREIGN KEY ("tenant_id") REFERENCES "tenants" ("id") ON DELETE CASCADE ON UPDATE NO ACTION;
ALTER TABLE "phase_changes" DROP CONSTRAINT "phase_changes_tenant_id_fkey", ADD CONSTRAINT "phase_changes_tenant_id_fkey"
  FOREIGN KEY ("tenant_id") REFERENCES "tenants" ("id") ON DELETE CASCADE ON UPDATE NO ACTION;
ALTER TABLE "load_events" DROP CONSTRAINT "load_events_tenant_id_fkey", ADD CONSTRAINT "load_events_tenant_id_fkey"
  FOREIGN KEY ("tenant_id") REFERENCES "tenants" ("id") ON DELETE CASCADE ON UPDATE NO ACTION;
ALTER TABLE "load_event_cursors" DROP CONSTRAINT "load_event_cursors_tenant_id_fkey", ADD CONSTRAINT "load_event_cursors_tenant_id_fkey"
  FOREIGN KEY ("tenant_id") REFERENCES "tenants" ("id") ON DELETE CASCADE ON UPDATE NO ACTION;
ALTER TABLE "ingest_counts" DROP CONSTRAINT "ingest_counts_tenant_id_fkey", ADD CONSTRAINT "ingest_counts_tenant_id_fkey"
  FOREIGN KEY ("tenant_id") REFERENCES "tenants" ("id") ON DELETE CASCADE ON UPDATE NO ACTION;
ALTER TABLE "ingest_sources" DROP CONSTRAINT "ingest_sources_tenant_id_fkey", ADD CONSTRAINT "ingest_sources_tenant_id_fkey"
  FOREIGN KEY ("tenant_id") REFERENCES "tenants" ("id") ON DELETE CASCADE ON UPDATE NO ACTION;
ALTER TABLE "ingest_rejections" DROP CONSTRAINT "ingest_rejections_tenant_id_fkey", ADD CONSTRAINT "ingest_rejections_tenant_id_fkey"
  FOREIGN KEY ("tenant_id") REFERENCES "tenants" ("id") ON DELETE CASCADE ON UPDATE NO ACTION;
ALTER TABLE "ingest_health_states" DROP CONSTRAINT "ingest_health_states_tenant_id_fkey", ADD CONSTRAINT "ingest_health_states_tenant_id_fkey"
  FOREIGN KEY ("tenant_id") REFERENCES "tenants" ("id") ON DELETE CASCADE ON UPDATE NO ACTION;
ALTER TABLE "status_mappings" DROP CONSTRAINT "status_mappings_tenant_id_fkey", ADD CONSTRAINT "status_mappings_tenant_id_fkey"
  FOREIGN KEY ("tenant_id") REFERENCES "tenants" ("id") ON DELETE CASCADE ON UPDATE NO ACTION;

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
