-- The tenant's pass knows which node's transaction ids its stored snapshot describes
-- (docs/decisions/0054-one-call-on-the-tenants-node.md). On a Citus cluster the pass and the writes run on the
-- node that holds the tenant's shards (both functions are distributed by their tenant: src/db/distribution.ts),
-- so a log entry's `xid` and the cursor's `derived_through` are that node's. A shard move (the rebalancer) puts
-- the tenant's rows on another node, whose transaction ids the stored snapshot says nothing of; so does the first
-- pass after this migration on Citus, whose cursors hold the coordinator's snapshots. The cursor now records
-- the node (`derived_on`, its system identifier): a pass that runs on another node starts from its own snapshot
-- there and counts none of the entries it finds (none twice; the entries committed there before that pass,
-- and those the old node's last pass had not taken, are left out of field coverage). On one server the node
-- never changes: every existing cursor is that server's (on Citus they stay null: another node's).
ALTER TABLE "load_event_cursors" ADD COLUMN "derived_on" bigint;
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus') THEN
    UPDATE "load_event_cursors" SET "derived_on" = (pg_control_system()).system_identifier WHERE "derived_through" IS NOT NULL;
  END IF;
END $$;
