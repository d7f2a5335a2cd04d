-- 100,000 loads for EXPLAIN ANALYZE of the load board (bench/explain-board.ts): one tenant, 100 carriers, one leg,
-- two stops and three updates per load. Triggers are off while filling (session_replication_role).
-- psql -h 127.0.0.1 -U postgres -d <a migrated scratch database> -f bench/board-100k.sql
SET session_replication_role = replica;
INSERT INTO tenants (id, slug, name) VALUES ('00000000-0000-0000-0000-0000000000aa', 'big', 'Big');
INSERT INTO carriers (tenant_id, permalink, name, fresh_at, changed_at, created_at)
  SELECT '00000000-0000-0000-0000-0000000000aa', 'C' || i, 'Carrier ' || i, now(), now(), now() FROM generate_series(1, 100) i;
INSERT INTO loads (tenant_id, permalink, tms_id, status, phase, fresh_at, changed_at, created_at, last_activity_at)
  SELECT '00000000-0000-0000-0000-0000000000aa', 'L' || i, 'L' || i, 'Booked', 'PLANNED', now(), now() - (100000 - i) * interval '1 minute',
         now() - (100000 - i) * interval '1 minute', now() - (100000 - i) * interval '1 minute' FROM generate_series(1, 100000) i;
INSERT INTO load_legs (tenant_id, permalink, load_id, sequence, carrier_id, driver_name, fresh_at, changed_at, created_at)
  SELECT l.tenant_id, 'G' || l.permalink, l.id, 1, (SELECT id FROM carriers c WHERE c.permalink = 'C' || (1 + abs(hashtext(l.permalink)) % 100)), 'Driver', now(), now(), l.created_at FROM loads l;
INSERT INTO stops (tenant_id, permalink, leg_id, sequence, city, fresh_at, changed_at, created_at)
  SELECT g.tenant_id, 'S' || s || g.permalink, g.id, s, (ARRAY['Chicago','Dallas','Atlanta','Denver','Reno','Gary','Boise','Omaha','Tulsa','Fresno'])[1 + abs(hashtext(g.permalink || s)) % 10] || CASE WHEN abs(hashtext(g.permalink)) % 1000 = 0 THEN '' ELSE ' ' || (abs(hashtext(g.permalink)) % 50) END, now(), now(), g.created_at
  FROM load_legs g, generate_series(1, 2) s;
INSERT INTO load_updates (tenant_id, permalink, load_id, occurred_at, message, latitude, longitude, created_at)
  SELECT l.tenant_id, 'U' || u || l.permalink, l.id, l.created_at + u * interval '1 hour', 'msg', 41.0, -87.0, l.created_at FROM loads l, generate_series(1, 3) u;
ANALYZE;
