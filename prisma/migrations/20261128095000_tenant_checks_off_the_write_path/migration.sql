-- The tables every ingested record writes a row into no longer carry a foreign key to `tenants`
-- (issue 30; docs/decisions/0032-set-based-writes.md, amended). Each such key made PostgreSQL check every
-- row inserted with a trigger of its own (one lookup of the tenant per row: 4–8 % of a bulk statement's
-- execution, `bench/explain-write.ts`) that also locks the tenant's one row FOR KEY SHARE: all of a tenant's
-- concurrent writes took a shared lock on the same row, each lock a new multixact and a write of that row's
-- page. The tenant of a row is the authenticated API key's, resolved before any statement runs; every
-- reference between these tables keeps its key `(tenant_id, <parent>_id)`, so a row still cannot hang
-- under another tenant's parent. The payload history and field coverage tables never had this key, for
-- the same reason. What is lost: deleting a tenant row no longer cascades to these tables (no code path
-- deletes tenants; docs/explanation/scaling.md says how a tenant is removed).
ALTER TABLE "carriers" DROP CONSTRAINT "carriers_tenant_id_fkey";
ALTER TABLE "loads" DROP CONSTRAINT "loads_tenant_id_fkey";
ALTER TABLE "load_legs" DROP CONSTRAINT "load_legs_tenant_id_fkey";
ALTER TABLE "stops" DROP CONSTRAINT "stops_tenant_id_fkey";
ALTER TABLE "load_updates" DROP CONSTRAINT "load_updates_tenant_id_fkey";
ALTER TABLE "load_events" DROP CONSTRAINT "load_events_tenant_id_fkey";
ALTER TABLE "phase_changes" DROP CONSTRAINT "phase_changes_tenant_id_fkey";

-- Index audit (issue 30 item 3), the full bench of 2026-11-28 09:46 UTC: the one index of the record tables that
-- no statement used and had no comment yet (the bench filters no load by its change time).
COMMENT ON INDEX "loads_tenant_id_changed_at_idx" IS 'LoadFilter.changedSince (loads(filter: { changedSince })): a dashboard''s "changed since" view, walked in the tenant''s order';
