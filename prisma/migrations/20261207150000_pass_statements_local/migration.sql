-- The tenant's pass, each of its statements one table's work without a data-modifying CTE
-- (docs/decisions/0054-one-call-on-the-tenants-node.md). On a Citus worker the pass runs as a distributed
-- function's delegated call, and each statement inside it is planned by Citus: a statement with a
-- data-modifying CTE was planned recursively (each CTE a subplan with its intermediate result and a
-- distributed transaction of its own: 22 ms a pass on this machine's cluster), a plain statement on the
-- tenant's shard runs locally. The numbering and the deliveries it queues are now two statements (the
-- deliveries read the numbered events back), the field coverage one INSERT … SELECT. Same rows as before
-- on every database.
--
-- It answers how many events it numbered and how many coverage rows it wrote apart (it answered their sum): on
-- Citus the instance sends the pass's NOTIFY on the coordinator, and only a pass that numbered events does, as
-- the function itself does on one server (a write without events changes no subscriber's, webhook's or cached
-- answer's events). A changed result type is a new function: dropped and created (on Citus the placement that
-- follows the migrations distributes it again).
DROP FUNCTION "load_events_sequence"(uuid, jsonb);
CREATE FUNCTION "load_events_sequence"(p_tenant uuid, p_coverage jsonb DEFAULT NULL, OUT numbered integer, OUT counted integer) LANGUAGE plpgsql AS $$
DECLARE
  last_seq bigint;
  todo bigint[];
  last_snap pg_snapshot;
  last_node bigint;
  node bigint := (pg_control_system()).system_identifier;
  now_snap pg_snapshot;
BEGIN
  numbered := 0;
  counted := 0;
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
    RETURN;
  END IF;
  INSERT INTO "load_event_cursors" ("tenant_id", "seq") VALUES (p_tenant, 0) ON CONFLICT ("tenant_id") DO NOTHING;
  -- Waits for a concurrent pass to commit; the statements below then see what it numbered and counted.
  SELECT "seq", "derived_through", "derived_on" INTO last_seq, last_snap, last_node FROM "load_event_cursors" WHERE "tenant_id" = p_tenant FOR UPDATE;

  -- The unnumbered events' ids in order, read once through `(tenant_id, seq)` (a null seq is an index
  -- condition there). The update finds each through the primary key (`id = ANY`) and takes its number from
  -- its place in that list (migration `events_numbered_by_tenant`).
  SELECT array_agg("id" ORDER BY "id") INTO todo FROM "load_events" WHERE "tenant_id" = p_tenant AND "seq" IS NULL;

  IF todo IS NOT NULL THEN
    UPDATE "load_events" e SET "seq" = last_seq + o.n
    FROM unnest(todo) WITH ORDINALITY AS o(id, n)
    WHERE e."tenant_id" = p_tenant AND e."id" = ANY (todo) AND e."id" = o.id;
    GET DIAGNOSTICS numbered = ROW_COUNT;
    -- The body is fixed here once (`{type, timestamp, data}`), so every attempt signs the same
    -- bytes; the message id (`webhook-id`) is the event's id.
    INSERT INTO "webhook_deliveries" ("tenant_id", "endpoint_id", "message_id", "event_seq", "event_type",
                                      "load_permalink", "body", "next_attempt_at", "created_at")
    SELECT n."tenant_id", w."id", 'msg_' || n."id", n."seq", n."type", n."load_permalink",
           jsonb_build_object('type', n."type", 'timestamp', load_event_time(n."occurred_at"), 'data', n."data")::text,
           now(), n."occurred_at"
    FROM "load_events" n JOIN "webhook_endpoints" w
      ON w."tenant_id" = n."tenant_id" AND w."enabled" AND n."type" = ANY (w."event_types")
    WHERE n."tenant_id" = p_tenant AND w."tenant_id" = p_tenant AND n."id" = ANY (todo);
    -- Every id in the list was numbered (they are the tenant's, read under the cursor's lock) unless one was
    -- deleted meanwhile: then the highest number given is read back.
    IF numbered = cardinality(todo) THEN
      last_seq := last_seq + numbered;
    ELSE
      SELECT coalesce(max("seq"), last_seq) INTO last_seq FROM "load_events" WHERE "tenant_id" = p_tenant AND "id" = ANY (todo);
    END IF;
  END IF;

  IF p_coverage IS NOT NULL THEN
    -- Taken after the lock: it holds everything the previous pass's snapshot held (that pass committed first).
    now_snap := pg_current_snapshot();
    -- Another node's snapshot (the tenant's shards moved here): this node's entries start from now.
    IF last_snap IS NOT NULL AND last_node IS DISTINCT FROM node THEN
      last_snap := now_snap;
    END IF;
    -- Per (kind, source, hour) of the new entries: how many, and per recommended field how many carried it
    -- (a bit per field, in the order the pass was given; every entry of a kind has as many bits as its fields).
    INSERT INTO "field_coverage" AS c ("tenant_id", "hour", "kind", "source", "fields", "records", "present")
    SELECT p_tenant, t."hour", t."kind", t."source",
      ARRAY(SELECT f.name FROM jsonb_array_elements_text(p_coverage -> t."kind") WITH ORDINALITY AS f(name, i) ORDER BY f.i),
      t."records", t."present"
    FROM (
      SELECT s."kind", s."source", s."hour", max(s."records") AS "records", array_agg(s.v ORDER BY s.i) AS "present"
      FROM (
        SELECT h."kind", h."source", date_bin('1 hour', h."received_at", TIMESTAMPTZ '2000-01-01 00:00:00+00') AS "hour", e.i,
          sum(get_bit(h."coverage", e.i))::int AS v, count(*)::int AS "records"
        FROM "payload_history" h CROSS JOIN LATERAL generate_series(0, length(h."coverage") - 1) AS e(i)
        WHERE h."tenant_id" = p_tenant AND h."xid" >= coalesce(pg_snapshot_xmin(last_snap), '0'::xid8)
          AND pg_visible_in_snapshot(h."xid", now_snap)
          AND (last_snap IS NULL OR NOT pg_visible_in_snapshot(h."xid", last_snap))
          AND length(h."coverage") = jsonb_array_length(p_coverage -> h."kind")
        GROUP BY 1, 2, 3, 4
      ) s
      GROUP BY 1, 2, 3
    ) t
    ORDER BY t."hour", t."kind", t."source"
    ON CONFLICT ("tenant_id", "hour", "kind", "source", "fields") DO UPDATE
      SET "records" = c."records" + EXCLUDED."records",
          "present" = ARRAY(SELECT u.a + u.b FROM unnest(c."present", EXCLUDED."present") WITH ORDINALITY AS u(a, b, i) ORDER BY u.i);
    GET DIAGNOSTICS counted = ROW_COUNT;
  END IF;

  IF numbered > 0 OR now_snap IS NOT NULL THEN
    UPDATE "load_event_cursors" SET "seq" = last_seq, "derived_through" = coalesce(now_snap, "derived_through"),
      "derived_on" = CASE WHEN now_snap IS NULL THEN "derived_on" ELSE node END WHERE "tenant_id" = p_tenant;
  END IF;
  IF numbered > 0 THEN
    PERFORM pg_notify('load_events', p_tenant::text);
  END IF;
END $$;
