-- AlterTable
ALTER TABLE "load_events" ALTER COLUMN "seq" DROP NOT NULL;

-- ---------------------------------------------------------------------------------------------
-- Change events, sequenced after commit (hand-written; see README "Live data" → "Cost").
--
-- Before: each event took the tenant's next seq from load_event_cursors at commit and NOTIFYed,
-- so a tenant's committing writers queued on the cursor row lock (held through the commit) and
-- every notifying commit of the cluster queued on PostgreSQL's notify lock: commits serialized.
--
-- Now the writing transaction only inserts its events with seq NULL (no shared row, no NOTIFY).
-- A sequencing pass, load_events_sequence(tenant), run right after the write's commit by the
-- instance that wrote it (and by every instance's periodic sweep, for writes whose instance died),
-- gives the tenant's committed unsequenced events their seq in one short transaction: it locks
-- the tenant's cursor row, numbers what it sees in id order, queues the webhook deliveries of
-- those events, moves the cursor and NOTIFYs once. Readers read only sequenced events (seq > c).
--
-- Why this is lossless and ordered: passes of a tenant are serialized by the cursor row lock and
-- each numbers only events committed before it, so seqs become visible in increasing order
-- (a reader never sees seq N+1 before N); an event committed after a pass's snapshot is numbered by
-- the next pass. Two writes of one row are ordered by the row lock, so the later one's event has
-- the larger id and gets the larger seq, in the same pass or a later one.
-- ---------------------------------------------------------------------------------------------

-- Records one event, unsequenced.
CREATE OR REPLACE FUNCTION load_event_emit(p_tenant uuid, p_type text, p_load text, p_data jsonb, p_at timestamptz)
RETURNS bigint LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "load_events" ("tenant_id", "seq", "type", "load_permalink", "data", "occurred_at")
  VALUES (p_tenant, NULL, p_type, p_load, p_data, p_at);
  RETURN NULL;
END $$;

-- Deliveries are queued when an event is sequenced (their order per load is the event's seq).
DROP TRIGGER "load_events_webhooks" ON "load_events";
DROP FUNCTION webhook_enqueue_event();

-- Numbers the tenant's committed unsequenced events, queues their webhook deliveries, NOTIFYs
-- listeners; returns how many it numbered (0 without touching anything when there are none).
CREATE FUNCTION load_events_sequence(p_tenant uuid) RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  last_seq bigint;
  numbered integer;
BEGIN
  IF NOT EXISTS (SELECT 1 FROM "load_events" WHERE "tenant_id" = p_tenant AND "seq" IS NULL) THEN
    RETURN 0;
  END IF;
  INSERT INTO "load_event_cursors" ("tenant_id", "seq") VALUES (p_tenant, 0) ON CONFLICT ("tenant_id") DO NOTHING;
  -- Waits for a concurrent pass to commit; the statements below then see what it numbered.
  SELECT "seq" INTO last_seq FROM "load_event_cursors" WHERE "tenant_id" = p_tenant FOR UPDATE;

  WITH todo AS (
    SELECT "id", last_seq + row_number() OVER (ORDER BY "id") AS "seq"
    FROM "load_events" WHERE "tenant_id" = p_tenant AND "seq" IS NULL
  ), numbered AS (
    UPDATE "load_events" e SET "seq" = todo."seq" FROM todo WHERE e."id" = todo."id"
    RETURNING e.*
  ), queued AS (
    -- The body is fixed here once (`{type, timestamp, data}`), so every attempt signs the same
    -- bytes; the message id (`webhook-id`) is the event's id.
    INSERT INTO "webhook_deliveries" ("tenant_id", "endpoint_id", "message_id", "event_seq", "event_type",
                                      "load_permalink", "body", "next_attempt_at", "created_at")
    SELECT n."tenant_id", w."id", 'msg_' || n."id", n."seq", n."type", n."load_permalink",
           jsonb_build_object('type', n."type", 'timestamp', load_event_time(n."occurred_at"), 'data', n."data")::text,
           now(), n."occurred_at"
    FROM numbered n JOIN "webhook_endpoints" w
      ON w."tenant_id" = n."tenant_id" AND w."enabled" AND n."type" = ANY (w."event_types")
  )
  SELECT count(*)::int, coalesce(max("seq"), last_seq) INTO numbered, last_seq FROM numbered;

  IF numbered > 0 THEN
    UPDATE "load_event_cursors" SET "seq" = last_seq WHERE "tenant_id" = p_tenant;
    PERFORM pg_notify('load_events', p_tenant::text);
  END IF;
  RETURN numbered;
END $$;

-- Events recorded before this migration are all sequenced already; none is left behind.
