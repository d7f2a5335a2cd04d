-- AlterTable
ALTER TABLE "carriers" ADD COLUMN "deleted_at" TIMESTAMPTZ(3);
ALTER TABLE "loads" ADD COLUMN "deleted_at" TIMESTAMPTZ(3);
ALTER TABLE "load_legs" ADD COLUMN "deleted_at" TIMESTAMPTZ(3);
ALTER TABLE "stops" ADD COLUMN "deleted_at" TIMESTAMPTZ(3);

-- ---------------------------------------------------------------------------------------------
-- Tombstones (hand-written; docs/decisions/0014-tombstones.md, docs/guides/record-lifecycle.md).
--
-- A delete sets deleted_at (the service clock), fresh_at (its sync_run_time, or the clock) and
-- changed_at on the record's row. The cascade below runs in the same statement: deleting a load
-- deletes its live legs, deleting a leg its live stops, each child taking the parent's deleted_at and
-- changed_at and a freshness no older than the parent's (a stale upsert of a child cannot revive
-- it). Carriers cascade to nothing: legs naming a deleted carrier stay (GraphQL answers their
-- carrier as null).
--
-- Change events: <kind>.deleted, one per row whose deleted_at turns from null to a time (the
-- cascade's rows included), deferred to commit like every other event trigger. The existing
-- triggers record nothing for a delete: deleted_at is none of the fields they compare.
-- ---------------------------------------------------------------------------------------------

-- Only tombstones are indexed (the purge finds them; live rows cost the index nothing).
CREATE INDEX "carriers_deleted_at_idx" ON "carriers"("deleted_at") WHERE "deleted_at" IS NOT NULL;
CREATE INDEX "loads_deleted_at_idx" ON "loads"("deleted_at") WHERE "deleted_at" IS NOT NULL;
CREATE INDEX "load_legs_deleted_at_idx" ON "load_legs"("deleted_at") WHERE "deleted_at" IS NOT NULL;
CREATE INDEX "stops_deleted_at_idx" ON "stops"("deleted_at") WHERE "deleted_at" IS NOT NULL;

-- The children are locked FOR UPDATE first (a plain UPDATE of a non-key column would not conflict
-- with the KEY SHARE lock a child's upsert takes on its parent): the cascade waits for children being
-- written under them and, in its next statement, sees them; a child written after waits for the
-- delete and then finds its parent deleted (parent_not_found). The delete statement locks its own
-- rows FOR UPDATE likewise (db/upsert-statement.ts).
CREATE FUNCTION record_delete_cascade_load() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM 1 FROM "load_legs" WHERE "load_id" = NEW."id" AND "deleted_at" IS NULL ORDER BY "id" FOR UPDATE;
  UPDATE "load_legs" SET "deleted_at" = NEW."deleted_at", "changed_at" = NEW."changed_at", "fresh_at" = GREATEST("fresh_at", NEW."fresh_at")
  WHERE "load_id" = NEW."id" AND "deleted_at" IS NULL;
  RETURN NULL;
END $$;

CREATE FUNCTION record_delete_cascade_leg() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "stops" SET "deleted_at" = NEW."deleted_at", "changed_at" = NEW."changed_at", "fresh_at" = GREATEST("fresh_at", NEW."fresh_at")
  WHERE "leg_id" = NEW."id" AND "deleted_at" IS NULL;
  RETURN NULL;
END $$;

CREATE TRIGGER "loads_delete_cascade" AFTER UPDATE OF "deleted_at" ON "loads"
  FOR EACH ROW WHEN (OLD."deleted_at" IS NULL AND NEW."deleted_at" IS NOT NULL) EXECUTE FUNCTION record_delete_cascade_load();
CREATE TRIGGER "load_legs_delete_cascade" AFTER UPDATE OF "deleted_at" ON "load_legs"
  FOR EACH ROW WHEN (OLD."deleted_at" IS NULL AND NEW."deleted_at" IS NOT NULL) EXECUTE FUNCTION record_delete_cascade_leg();

-- <kind>.deleted: { permalink, loadPermalink (loads, legs, stops), deletedAt }. One trigger function per
-- table, each naming the one event it emits (test/integration/events/kind-triggers.test.ts reads them).
CREATE FUNCTION load_event_deleted(p_type text, p_tenant uuid, p_permalink text, p_load text, p_has_load boolean, p_at timestamptz)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  data jsonb := jsonb_build_object('permalink', p_permalink, 'deletedAt', load_event_time(p_at));
BEGIN
  IF p_has_load THEN
    data := data || jsonb_build_object('loadPermalink', p_load);
  END IF;
  PERFORM load_event_emit(p_tenant, p_type, p_load, data, p_at);
END $$;

CREATE FUNCTION load_events_on_carrier_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM load_event_deleted('carrier.deleted', NEW."tenant_id", NEW."permalink", NULL, false, NEW."deleted_at");
  RETURN NULL;
END $$;

CREATE FUNCTION load_events_on_load_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM load_event_deleted('load.deleted', NEW."tenant_id", NEW."permalink", NEW."permalink", true, NEW."deleted_at");
  RETURN NULL;
END $$;

CREATE FUNCTION load_events_on_leg_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM load_event_deleted('leg.deleted', NEW."tenant_id", NEW."permalink",
    (SELECT l."permalink" FROM "loads" l WHERE l."id" = NEW."load_id"), true, NEW."deleted_at");
  RETURN NULL;
END $$;

CREATE FUNCTION load_events_on_stop_delete() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM load_event_deleted('stop.deleted', NEW."tenant_id", NEW."permalink",
    (SELECT l."permalink" FROM "load_legs" g JOIN "loads" l ON l."id" = g."load_id" WHERE g."id" = NEW."leg_id"), true, NEW."deleted_at");
  RETURN NULL;
END $$;

CREATE CONSTRAINT TRIGGER "carriers_deleted_events" AFTER UPDATE OF "deleted_at" ON "carriers"
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (OLD."deleted_at" IS NULL AND NEW."deleted_at" IS NOT NULL)
  EXECUTE FUNCTION load_events_on_carrier_delete();
CREATE CONSTRAINT TRIGGER "loads_deleted_events" AFTER UPDATE OF "deleted_at" ON "loads"
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (OLD."deleted_at" IS NULL AND NEW."deleted_at" IS NOT NULL)
  EXECUTE FUNCTION load_events_on_load_delete();
CREATE CONSTRAINT TRIGGER "load_legs_deleted_events" AFTER UPDATE OF "deleted_at" ON "load_legs"
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (OLD."deleted_at" IS NULL AND NEW."deleted_at" IS NOT NULL)
  EXECUTE FUNCTION load_events_on_leg_delete();
CREATE CONSTRAINT TRIGGER "stops_deleted_events" AFTER UPDATE OF "deleted_at" ON "stops"
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN (OLD."deleted_at" IS NULL AND NEW."deleted_at" IS NOT NULL)
  EXECUTE FUNCTION load_events_on_stop_delete();
