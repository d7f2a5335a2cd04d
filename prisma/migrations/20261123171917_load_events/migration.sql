-- CreateTable
CREATE TABLE "load_events" (
    "id" BIGSERIAL NOT NULL,
    "tenant_id" UUID NOT NULL,
    "seq" BIGINT NOT NULL,
    "type" TEXT NOT NULL,
    "load_permalink" TEXT,
    "data" JSONB NOT NULL,
    "occurred_at" TIMESTAMPTZ NOT NULL,

    CONSTRAINT "load_events_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "load_event_cursors" (
    "tenant_id" UUID NOT NULL,
    "seq" BIGINT NOT NULL,

    CONSTRAINT "load_event_cursors_pkey" PRIMARY KEY ("tenant_id")
);

-- CreateIndex
CREATE INDEX "load_events_occurred_at_idx" ON "load_events"("occurred_at");

-- CreateIndex
CREATE UNIQUE INDEX "load_events_tenant_id_seq_key" ON "load_events"("tenant_id", "seq");

-- AddForeignKey
ALTER TABLE "load_events" ADD CONSTRAINT "load_events_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "load_event_cursors" ADD CONSTRAINT "load_event_cursors_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- ---------------------------------------------------------------------------------------------
-- Change events: a transactional outbox filled by triggers (hand-written; see README "Live data").
--
-- Row-level AFTER triggers compare OLD and NEW and record what a subscriber cares about, so every
-- write path (single and bulk upserts, editLoad, status-mapping re-phasing) records its events in
-- its own transaction, and a skipped or duplicate write (no row written) records nothing.
--
-- The event triggers are DEFERRED constraint triggers: they run at commit, after every row lock of
-- the transaction has been taken. There each event takes the tenant's next `seq` from its
-- load_event_cursors row; that row lock is the transaction's last lock and is held only through the
-- commit itself, so (1) the tenant's committing writers are ordered by it and `seq` is strictly
-- increasing in commit order (a reader never sees seq N+1 committed before seq N), and (2) it cannot
-- deadlock with record row locks, whatever order a transaction writes its records in.
-- ---------------------------------------------------------------------------------------------

-- Instants in payloads: ISO 8601 UTC with milliseconds, as GraphQL's DateTime prints them.
CREATE FUNCTION load_event_time(t timestamptz) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT to_char(t AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
$$;

-- Records one event with the tenant's next seq and notifies listeners (delivered at commit;
-- PostgreSQL folds identical notifications of one transaction into one).
CREATE FUNCTION load_event_emit(p_tenant uuid, p_type text, p_load text, p_data jsonb, p_at timestamptz)
RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
  next_seq bigint;
BEGIN
  INSERT INTO "load_event_cursors" AS c ("tenant_id", "seq") VALUES (p_tenant, 1)
  ON CONFLICT ("tenant_id") DO UPDATE SET "seq" = c."seq" + 1
  RETURNING c."seq" INTO next_seq;
  INSERT INTO "load_events" ("tenant_id", "seq", "type", "load_permalink", "data", "occurred_at")
  VALUES (p_tenant, next_seq, p_type, p_load, p_data, p_at);
  PERFORM pg_notify('load_events', p_tenant::text);
  RETURN next_seq;
END $$;

-- The keys of `after` whose value differs from `before` (bookkeeping keys left out), sorted.
CREATE FUNCTION load_event_changed_fields(before jsonb, after jsonb) RETURNS jsonb LANGUAGE sql IMMUTABLE AS $$
  SELECT coalesce(jsonb_agg(a.key ORDER BY a.key), '[]'::jsonb)
  FROM jsonb_each(after) a
  WHERE a.key NOT IN ('changedAt', 'createdAt') AND a.value IS DISTINCT FROM before -> a.key
$$;

