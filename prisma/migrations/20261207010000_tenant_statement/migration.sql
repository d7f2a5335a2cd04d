-- A statement that reads and writes one tenant's rows, run as one call (docs/decisions/0054-one-call-on-the-tenants-node.md).
-- On a Citus coordinator the function is distributed by its tenant argument (src/db/distribution.ts), so the
-- coordinator sends the call to the node that holds the tenant's shards, and the service names the tables in
-- `p_sql` by the tenant's shards (src/db/tenant-statement.ts): the statement runs there as plain PostgreSQL,
-- one round trip and no distributed plan. `$1` in `p_sql` is `p_params`, the statement's parameters as text.
--
-- `p_shard` is the tenant's shard of `loads` that the names were read for. The call first takes the lock that
-- Citus's own writes take on it (a share lock on the shard's metadata: a shard move or split waits for this
-- write, this write waits for one under way), then checks that the shard is still the tenant's and is placed on
-- this node. A split makes new shards and a move puts the shard on another node, and the old tables stay until
-- Citus drops them later: a statement on them would write rows that no query sees. So the call refuses
-- (SQLSTATE TS001) and the service reads the shards again. Off Citus nothing calls the function (`p_shard` is null:
-- no check).
--
-- A statement that returns rows (a `SELECT`, one with `RETURNING`: every write statement ends in the
-- `SELECT` of its outcomes; an `EXPLAIN`) gives each row as jsonb; any other is executed and gives none. A
-- statement with rows is prepared once per session (named by the md5 of its text: the coordinator keeps its
-- connections to the node, so the plan is kept as a pooled connection keeps the service's prepared statements);
-- planning one write statement each time cost about 15 ms a request. At most 100 are kept per session: the
-- hundredth-and-first drops them (each tenant shard group has its own texts).
CREATE FUNCTION "tenant_statement"(p_tenant uuid, p_shard bigint, p_sql text, p_params text[]) RETURNS SETOF jsonb LANGUAGE plpgsql AS $$
DECLARE
  r record;
  prepared text;
  kept text;
BEGIN
  IF p_shard IS NOT NULL THEN
    IF get_shard_id_for_distribution_column('loads', p_tenant) IS DISTINCT FROM p_shard THEN
      RAISE EXCEPTION 'the shards of tenant % were split since the statement named them', p_tenant USING ERRCODE = 'TS001';
    END IF;
    PERFORM lock_shard_metadata(5, ARRAY[p_shard]);
    IF get_shard_id_for_distribution_column('loads', p_tenant) IS DISTINCT FROM p_shard
       OR NOT EXISTS (SELECT 1 FROM pg_dist_placement p WHERE p.shardid = p_shard AND p.groupid = (SELECT g.groupid FROM pg_dist_local_group g)) THEN
      RAISE EXCEPTION 'the shards of tenant % moved or split since the statement named them', p_tenant USING ERRCODE = 'TS001';
    END IF;
  END IF;
  IF p_sql ~* '^\s*EXPLAIN\M' THEN
    FOR r IN EXECUTE p_sql USING p_params LOOP
      RETURN NEXT to_jsonb(r);
    END LOOP;
  ELSIF p_sql ~* '\mRETURNING\M' OR p_sql ~* '^\s*(SELECT|VALUES|TABLE)\M' THEN
    prepared := 'tenant_statement_' || md5(p_sql);
    IF NOT EXISTS (SELECT 1 FROM pg_prepared_statements s WHERE s.name = prepared) THEN
      IF (SELECT count(*) FROM pg_prepared_statements s WHERE s.name LIKE 'tenant\_statement\_%') >= 100 THEN
        FOR kept IN SELECT s.name FROM pg_prepared_statements s WHERE s.name LIKE 'tenant\_statement\_%' LOOP
          EXECUTE format('DEALLOCATE %I', kept);
        END LOOP;
      END IF;
      EXECUTE format('PREPARE %I(text[]) AS %s', prepared, p_sql);
    END IF;
    FOR r IN EXECUTE format('EXECUTE %I(%L)', prepared, p_params) LOOP
      RETURN NEXT to_jsonb(r);
    END LOOP;
  ELSE
    EXECUTE p_sql USING p_params;
  END IF;
END $$;
