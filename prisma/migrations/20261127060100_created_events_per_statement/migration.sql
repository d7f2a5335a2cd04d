-- ---------------------------------------------------------------------------------------------
-- Change events of new loads, legs and stops per statement (issue 21), as load updates' events
-- (migration 20261127060000). The row triggers ran once per new row at commit: a PL/pgSQL call, the
-- snapshot (another call, with its parents' permalinks), the created fields (a third) and one INSERT
-- per event. EXPLAIN (ANALYZE) of bulk writes of 500 (bench/explain-write.ts, 100,000 loads): the
-- event trigger was 40 % of a statement's time. A first sync inserts every record once: one
-- statement-level trigger per table now writes a statement's created events with one INSERT over its
-- transition table. The row triggers keep the updates (they compare OLD and NEW), now on UPDATE only.
--
-- Same events and payloads: the snapshots below are those of load_event_load, load_event_leg and
-- load_event_stop, and a created record's changedFields are still load_event_changed_fields('{}', snapshot)
-- (its snapshot's fields but changedAt and createdAt); test/integration/events holds the
-- two paths to the same snapshots. A row's events keep their order (stop.changed, stop.arrived,
-- stop.departed) and rows theirs (the transition table's order: scans and correlated subqueries keep
-- it). In a statement that inserts some rows and updates others (an upsert), the inserted rows' events
-- now come before the updated rows' (those still run at commit); each record's own events keep their
-- order. Written at the end of the statement, not at its commit: nothing waits on that deferral since
-- events are numbered after commit (migration 20261124183000).
-- ---------------------------------------------------------------------------------------------

-- Loads: load.created here; load.changed and load.phase_changed stay on the row trigger.
CREATE OR REPLACE FUNCTION load_events_on_load() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  changed text[];
BEGIN
  changed := array_remove(ARRAY[
    CASE WHEN NEW."bol_number" IS DISTINCT FROM OLD."bol_number" THEN 'bolNumber' END,
    CASE WHEN NEW."customer_name" IS DISTINCT FROM OLD."customer_name" THEN 'customerName' END,
    CASE WHEN NEW."customer_reference_number" IS DISTINCT FROM OLD."customer_reference_number" THEN 'customerReferenceNumber' END,
    CASE WHEN NEW."destination_stop_id" IS DISTINCT FROM OLD."destination_stop_id" THEN 'destinationStopId' END,
    CASE WHEN NEW."destination_stop_id_permalink" IS DISTINCT FROM OLD."destination_stop_id_permalink" THEN 'destinationStopIdPermalink' END,
    CASE WHEN NEW."extra" IS DISTINCT FROM OLD."extra" THEN 'extra' END,
    CASE WHEN NEW."load_mode" IS DISTINCT FROM OLD."load_mode" THEN 'loadMode' END,
    CASE WHEN NEW."order_type" IS DISTINCT FROM OLD."order_type" THEN 'orderType' END,
    CASE WHEN NEW."origin_stop_id" IS DISTINCT FROM OLD."origin_stop_id" THEN 'originStopId' END,
    CASE WHEN NEW."origin_stop_id_permalink" IS DISTINCT FROM OLD."origin_stop_id_permalink" THEN 'originStopIdPermalink' END,
    CASE WHEN NEW."permalink" IS DISTINCT FROM OLD."permalink" THEN 'permalink' END,
    CASE WHEN NEW."po_number" IS DISTINCT FROM OLD."po_number" THEN 'poNumber' END,
    CASE WHEN NEW."status" IS DISTINCT FROM OLD."status" THEN 'status' END,
    CASE WHEN NEW."tms_id" IS DISTINCT FROM OLD."tms_id" THEN 'tmsId' END
  ], NULL);
  IF cardinality(changed) > 0 THEN
    PERFORM load_event_emit(NEW."tenant_id", 'load.changed', NEW."permalink",
      jsonb_build_object('load', load_event_load(NEW), 'changedFields', to_jsonb(changed)), NEW."changed_at");
  END IF;
  IF NEW."phase" IS DISTINCT FROM OLD."phase" THEN
    PERFORM load_event_emit(NEW."tenant_id", 'load.phase_changed', NEW."permalink",
      jsonb_build_object('loadPermalink', NEW."permalink", 'from', OLD."phase", 'to', NEW."phase", 'status', NEW."status",
                         'changedAt', load_event_time(NEW."changed_at")), NEW."changed_at");
  END IF;
  RETURN NULL;
END $$;

DROP TRIGGER "loads_events" ON "loads";
CREATE CONSTRAINT TRIGGER "loads_events" AFTER UPDATE OF
  "permalink", "tms_id", "status", "phase", "customer_reference_number", "order_type", "bol_number", "po_number",
  "load_mode", "company_permalink", "customer_name", "origin_stop_id", "origin_stop_id_permalink",
  "destination_stop_id", "destination_stop_id_permalink", "extra", "fresh_at", "changed_at"
  ON "loads" DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION load_events_on_load();

CREATE FUNCTION load_events_on_loads_created() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "load_events" ("tenant_id", "seq", "type", "load_permalink", "data", "occurred_at")
  SELECT l."tenant_id", NULL, 'load.created', l."permalink", jsonb_build_object('load', jsonb_build_object(
           'permalink', l."permalink", 'tmsId', l."tms_id", 'status', l."status", 'phase', l."phase",
           'customerReferenceNumber', l."customer_reference_number", 'orderType', l."order_type",
           'bolNumber', l."bol_number", 'poNumber', l."po_number", 'loadMode', l."load_mode",
           'customerName', l."customer_name", 'originStopId', l."origin_stop_id",
           'originStopIdPermalink', l."origin_stop_id_permalink", 'destinationStopId', l."destination_stop_id",
           'destinationStopIdPermalink', l."destination_stop_id_permalink", 'extra', l."extra",
           'changedAt', load_event_time(l."changed_at"), 'createdAt', load_event_time(l."created_at"))),
         l."changed_at"
  FROM "created_rows" l;
  RETURN NULL;
END $$;

CREATE TRIGGER "loads_created_events" AFTER INSERT ON "loads"
  REFERENCING NEW TABLE AS "created_rows" FOR EACH STATEMENT EXECUTE FUNCTION load_events_on_loads_created();

-- Legs: leg.changed with created: true here; updates stay on the row trigger.
CREATE OR REPLACE FUNCTION load_events_on_leg() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  snap jsonb;
  changed jsonb;
BEGIN
  changed := to_jsonb(array_remove(ARRAY[
    CASE WHEN NEW."carrier_id" IS DISTINCT FROM OLD."carrier_id" THEN 'carrierPermalink' END,
    CASE WHEN NEW."carrier_rep_email" IS DISTINCT FROM OLD."carrier_rep_email" THEN 'carrierRepEmail' END,
    CASE WHEN NEW."carrier_rep_name" IS DISTINCT FROM OLD."carrier_rep_name" THEN 'carrierRepName' END,
    CASE WHEN NEW."customer_rep_email" IS DISTINCT FROM OLD."customer_rep_email" THEN 'customerRepEmail' END,
    CASE WHEN NEW."customer_rep_name" IS DISTINCT FROM OLD."customer_rep_name" THEN 'customerRepName' END,
    CASE WHEN NEW."driver_name" IS DISTINCT FROM OLD."driver_name" THEN 'driverName' END,
    CASE WHEN NEW."driver_phone" IS DISTINCT FROM OLD."driver_phone" THEN 'driverPhone' END,
    CASE WHEN NEW."extra" IS DISTINCT FROM OLD."extra" THEN 'extra' END,
    CASE WHEN NEW."load_id" IS DISTINCT FROM OLD."load_id" THEN 'loadPermalink' END,
    CASE WHEN NEW."load_unique_key" IS DISTINCT FROM OLD."load_unique_key" THEN 'loadUniqueKey' END,
    CASE WHEN NEW."permalink" IS DISTINCT FROM OLD."permalink" THEN 'permalink' END,
    CASE WHEN NEW."pickup_reference_number" IS DISTINCT FROM OLD."pickup_reference_number" THEN 'pickupReferenceNumber' END,
    CASE WHEN NEW."reference_number" IS DISTINCT FROM OLD."reference_number" THEN 'referenceNumber' END,
    CASE WHEN NEW."sequence" IS DISTINCT FROM OLD."sequence" THEN 'sequence' END,
    CASE WHEN NEW."status" IS DISTINCT FROM OLD."status" THEN 'status' END,
    CASE WHEN NEW."tms_id" IS DISTINCT FROM OLD."tms_id" THEN 'tmsId' END,
    CASE WHEN NEW."trailer_number" IS DISTINCT FROM OLD."trailer_number" THEN 'trailerNumber' END,
    CASE WHEN NEW."truck_number" IS DISTINCT FROM OLD."truck_number" THEN 'truckNumber' END
  ], NULL));
  IF jsonb_array_length(changed) = 0 THEN RETURN NULL; END IF;
  snap := load_event_leg(NEW);
  PERFORM load_event_emit(NEW."tenant_id", 'leg.changed', snap ->> 'loadPermalink',
    jsonb_build_object('loadPermalink', snap -> 'loadPermalink', 'leg', snap, 'created', false, 'changedFields', changed),
    NEW."changed_at");
  RETURN NULL;
END $$;

DROP TRIGGER "load_legs_events" ON "load_legs";
CREATE CONSTRAINT TRIGGER "load_legs_events" AFTER UPDATE ON "load_legs"
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION load_events_on_leg();

CREATE FUNCTION load_events_on_legs_created() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "load_events" ("tenant_id", "seq", "type", "load_permalink", "data", "occurred_at")
  SELECT g."tenant_id", NULL, 'leg.changed', s."snap" ->> 'loadPermalink',
         jsonb_build_object('loadPermalink', s."snap" -> 'loadPermalink', 'leg', s."snap", 'created', true,
                            'changedFields', load_event_changed_fields('{}'::jsonb, s."snap")),
         g."changed_at"
  FROM "created_rows" g CROSS JOIN LATERAL (SELECT jsonb_build_object(
           'permalink', g."permalink", 'tmsId', g."tms_id", 'sequence', g."sequence",
           'loadPermalink', (SELECT l."permalink" FROM "loads" l WHERE l."id" = g."load_id"),
           'carrierPermalink', (SELECT c."permalink" FROM "carriers" c WHERE c."id" = g."carrier_id"),
           'loadUniqueKey', g."load_unique_key", 'referenceNumber', g."reference_number",
           'pickupReferenceNumber', g."pickup_reference_number", 'driverName', g."driver_name",
           'driverPhone', g."driver_phone", 'truckNumber', g."truck_number", 'trailerNumber', g."trailer_number",
           'carrierRepName', g."carrier_rep_name", 'carrierRepEmail', g."carrier_rep_email",
           'customerRepName', g."customer_rep_name", 'customerRepEmail', g."customer_rep_email",
           'status', g."status", 'extra', g."extra",
           'changedAt', load_event_time(g."changed_at"), 'createdAt', load_event_time(g."created_at")) AS "snap") s;
  RETURN NULL;
END $$;

CREATE TRIGGER "load_legs_created_events" AFTER INSERT ON "load_legs"
  REFERENCING NEW TABLE AS "created_rows" FOR EACH STATEMENT EXECUTE FUNCTION load_events_on_legs_created();

-- Stops: stop.changed (created: true), then stop.arrived and stop.departed when the new stop has them,
-- here; updates stay on the row trigger.
CREATE OR REPLACE FUNCTION load_events_on_stop() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  snap jsonb;
  load_permalink text;
  arrived boolean := NEW."arrived_at" IS NOT NULL AND OLD."arrived_at" IS NULL;
  departed boolean := NEW."departed_at" IS NOT NULL AND OLD."departed_at" IS NULL;
  changed text[];
BEGIN
  changed := array_remove(ARRAY[
    CASE WHEN NEW."address_line1" IS DISTINCT FROM OLD."address_line1" THEN 'addressLine1' END,
    CASE WHEN NEW."address_line2" IS DISTINCT FROM OLD."address_line2" THEN 'addressLine2' END,
    CASE WHEN NEW."appointment_end" IS DISTINCT FROM OLD."appointment_end" THEN 'appointmentEnd' END,
    CASE WHEN NEW."appointment_start" IS DISTINCT FROM OLD."appointment_start" THEN 'appointmentStart' END,
    CASE WHEN NEW."arrived_at" IS DISTINCT FROM OLD."arrived_at" AND NOT arrived THEN 'arrivedAt' END,
    CASE WHEN NEW."city" IS DISTINCT FROM OLD."city" THEN 'city' END,
    CASE WHEN NEW."country" IS DISTINCT FROM OLD."country" THEN 'country' END,
    CASE WHEN NEW."departed_at" IS DISTINCT FROM OLD."departed_at" AND NOT departed THEN 'departedAt' END,
    CASE WHEN NEW."extra" IS DISTINCT FROM OLD."extra" THEN 'extra' END,
    CASE WHEN NEW."latitude" IS DISTINCT FROM OLD."latitude" THEN 'latitude' END,
    CASE WHEN NEW."leg_id" IS DISTINCT FROM OLD."leg_id" THEN 'legPermalink' END,
    CASE WHEN NEW."location_name" IS DISTINCT FROM OLD."location_name" THEN 'locationName' END,
    CASE WHEN NEW."longitude" IS DISTINCT FROM OLD."longitude" THEN 'longitude' END,
    CASE WHEN NEW."permalink" IS DISTINCT FROM OLD."permalink" THEN 'permalink' END,
    CASE WHEN NEW."postal_code" IS DISTINCT FROM OLD."postal_code" THEN 'postalCode' END,
    CASE WHEN NEW."reference_number" IS DISTINCT FROM OLD."reference_number" THEN 'referenceNumber' END,
    CASE WHEN NEW."sequence" IS DISTINCT FROM OLD."sequence" THEN 'sequence' END,
    CASE WHEN NEW."state" IS DISTINCT FROM OLD."state" THEN 'state' END,
    CASE WHEN NEW."status" IS DISTINCT FROM OLD."status" THEN 'status' END,
    CASE WHEN NEW."timezone" IS DISTINCT FROM OLD."timezone" THEN 'timezone' END,
    CASE WHEN NEW."tms_id" IS DISTINCT FROM OLD."tms_id" THEN 'tmsId' END,
    CASE WHEN NEW."type" IS DISTINCT FROM OLD."type" THEN 'type' END
  ], NULL);
  IF cardinality(changed) = 0 AND NOT arrived AND NOT departed THEN RETURN NULL; END IF;
  snap := load_event_stop(NEW);
  load_permalink := (SELECT l."permalink" FROM "load_legs" g JOIN "loads" l ON l."id" = g."load_id" WHERE g."id" = NEW."leg_id");
  IF cardinality(changed) > 0 THEN
    PERFORM load_event_emit(NEW."tenant_id", 'stop.changed', load_permalink,
      jsonb_build_object('loadPermalink', load_permalink, 'stop', snap, 'created', false, 'changedFields', to_jsonb(changed)),
      NEW."changed_at");
  END IF;
  IF arrived THEN
    PERFORM load_event_emit(NEW."tenant_id", 'stop.arrived', load_permalink,
      jsonb_build_object('loadPermalink', load_permalink, 'stop', snap, 'arrivedAt', snap -> 'arrivedAt'), NEW."changed_at");
  END IF;
  IF departed THEN
    PERFORM load_event_emit(NEW."tenant_id", 'stop.departed', load_permalink,
      jsonb_build_object('loadPermalink', load_permalink, 'stop', snap, 'departedAt', snap -> 'departedAt'), NEW."changed_at");
  END IF;
  RETURN NULL;
END $$;

DROP TRIGGER "stops_events" ON "stops";
CREATE CONSTRAINT TRIGGER "stops_events" AFTER UPDATE ON "stops"
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION load_events_on_stop();

CREATE FUNCTION load_events_on_stops_created() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "load_events" ("tenant_id", "seq", "type", "load_permalink", "data", "occurred_at")
  SELECT s."tenant_id", NULL, e."type", x."load_permalink",
         CASE e."type"
           WHEN 'stop.changed' THEN jsonb_build_object('loadPermalink', x."load_permalink", 'stop', x."snap", 'created', true,
             'changedFields', load_event_changed_fields('{}'::jsonb, x."snap"))
           WHEN 'stop.arrived' THEN jsonb_build_object('loadPermalink', x."load_permalink", 'stop', x."snap", 'arrivedAt', x."snap" -> 'arrivedAt')
           ELSE jsonb_build_object('loadPermalink', x."load_permalink", 'stop', x."snap", 'departedAt', x."snap" -> 'departedAt')
         END,
         s."changed_at"
  FROM "created_rows" s
  CROSS JOIN LATERAL (SELECT
    (SELECT l."permalink" FROM "load_legs" g JOIN "loads" l ON l."id" = g."load_id" WHERE g."id" = s."leg_id") AS "load_permalink",
    jsonb_build_object(
      'permalink', s."permalink", 'tmsId', s."tms_id", 'sequence', s."sequence", 'type', s."type",
      'legPermalink', (SELECT g."permalink" FROM "load_legs" g WHERE g."id" = s."leg_id"),
      'locationName', s."location_name", 'addressLine1', s."address_line1", 'addressLine2', s."address_line2",
      'city', s."city", 'state', s."state", 'postalCode', s."postal_code", 'country', s."country",
      'latitude', s."latitude", 'longitude', s."longitude", 'timezone', s."timezone",
      'appointmentStart', load_event_time(s."appointment_start"), 'appointmentEnd', load_event_time(s."appointment_end"),
      'arrivedAt', load_event_time(s."arrived_at"), 'departedAt', load_event_time(s."departed_at"),
      'referenceNumber', s."reference_number", 'status', s."status", 'extra', s."extra",
      'changedAt', load_event_time(s."changed_at"), 'createdAt', load_event_time(s."created_at")) AS "snap") x
  CROSS JOIN LATERAL (VALUES (1, 'stop.changed'), (2, 'stop.arrived'), (3, 'stop.departed')) e("rank", "type")
  WHERE e."rank" = 1 OR (e."rank" = 2 AND s."arrived_at" IS NOT NULL) OR (e."rank" = 3 AND s."departed_at" IS NOT NULL);
  RETURN NULL;
END $$;

CREATE TRIGGER "stops_created_events" AFTER INSERT ON "stops"
  REFERENCING NEW TABLE AS "created_rows" FOR EACH STATEMENT EXECUTE FUNCTION load_events_on_stops_created();
