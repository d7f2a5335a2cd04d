-- ---------------------------------------------------------------------------------------------
-- load_update.received per statement (issue 21). The row trigger, deferred to commit, ran once per
-- stored update: a PL/pgSQL call, the load's permalink, the snapshot (another PL/pgSQL call with the
-- leg's permalink) and one INSERT of the event. EXPLAIN (ANALYZE) of a bulk write of 500 updates
-- (bench/explain-write.ts, 100,000 loads): 37 ms of the statement's 65 ms were that trigger. One
-- statement-level trigger now writes the statement's events with one INSERT over its transition
-- table: 15–22 ms for the same 500 (bench/explain-write.ts).
--
-- Same events, same payloads, in the order the rows were stored (the transition table's order: the
-- scan and the correlated subqueries keep it, so the events' ids follow the rows). They are written at
-- the end of the statement that stores the updates rather than at its commit: each write statement is
-- its own transaction, and events are numbered after commit (migration 20261124183000), so nothing
-- waits on the deferral any more. The snapshot, formerly load_event_update(), is written here once.
-- ---------------------------------------------------------------------------------------------

DROP TRIGGER "load_updates_events" ON "load_updates";
DROP FUNCTION load_events_on_update();
DROP FUNCTION load_event_update("load_updates");

CREATE FUNCTION load_events_on_updates() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "load_events" ("tenant_id", "seq", "type", "load_permalink", "data", "occurred_at")
  SELECT u."tenant_id", NULL, 'load_update.received', p."permalink",
         jsonb_build_object('loadPermalink', p."permalink", 'update', jsonb_build_object(
           'permalink', u."permalink", 'type', u."type", 'occurredAt', load_event_time(u."occurred_at"),
           'legPermalink', (SELECT g."permalink" FROM "load_legs" g WHERE g."id" = u."leg_id"),
           'status', u."status", 'phase', u."phase", 'latitude', u."latitude", 'longitude', u."longitude",
           'city', u."city", 'state', u."state", 'country', u."country", 'eta', load_event_time(u."eta"),
           'message', u."message", 'source', u."source", 'extra', u."extra",
           'createdAt', load_event_time(u."created_at"))),
         u."created_at"
  FROM "stored_updates" u LEFT JOIN LATERAL (SELECT l."permalink" FROM "loads" l WHERE l."id" = u."load_id") p ON true;
  RETURN NULL;
END $$;

CREATE TRIGGER "load_updates_events" AFTER INSERT ON "load_updates"
  REFERENCING NEW TABLE AS "stored_updates" FOR EACH STATEMENT EXECUTE FUNCTION load_events_on_updates();
