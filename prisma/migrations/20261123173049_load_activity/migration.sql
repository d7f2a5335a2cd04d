-- AlterTable
ALTER TABLE "loads" ADD COLUMN     "last_activity_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP;

-- CreateTable
CREATE TABLE "ingest_health_states" (
    "tenant_id" UUID NOT NULL,
    "source" VARCHAR(16) NOT NULL,
    "state" VARCHAR(16) NOT NULL,
    "changed_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "ingest_health_states_pkey" PRIMARY KEY ("tenant_id","source")
);

-- CreateIndex
CREATE INDEX "load_events_tenant_id_load_permalink_seq_idx" ON "load_events"("tenant_id", "load_permalink", "seq");

-- CreateIndex
CREATE INDEX "loads_tenant_id_last_activity_at_id_idx" ON "loads"("tenant_id", "last_activity_at" DESC, "id" DESC);

-- AddForeignKey
ALTER TABLE "ingest_health_states" ADD CONSTRAINT "ingest_health_states_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- ---------------------------------------------------------------------------------------------
-- Load activity (hand-written): loads.last_activity_at is the latest service-clock write of the
-- load or any of its legs, stops and load updates. A BEFORE trigger keeps it for the load's own
-- writes; AFTER triggers on the children move it forward (never back) on their load.
-- ---------------------------------------------------------------------------------------------

-- The load's own writes: every write path sets changed_at.
CREATE FUNCTION load_activity_on_load() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    NEW."last_activity_at" := NEW."changed_at";
  ELSE
    NEW."last_activity_at" := GREATEST(NEW."last_activity_at", NEW."changed_at");
  END IF;
  RETURN NEW;
END $$;

CREATE TRIGGER "loads_activity" BEFORE INSERT OR UPDATE OF "changed_at" ON "loads"
  FOR EACH ROW EXECUTE FUNCTION load_activity_on_load();

-- A child's write: the conditional UPDATE touches (and locks) the load only when it moves forward.
CREATE FUNCTION load_activity_on_leg() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "loads" SET "last_activity_at" = NEW."changed_at" WHERE "id" = NEW."load_id" AND "last_activity_at" < NEW."changed_at";
  RETURN NULL;
END $$;

CREATE FUNCTION load_activity_on_stop() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "loads" l SET "last_activity_at" = NEW."changed_at"
  FROM "load_legs" g WHERE g."id" = NEW."leg_id" AND l."id" = g."load_id" AND l."last_activity_at" < NEW."changed_at";
  RETURN NULL;
END $$;

CREATE FUNCTION load_activity_on_update() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE "loads" SET "last_activity_at" = NEW."created_at" WHERE "id" = NEW."load_id" AND "last_activity_at" < NEW."created_at";
  RETURN NULL;
END $$;

CREATE TRIGGER "load_legs_activity" AFTER INSERT OR UPDATE ON "load_legs"
  FOR EACH ROW EXECUTE FUNCTION load_activity_on_leg();
CREATE TRIGGER "stops_activity" AFTER INSERT OR UPDATE ON "stops"
  FOR EACH ROW EXECUTE FUNCTION load_activity_on_stop();
CREATE TRIGGER "load_updates_activity" AFTER INSERT ON "load_updates"
  FOR EACH ROW EXECUTE FUNCTION load_activity_on_update();

-- The load's event trigger ignores activity-only updates (a child's write records its own event).
DROP TRIGGER "loads_events" ON "loads";
CREATE CONSTRAINT TRIGGER "loads_events" AFTER INSERT OR UPDATE OF
  "permalink", "tms_id", "status", "phase", "customer_reference_number", "order_type", "bol_number", "po_number",
  "load_mode", "company_permalink", "customer_name", "origin_stop_id", "origin_stop_id_permalink",
  "destination_stop_id", "destination_stop_id_permalink", "extra", "fresh_at", "changed_at"
  ON "loads" DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION load_events_on_load();

-- Existing loads: their latest write so far.
UPDATE "loads" l SET "last_activity_at" = GREATEST(l."changed_at",
  (SELECT max(g."changed_at") FROM "load_legs" g WHERE g."load_id" = l."id"),
  (SELECT max(s."changed_at") FROM "stops" s JOIN "load_legs" g ON g."id" = s."leg_id" WHERE g."load_id" = l."id"),
  (SELECT max(u."created_at") FROM "load_updates" u WHERE u."load_id" = l."id"));

-- ---------------------------------------------------------------------------------------------
-- ingest_health.state_changed: recorded when the stored state of a tenant's source changes
-- (the service upserts the states it evaluates; see src/domain/events/ingest-health.ts).
-- A source without a row was NO_TRAFFIC.
-- ---------------------------------------------------------------------------------------------
CREATE FUNCTION load_events_on_ingest_health() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  from_state text := CASE WHEN TG_OP = 'UPDATE' THEN OLD."state" ELSE 'NO_TRAFFIC' END;
BEGIN
  IF from_state IS DISTINCT FROM NEW."state" THEN
    PERFORM load_event_emit(NEW."tenant_id", 'ingest_health.state_changed', NULL,
      jsonb_build_object('source', upper(NEW."source"), 'from', from_state, 'to', NEW."state",
                         'changedAt', load_event_time(NEW."changed_at")), NEW."changed_at");
  END IF;
  RETURN NULL;
END $$;

CREATE CONSTRAINT TRIGGER "ingest_health_states_events" AFTER INSERT OR UPDATE ON "ingest_health_states"
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION load_events_on_ingest_health();
