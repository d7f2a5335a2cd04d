-- The event numbering pass names the tenant in every statement, and so does every statement that looked
-- rows up by id alone (issue 30; docs/explanation/performance/2026-11-28-write-path.md, "The numbering pass").
--
-- Before: `load_events_sequence` joined the events it numbers back to the outbox by `id` alone, which no
-- index served well once the primary key led with tenant_id (the plain index on id, or a hash join over a
-- sequential scan of the whole outbox, on every write), and its numbering CTE, inlined into the join, was
-- computed again for each event updated (a pass of 500 events read 250,000 rows). On a fresh database the
-- pass cost more database CPU than the write itself. Now the pass reads the tenant's unnumbered events' ids once
-- through `load_events_tenant_id_seq_key` (`seq IS NULL` is an index condition there) and updates each through
-- the primary key, its number its place in that list.

CREATE OR REPLACE FUNCTION load_events_sequence(p_tenant uuid) RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  last_seq bigint;
  numbered integer;
  todo bigint[];
BEGIN
  IF NOT EXISTS (SELECT 1 FROM "load_events" WHERE "tenant_id" = p_tenant AND "seq" IS NULL) THEN
    RETURN 0;
  END IF;
  INSERT INTO "load_event_cursors" ("tenant_id", "seq") VALUES (p_tenant, 0) ON CONFLICT ("tenant_id") DO NOTHING;
  -- Waits for a concurrent pass to commit; the statements below then see what it numbered.
  SELECT "seq" INTO last_seq FROM "load_event_cursors" WHERE "tenant_id" = p_tenant FOR UPDATE;

  -- The unnumbered events' ids in order, read once through `(tenant_id, seq)` (a null seq is an index
  -- condition there). The update finds each through the primary key (`id = ANY`) and takes its number from
  -- its place in that list: no join with the outbox for the planner to order. Joined to a CTE of the same
  -- events, PostgreSQL computed the numbering again for each event updated, or walked the tenant's whole
  -- outbox comparing each event with the list (a first sync's pass: seconds).
  SELECT array_agg("id" ORDER BY "id") INTO todo FROM "load_events" WHERE "tenant_id" = p_tenant AND "seq" IS NULL;

  WITH numbered AS (
    UPDATE "load_events" e SET "seq" = last_seq + o.n
    FROM unnest(todo) WITH ORDINALITY AS o(id, n)
    WHERE e."tenant_id" = p_tenant AND e."id" = ANY (todo) AND e."id" = o.id
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

-- The plain indexes on id alone (migration `tenant_leading_keys`, section 5) served lookups that now name
-- the tenant: the numbering pass above, the write statements' parent lookups and the tombstone purge
-- (domain/shared/tombstones.ts matches `(tenant_id, id)`). Each cost every insert an index entry.
DROP INDEX "carriers_id_idx";
DROP INDEX "loads_id_idx";
DROP INDEX "load_legs_id_idx";
DROP INDEX "load_events_id_idx";
