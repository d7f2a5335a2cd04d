-- ---------------------------------------------------------------------------------------------
-- Every write in its own statements (issue 30; docs/decisions/0032-set-based-writes.md).
--
-- The write statements (src/db/record-statements.ts, src/db/record-effects.ts, built at start from
-- each kind's declaration) now record what a write does in the write's own statement, set-based:
-- the change events (created, changed, phase, deleted), the phase history, the delete's cascade and
-- the activity of the loads a write touches. The row and statement triggers that did it, and the
-- functions they called, go. What remains of the database's own procedures, and why:
--   - status_key(text): IMMUTABLE SQL, inlined where it is called (the phase lookup, re-phasing);
--   - load_event_time(timestamptz), load_event_emit(…) and load_events_on_ingest_health(): the
--     ingest-health states' trigger (one row per tenant and source, written by the maintenance job,
--     never by ingestion);
--   - load_events_sequence(uuid): the sequencing pass after commit (decision 0005).
-- ---------------------------------------------------------------------------------------------

-- Activity, moved out of `loads`: a child's write moved its load's last_activity_at, a non-HOT update
-- writing a new version of the load into every index of the table. It now moves one narrow row.
CREATE TABLE "load_activity" (
    "tenant_id" UUID NOT NULL,
    "load_id" UUID NOT NULL,
    "last_activity_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "load_activity_pkey" PRIMARY KEY ("tenant_id", "load_id")
);

-- CreateIndex: the one-to-one relation `Load.activity` (Prisma wants its key unique on its own).
CREATE UNIQUE INDEX "load_activity_load_id_key" ON "load_activity"("load_id");

-- CreateIndex: `loads(order: ACTIVITY_DESC)` walks it; `activitySince` reads it.
CREATE INDEX "load_activity_tenant_id_last_activity_at_load_id_idx" ON "load_activity"("tenant_id", "last_activity_at" DESC, "load_id" DESC);

-- AddForeignKey
ALTER TABLE "load_activity" ADD CONSTRAINT "load_activity_load_id_fkey" FOREIGN KEY ("load_id") REFERENCES "loads"("id") ON DELETE CASCADE ON UPDATE CASCADE;

INSERT INTO "load_activity" ("tenant_id", "load_id", "last_activity_at")
SELECT "tenant_id", "id", "last_activity_at" FROM "loads";

DROP TRIGGER "loads_activity" ON "loads";
DROP TRIGGER "load_legs_activity" ON "load_legs";
DROP TRIGGER "stops_activity" ON "stops";
DROP TRIGGER "load_updates_activity" ON "load_updates";
DROP FUNCTION load_activity_on_load();
DROP FUNCTION load_activity_on_leg();
DROP FUNCTION load_activity_on_stop();
DROP FUNCTION load_activity_on_update();

DROP INDEX "loads_tenant_id_last_activity_at_id_idx";
ALTER TABLE "loads" DROP COLUMN "last_activity_at";

-- Change events of loads, legs, stops and load updates.
DROP TRIGGER "loads_events" ON "loads";
DROP TRIGGER "loads_created_events" ON "loads";
DROP TRIGGER "load_legs_events" ON "load_legs";
DROP TRIGGER "load_legs_created_events" ON "load_legs";
DROP TRIGGER "stops_events" ON "stops";
DROP TRIGGER "stops_created_events" ON "stops";
DROP TRIGGER "load_updates_events" ON "load_updates";
DROP FUNCTION load_events_on_load();
DROP FUNCTION load_events_on_loads_created();
DROP FUNCTION load_events_on_leg();
DROP FUNCTION load_events_on_legs_created();
DROP FUNCTION load_events_on_stop();
DROP FUNCTION load_events_on_stops_created();
DROP FUNCTION load_events_on_updates();
DROP FUNCTION load_event_load("loads");
DROP FUNCTION load_event_leg("load_legs");
DROP FUNCTION load_event_stop("stops");
DROP FUNCTION load_event_changed_fields(jsonb, jsonb);

-- Phase history.
DROP TRIGGER "loads_phase_history" ON "loads";
DROP FUNCTION record_load_phase_change();

-- Deletes: the cascade and the *.deleted events.
DROP TRIGGER "loads_delete_cascade" ON "loads";
DROP TRIGGER "load_legs_delete_cascade" ON "load_legs";
DROP FUNCTION record_delete_cascade_load();
DROP FUNCTION record_delete_cascade_leg();
DROP TRIGGER "carriers_deleted_events" ON "carriers";
DROP TRIGGER "loads_deleted_events" ON "loads";
DROP TRIGGER "load_legs_deleted_events" ON "load_legs";
DROP TRIGGER "stops_deleted_events" ON "stops";
DROP FUNCTION load_events_on_carrier_delete();
DROP FUNCTION load_events_on_load_delete();
DROP FUNCTION load_events_on_leg_delete();
DROP FUNCTION load_events_on_stop_delete();
DROP FUNCTION load_event_deleted(text, uuid, text, text, boolean, timestamptz);

-- stops.city_key: a column PostgreSQL generates (as loads.status_key), no trigger.
DROP TRIGGER "stops_city_key" ON "stops";
DROP FUNCTION stop_city_key();
ALTER TABLE "stops" DROP COLUMN "city_key";
ALTER TABLE "stops" ADD COLUMN "city_key" VARCHAR(100) GENERATED ALWAYS AS (lower("city")) STORED;
CREATE INDEX "stops_tenant_id_city_key_leg_id_idx" ON "stops"("tenant_id", "city_key", "leg_id");

-- Room on each page for a row's next version: an upsert that changes no indexed column is a HOT
-- update (no new index entries). Applies to pages written from now on.
ALTER TABLE "carriers" SET (fillfactor = 80);
ALTER TABLE "loads" SET (fillfactor = 80);
ALTER TABLE "load_legs" SET (fillfactor = 80);
ALTER TABLE "stops" SET (fillfactor = 80);
ALTER TABLE "load_activity" SET (fillfactor = 80);
