-- The tenant's pass with its node (migration `pass_on_its_node`, docs/decisions/0054-one-call-on-the-tenants-node.md):
-- a stored snapshot of another server (`derived_on` not this one's system identifier) is replaced by this
-- pass's own, so none of the entries it finds is counted (none twice), and the cursor records this server.
-- A migration of its own: on Citus the column's addition runs on every shard in parallel, and a distributed
-- function's replacement cannot follow it in the same transaction.
CREATE OR REPLACE FUNCTION "load_events_sequence"(p_tenant uuid, p_coverage jsonb DEFAULT NULL) RETURNS integer LANGUAGE plpgsql AS $$
DECLARE
  last_seq bigint;
  numbered integer := 0;
  counted integer := 0;
  todo bigint[];
  last_snap pg_snapshot;
  last_node bigint;
  node bigint := (pg_control_system()).system_identifier;
  now_snap pg_snapshot;
BEGIN
  -- Nothing to do (the common case of a read): two index probes, no lock, no write.
  IF p_coverage IS NOT NULL THEN
    SELECT "derived_through", "derived_on" INTO last_snap, last_node FROM "load_event_cursors" WHERE "tenant_id" = p_tenant;
  END IF;
  IF NOT EXISTS (SELECT 1 FROM "load_events" WHERE "tenant_id" = p_tenant AND "seq" IS NULL)
     AND NOT (p_coverage IS NOT NULL AND last_snap IS NOT NULL AND last_node IS DISTINCT FROM node)
     AND NOT (p_coverage IS NOT NULL AND EXISTS (
       SELECT 1 FROM "payload_history" h
       WHERE h."tenant_id" = p_tenant AND h."xid" >= coalesce(pg_snapshot_xmin(last_snap), '0'::xid8)
         AND (last_snap IS NULL OR NOT pg_visible_in_snapshot(h."xid", last_snap)))) THEN
    RETURN 0;
  END IF;
  INSERT INTO "load_event_cursors" ("tenant_id", "seq") VALUES (p_tenant, 0) ON CONFLICT ("tenant_id") DO NOTHING;
  -- Waits for a concurrent pass to commit; the statements below then see what it numbered and counted.
  SELECT "seq", "derived_through", "derived_on" INTO last_seq, last_snap, last_node FROM "load_event_cursors" WHERE "tenant_id" = p_tenant FOR UPDATE;

  -- The unnumbered events' ids in order, read once through `(tenant_id, seq)` (a null seq is an index
  -- condition there). The update finds each through the primary key (`id = ANY`) and takes its number from
  -- its place in that list (migration `events_numbered_by_tenant`).
  SELECT array_agg("id" ORDER BY "id") INTO todo FROM "load_events" WHERE "tenant_id" = p_tenant AND "seq" IS NULL;

  IF todo IS NOT NULL THEN
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
        ON w."tenant_id" = p_tenant AND w."tenant_id" = n."tenant_id" AND w."enabled" AND n."type" = ANY (w."event_types")
    )
    SELECT count(*)::int, coalesce(max("seq"), last_seq) INTO numbered, last_seq FROM numbered;
  END IF;

  IF p_coverage IS NOT NULL THEN
    -- Taken after the lock: it holds everything the previous pass's snapshot held (that pass committed first).
    now_snap := pg_current_snapshot();
    -- Another node's snapshot (the tenant's shards moved here): this node's entries start from now.
    IF last_snap IS NOT NULL AND last_node IS DISTINCT FROM node THEN
      last_snap := now_snap;
    END IF;
    WITH fresh AS (
      SELECT h."kind", h."source", date_bin('1 hour', h."received_at", TIMESTAMPTZ '2000-01-01 00:00:00+00') AS "hour", h."coverage"
      FROM "payload_history" h
      WHERE h."tenant_id" = p_tenant AND h."xid" >= coalesce(pg_snapshot_xmin(last_snap), '0'::xid8)
        AND pg_visible_in_snapshot(h."xid", now_snap)
        AND (last_snap IS NULL OR NOT pg_visible_in_snapshot(h."xid", last_snap))
        AND length(h."coverage") = jsonb_array_length(p_coverage -> h."kind")
    ), totals AS (
      SELECT "kind", "source", "hour", count(*)::int AS "records" FROM fresh GROUP BY "kind", "source", "hour"
    ), sums AS (
      SELECT f."kind", f."source", f."hour", e.i, sum(get_bit(f."coverage", e.i))::int AS v
      FROM fresh f CROSS JOIN LATERAL generate_series(0, length(f."coverage") - 1) AS e(i)
      GROUP BY f."kind", f."source", f."hour", e.i
    ), added AS (
      INSERT INTO "field_coverage" AS c ("tenant_id", "hour", "kind", "source", "fields", "records", "present")
      SELECT p_tenant, t."hour", t."kind", t."source", ARRAY(SELECT f.name FROM jsonb_array_elements_text(p_coverage -> t."kind") WITH ORDINALITY AS f(name, i) ORDER BY f.i), t."records",
        (SELECT array_agg(s.v ORDER BY s.i) FROM sums s WHERE s."kind" = t."kind" AND s."source" = t."source" AND s."hour" = t."hour")
      FROM totals t ORDER BY t."hour", t."kind", t."source"
      ON CONFLICT ("tenant_id", "hour", "kind", "source", "fields") DO UPDATE
        SET "records" = c."records" + EXCLUDED."records",
            "present" = ARRAY(SELECT u.a + u.b FROM unnest(c."present", EXCLUDED."present") WITH ORDINALITY AS u(a, b, i) ORDER BY u.i)
      RETURNING 1
    )
    SELECT count(*)::int INTO counted FROM added;
  END IF;

  IF numbered > 0 OR now_snap IS NOT NULL THEN
    UPDATE "load_event_cursors" SET "seq" = last_seq, "derived_through" = coalesce(now_snap, "derived_through"),
      "derived_on" = CASE WHEN now_snap IS NULL THEN "derived_on" ELSE node END WHERE "tenant_id" = p_tenant;
  END IF;
  IF numbered > 0 THEN
    PERFORM pg_notify('load_events', p_tenant::text);
  END IF;
  RETURN numbered + counted;
END $$;