-- Payload snapshots: GraphQL field names.
CREATE FUNCTION load_event_load(l "loads") RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT jsonb_build_object(
    'permalink', l."permalink", 'tmsId', l."tms_id", 'status', l."status", 'phase', l."phase",
    'customerReferenceNumber', l."customer_reference_number", 'orderType', l."order_type",
    'bolNumber', l."bol_number", 'poNumber', l."po_number", 'loadMode', l."load_mode",
    'customerName', l."customer_name", 'originStopId', l."origin_stop_id",
    'originStopIdPermalink', l."origin_stop_id_permalink", 'destinationStopId', l."destination_stop_id",
    'destinationStopIdPermalink', l."destination_stop_id_permalink", 'extra', l."extra",
    'changedAt', load_event_time(l."changed_at"), 'createdAt', load_event_time(l."created_at"))
$$;

CREATE FUNCTION load_event_leg(g "load_legs") RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT jsonb_build_object(
    'permalink', g."permalink", 'tmsId', g."tms_id", 'sequence', g."sequence",
    'loadPermalink', (SELECT l."permalink" FROM "loads" l WHERE l."id" = g."load_id"),
    'carrierPermalink', (SELECT c."permalink" FROM "carriers" c WHERE c."id" = g."carrier_id"),
    'loadUniqueKey', g."load_unique_key", 'referenceNumber', g."reference_number",
    'pickupReferenceNumber', g."pickup_reference_number", 'driverName', g."driver_name",
    'driverPhone', g."driver_phone", 'truckNumber', g."truck_number", 'trailerNumber', g."trailer_number",
    'carrierRepName', g."carrier_rep_name", 'carrierRepEmail', g."carrier_rep_email",
    'customerRepName', g."customer_rep_name", 'customerRepEmail', g."customer_rep_email",
    'status', g."status", 'extra', g."extra",
    'changedAt', load_event_time(g."changed_at"), 'createdAt', load_event_time(g."created_at"))
$$;

CREATE FUNCTION load_event_stop(s "stops") RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT jsonb_build_object(
    'permalink', s."permalink", 'tmsId', s."tms_id", 'sequence', s."sequence", 'type', s."type",
    'legPermalink', (SELECT g."permalink" FROM "load_legs" g WHERE g."id" = s."leg_id"),
    'locationName', s."location_name", 'addressLine1', s."address_line1", 'addressLine2', s."address_line2",
    'city', s."city", 'state', s."state", 'postalCode', s."postal_code", 'country', s."country",
    'latitude', s."latitude", 'longitude', s."longitude", 'timezone', s."timezone",
    'appointmentStart', load_event_time(s."appointment_start"), 'appointmentEnd', load_event_time(s."appointment_end"),
    'arrivedAt', load_event_time(s."arrived_at"), 'departedAt', load_event_time(s."departed_at"),
    'referenceNumber', s."reference_number", 'status', s."status", 'extra', s."extra",
    'changedAt', load_event_time(s."changed_at"), 'createdAt', load_event_time(s."created_at"))
$$;

CREATE FUNCTION load_event_update(u "load_updates") RETURNS jsonb LANGUAGE sql STABLE AS $$
  SELECT jsonb_build_object(
    'permalink', u."permalink", 'type', u."type", 'occurredAt', load_event_time(u."occurred_at"),
    'legPermalink', (SELECT g."permalink" FROM "load_legs" g WHERE g."id" = u."leg_id"),
    'status', u."status", 'phase', u."phase", 'latitude', u."latitude", 'longitude', u."longitude",
    'city', u."city", 'state', u."state", 'country', u."country", 'eta', load_event_time(u."eta"),
    'message', u."message", 'source', u."source", 'extra', u."extra",
    'createdAt', load_event_time(u."created_at"))
$$;

