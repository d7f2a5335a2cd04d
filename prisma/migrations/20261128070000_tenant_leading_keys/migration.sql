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

-- 6. Index audit (issue 30 item 3): `pg_stat_user_indexes` after a full `npm run bench` on PostgreSQL
-- (docs/explanation/performance/2026-11-28-indexes.md). No query filters or orders carriers by
-- changed_at; the index made every carrier write that moves changed_at a non-HOT update, and its 80,500
-- scans in the bench read 596 rows each (a tenant's carriers, whole, where a key finds one row).
DROP INDEX "carriers_tenant_id_changed_at_idx";

-- The indexes the bench never scanned, and the query each one serves (the bench posts records and reads
-- the board; it runs no other GraphQL filter, no console page and no maintenance job, and has no
-- status mapping, webhook endpoint or rejected record).
COMMENT ON INDEX "loads_tenant_id_status_key_idx" IS 'LoadFilter.status (loads(filter: { status })), and the re-phasing of stored loads when a status mapping changes (domain/status-mapping/service.ts)';
COMMENT ON INDEX "load_legs_carrier_id_idx" IS 'the legs of a carrier: ON DELETE SET NULL (carrier_id) when the tombstone purge deletes a carrier (without it, every leg is read per carrier), and LoadFilter.carrier when the planner starts from the carrier';
COMMENT ON INDEX "load_legs_deleted_at_idx" IS 'the tombstone purge: DELETE FROM load_legs WHERE deleted_at < $1 (domain/shared/tombstones.ts)';
COMMENT ON INDEX "stops_deleted_at_idx" IS 'the tombstone purge: DELETE FROM stops WHERE deleted_at < $1 (domain/shared/tombstones.ts)';
COMMENT ON INDEX "load_updates_pkey" IS 'the row''s key (tenant_id, id), Prisma''s @@id; no statement reads a load update by it today';
COMMENT ON INDEX "phase_changes_load_id_changed_at_idx" IS 'Load.phaseHistory (GraphQL, the console''s load page), and ON DELETE CASCADE when the purge deletes a load';
COMMENT ON INDEX "phase_changes_pkey" IS 'the row''s key (tenant_id, id); no query reads a phase change by it';
COMMENT ON INDEX "load_events_tenant_id_load_permalink_seq_idx" IS 'loadEvents(filter: { loadPermalinks }) and subscriptions to given loads: one load''s events in seq order (domain/events/service.ts)';
COMMENT ON INDEX "ingest_rejections_tenant_id_received_at_idx" IS 'ingestHealth recent rejections (newest first) and the trim of each tenant''s sample (domain/ingest-health)';
COMMENT ON INDEX "ingest_rejections_pkey" IS 'the row''s key (tenant_id, id): the trim of the rejection sample deletes by it';
COMMENT ON INDEX "status_mappings_tenant_id_status_key_key" IS 'setStatusMapping''s upsert by (tenant_id, status_key), and the phase lookup of every write';
-- Not distributed (docs/explanation/scaling.md), never scanned in the bench either:
COMMENT ON INDEX "tenants_slug_key" IS 'a tenant by its slug: the tenant CLI, the admin key''s X-Tenant, onboarding';
COMMENT ON INDEX "api_keys_pkey" IS 'the key row''s identity (Prisma''s @id); keys are found by hash and revoked by tenant';
COMMENT ON INDEX "webhook_endpoints_pkey" IS 'the delivery worker''s joins of a delivery to its endpoint, and an endpoint''s updates (domain/webhook)';
COMMENT ON INDEX "webhook_endpoints_tenant_id_created_at_idx" IS 'webhookEndpoints: a tenant''s endpoints, oldest first';
COMMENT ON INDEX "webhook_deliveries_pkey" IS 'the worker''s claim (w.id = due.id) and the record of each attempt (WHERE id = $1)';
COMMENT ON INDEX "webhook_deliveries_endpoint_id_state_load_permalink_event_s_idx" IS 'the worker''s order per load: NOT EXISTS an earlier pending delivery of the same load to the endpoint';
COMMENT ON INDEX "webhook_deliveries_endpoint_id_created_at_idx" IS 'WebhookEndpoint.deliveries (newest first) and replayWebhookDeliveries'' window';
COMMENT ON INDEX "webhook_attempts_pkey" IS 'the attempt row''s identity (Prisma''s @id)';
COMMENT ON INDEX "webhook_attempts_delivery_id_attempted_at_idx" IS 'WebhookDelivery.attempts, and ON DELETE CASCADE when the retention deletes a delivery';
