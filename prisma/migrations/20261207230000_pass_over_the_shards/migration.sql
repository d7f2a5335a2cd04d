-- The tenant's pass over the tenant's shards on a Citus node (docs/decisions/0056-the-pass-over-the-shards.md).
-- On a worker the pass's statements named the distributed tables, so Citus planned each one as a distributed
-- query, found it one local shard's and planned it again over that shard, on every call: 11 ms a pass on this
-- machine's cluster against 0.76 ms on one server. A statement built per call (`EXECUTE format(…)`) is planned
-- by PostgreSQL alone, but each time: 2.1 ms a pass on one server.
--
-- So the pass's text is now a template, `load_events_sequence_template()` (`format`: `%1$I` the function's name,
-- `%2$s` its prologue, `%3$s` … `%8$s` the tables it names), made once into `load_events_sequence` over the
-- tables, whose statements PostgreSQL plans once per session as before. On a Citus node that holds the tenant's
-- shards (where the service sends the pass: decision 0055) its prologue calls a copy of it over the shards of
-- the tenant's shard group, `load_events_sequence_<shard of loads>_<template's md5>`, made on that node by the
-- first pass that needs it (without DDL propagation: it is that node's own, like the shards it names). A shard
-- split makes new shards and a new copy; a move finds none on its new node and makes one; a new template (a
-- later migration) has a new name. Where no copy can be made (the service's role may not create functions) the
-- pass runs over the tables, as before, with a warning in the node's log. A shard has no column defaults (Citus
-- fills them in on the coordinator's statements), so the pass's inserts name every default they used: ids, a
-- delivery's first state. Same statements, same rows, same answer on every database. The shard check (the shards
-- still the tenant's, on this node, under Citus's metadata lock) is the call's: `tenant_statement` carries the
-- pass as it carries every write.
CREATE FUNCTION "load_events_sequence_template"() RETURNS text LANGUAGE sql IMMUTABLE AS $template$
SELECT $t$CREATE OR REPLACE FUNCTION %1$I(p_tenant uuid, p_coverage jsonb DEFAULT NULL, OUT numbered integer, OUT counted integer) LANGUAGE plpgsql AS $fn$
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
%2$s  -- Nothing to do (the common case of a read): two index probes, no lock, no write.
  IF p_coverage IS NOT NULL THEN
    SELECT "derived_through", "derived_on" INTO last_snap, last_node FROM %4$s WHERE "tenant_id" = p_tenant;
  END IF;
  IF NOT EXISTS (SELECT 1 FROM %3$s WHERE "tenant_id" = p_tenant AND "seq" IS NULL)
     AND NOT (p_coverage IS NOT NULL AND last_snap IS NOT NULL AND last_node IS DISTINCT FROM node)
     AND NOT (p_coverage IS NOT NULL AND EXISTS (
       SELECT 1 FROM %5$s h
       WHERE h."tenant_id" = p_tenant AND h."xid" >= coalesce(pg_snapshot_xmin(last_snap), '0'::xid8)
         AND (last_snap IS NULL OR NOT pg_visible_in_snapshot(h."xid", last_snap)))) THEN
    RETURN;
  END IF;
  INSERT INTO %4$s ("tenant_id", "seq") VALUES (p_tenant, 0) ON CONFLICT ("tenant_id") DO NOTHING;
  -- Waits for a concurrent pass to commit; the statements below then see what it numbered and counted.
  SELECT "seq", "derived_through", "derived_on" INTO last_seq, last_snap, last_node FROM %4$s WHERE "tenant_id" = p_tenant FOR UPDATE;

  -- The unnumbered events' ids in order, read once through `(tenant_id, seq)` (a null seq is an index
  -- condition there). The update finds each through the primary key (`id = ANY`) and takes its number from
  -- its place in that list (migration `events_numbered_by_tenant`).
  SELECT array_agg("id" ORDER BY "id") INTO todo FROM %3$s WHERE "tenant_id" = p_tenant AND "seq" IS NULL;

  IF todo IS NOT NULL THEN
    UPDATE %3$s e SET "seq" = last_seq + o.n
    FROM unnest(todo) WITH ORDINALITY AS o(id, n)
    WHERE e."tenant_id" = p_tenant AND e."id" = ANY (todo) AND e."id" = o.id;
    GET DIAGNOSTICS numbered = ROW_COUNT;
    -- The body is fixed here once (`{type, timestamp, data}`), so every attempt signs the same
    -- bytes; the message id (`webhook-id`) is the event's id.
    INSERT INTO %8$s ("id", "tenant_id", "endpoint_id", "message_id", "event_seq", "event_type",
                      "load_permalink", "body", "state", "attempt_count", "replay", "next_attempt_at", "created_at")
    SELECT gen_random_uuid(), n."tenant_id", w."id", 'msg_' || n."id", n."seq", n."type", n."load_permalink",
           jsonb_build_object('type', n."type", 'timestamp', load_event_time(n."occurred_at"), 'data', n."data")::text,
           'PENDING', 0, false, now(), n."occurred_at"
    FROM %3$s n JOIN %7$s w
      ON w."tenant_id" = n."tenant_id" AND w."enabled" AND n."type" = ANY (w."event_types")
    WHERE n."tenant_id" = p_tenant AND w."tenant_id" = p_tenant AND n."id" = ANY (todo);
    -- Every id in the list was numbered (they are the tenant's, read under the cursor's lock) unless one was
    -- deleted meanwhile: then the highest number given is read back.
    IF numbered = cardinality(todo) THEN
      last_seq := last_seq + numbered;
    ELSE
      SELECT coalesce(max("seq"), last_seq) INTO last_seq FROM %3$s WHERE "tenant_id" = p_tenant AND "id" = ANY (todo);
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
    INSERT INTO %6$s AS c ("id", "tenant_id", "hour", "kind", "source", "fields", "records", "present")
    SELECT nextval('field_coverage_id_seq'), p_tenant, t."hour", t."kind", t."source",
      ARRAY(SELECT f.name FROM jsonb_array_elements_text(p_coverage -> t."kind") WITH ORDINALITY AS f(name, i) ORDER BY f.i),
      t."records", t."present"
    FROM (
      SELECT s."kind", s."source", s."hour", max(s."records") AS "records", array_agg(s.v ORDER BY s.i) AS "present"
      FROM (
        SELECT h."kind", h."source", date_bin('1 hour', h."received_at", TIMESTAMPTZ '2000-01-01 00:00:00+00') AS "hour", e.i,
          sum(get_bit(h."coverage", e.i))::int AS v, count(*)::int AS "records"
        FROM %5$s h CROSS JOIN LATERAL generate_series(0, length(h."coverage") - 1) AS e(i)
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
    UPDATE %4$s SET "seq" = last_seq, "derived_through" = coalesce(now_snap, "derived_through"),
      "derived_on" = CASE WHEN now_snap IS NULL THEN "derived_on" ELSE node END WHERE "tenant_id" = p_tenant;
  END IF;
  IF numbered > 0 THEN
    PERFORM pg_notify('load_events', p_tenant::text);
  END IF;
END $fn$$t$
$template$;

-- The pass over the tables, with the prologue that calls its copy over the shards on a Citus node.
DO $$
BEGIN
  EXECUTE format(load_events_sequence_template(), 'load_events_sequence', $prologue$
  -- On a Citus node that holds the tenant's shards: the pass's copy over those shards (see the migration).
  DECLARE
    over_shards text;
    propagation text;
  BEGIN
    IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus') THEN
      SELECT format('load_events_sequence_%s_%s', p.shardid, left(md5(load_events_sequence_template()), 8)) INTO over_shards
      FROM pg_dist_placement p
      WHERE p.shardid = get_shard_id_for_distribution_column('loads', p_tenant) AND p.groupid = (SELECT g.groupid FROM pg_dist_local_group g);
      IF over_shards IS NOT NULL AND to_regprocedure(over_shards || '(uuid,jsonb)') IS NULL THEN
        BEGIN
          propagation := current_setting('citus.enable_ddl_propagation');
          PERFORM set_config('citus.enable_ddl_propagation', 'off', true);
          EXECUTE format(load_events_sequence_template(), over_shards, '',
            shard_name('load_events', get_shard_id_for_distribution_column('load_events', p_tenant)),
            shard_name('load_event_cursors', get_shard_id_for_distribution_column('load_event_cursors', p_tenant)),
            shard_name('payload_history', get_shard_id_for_distribution_column('payload_history', p_tenant)),
            shard_name('field_coverage', get_shard_id_for_distribution_column('field_coverage', p_tenant)),
            shard_name('webhook_endpoints', get_shard_id_for_distribution_column('webhook_endpoints', p_tenant)),
            shard_name('webhook_deliveries', get_shard_id_for_distribution_column('webhook_deliveries', p_tenant)));
          PERFORM set_config('citus.enable_ddl_propagation', propagation, true);
        EXCEPTION
          -- Made meanwhile by another pass (of another tenant of the shard group): called below.
          WHEN duplicate_function OR unique_violation THEN NULL;
          -- Not made (the service's role may not create functions here): the pass runs over the tables.
          WHEN OTHERS THEN RAISE WARNING 'the pass over the shards (%) was not made: %', over_shards, SQLERRM;
        END;
      END IF;
      IF to_regprocedure(over_shards || '(uuid,jsonb)') IS NOT NULL THEN
        EXECUTE format('SELECT numbered, counted FROM %I($1, $2)', over_shards) INTO numbered, counted USING p_tenant, p_coverage;
        RETURN;
      END IF;
    END IF;
  END;
$prologue$,
    '"load_events"', '"load_event_cursors"', '"payload_history"', '"field_coverage"', '"webhook_endpoints"', '"webhook_deliveries"');
END $$;