-- load.created on insert; load.changed (changedFields) and load.phase_changed (from, to, status) on update.
CREATE FUNCTION load_events_on_load() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  snap jsonb := load_event_load(NEW);
  changed jsonb;
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM load_event_emit(NEW."tenant_id", 'load.created', NEW."permalink", jsonb_build_object('load', snap), NEW."changed_at");
    RETURN NULL;
  END IF;
  changed := load_event_changed_fields(load_event_load(OLD), snap) - 'phase';
  IF jsonb_array_length(changed) > 0 THEN
    PERFORM load_event_emit(NEW."tenant_id", 'load.changed', NEW."permalink",
      jsonb_build_object('load', snap, 'changedFields', changed), NEW."changed_at");
  END IF;
  IF NEW."phase" IS DISTINCT FROM OLD."phase" THEN
    PERFORM load_event_emit(NEW."tenant_id", 'load.phase_changed', NEW."permalink",
      jsonb_build_object('loadPermalink', NEW."permalink", 'from', OLD."phase", 'to', NEW."phase", 'status', NEW."status",
                         'changedAt', load_event_time(NEW."changed_at")), NEW."changed_at");
  END IF;
  RETURN NULL;
END $$;

CREATE CONSTRAINT TRIGGER "loads_events" AFTER INSERT OR UPDATE ON "loads"
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION load_events_on_load();

-- leg.changed on insert (created: true) and on every update that changes a field.
CREATE FUNCTION load_events_on_leg() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  snap jsonb := load_event_leg(NEW);
  changed jsonb;
BEGIN
  IF TG_OP = 'INSERT' THEN
    changed := load_event_changed_fields('{}'::jsonb, snap);
  ELSE
    changed := load_event_changed_fields(load_event_leg(OLD), snap);
    IF jsonb_array_length(changed) = 0 THEN RETURN NULL; END IF;
  END IF;
  PERFORM load_event_emit(NEW."tenant_id", 'leg.changed', snap ->> 'loadPermalink',
    jsonb_build_object('loadPermalink', snap -> 'loadPermalink', 'leg', snap, 'created', TG_OP = 'INSERT', 'changedFields', changed),
    NEW."changed_at");
  RETURN NULL;
END $$;

CREATE CONSTRAINT TRIGGER "load_legs_events" AFTER INSERT OR UPDATE ON "load_legs"
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION load_events_on_leg();

-- stop.changed (insert, or fields changed other than a first arrival / departure), then
-- stop.arrived when arrived_at becomes set and stop.departed when departed_at becomes set.
CREATE FUNCTION load_events_on_stop() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  snap jsonb := load_event_stop(NEW);
  load_permalink text := (SELECT l."permalink" FROM "load_legs" g JOIN "loads" l ON l."id" = g."load_id" WHERE g."id" = NEW."leg_id");
  arrived boolean := NEW."arrived_at" IS NOT NULL AND (TG_OP = 'INSERT' OR OLD."arrived_at" IS NULL);
  departed boolean := NEW."departed_at" IS NOT NULL AND (TG_OP = 'INSERT' OR OLD."departed_at" IS NULL);
  changed jsonb;
BEGIN
  IF TG_OP = 'INSERT' THEN
    changed := load_event_changed_fields('{}'::jsonb, snap);
  ELSE
    changed := load_event_changed_fields(load_event_stop(OLD), snap);
    IF arrived THEN changed := changed - 'arrivedAt'; END IF;
    IF departed THEN changed := changed - 'departedAt'; END IF;
  END IF;
  IF TG_OP = 'INSERT' OR jsonb_array_length(changed) > 0 THEN
    PERFORM load_event_emit(NEW."tenant_id", 'stop.changed', load_permalink,
      jsonb_build_object('loadPermalink', load_permalink, 'stop', snap, 'created', TG_OP = 'INSERT', 'changedFields', changed),
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

CREATE CONSTRAINT TRIGGER "stops_events" AFTER INSERT OR UPDATE ON "stops"
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION load_events_on_stop();

-- load_update.received when a load update is stored (re-phasing a stored update records nothing).
CREATE FUNCTION load_events_on_update() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  load_permalink text := (SELECT l."permalink" FROM "loads" l WHERE l."id" = NEW."load_id");
BEGIN
  PERFORM load_event_emit(NEW."tenant_id", 'load_update.received', load_permalink,
    jsonb_build_object('loadPermalink', load_permalink, 'update', load_event_update(NEW)), NEW."created_at");
  RETURN NULL;
END $$;

CREATE CONSTRAINT TRIGGER "load_updates_events" AFTER INSERT ON "load_updates"
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION load_events_on_update();
