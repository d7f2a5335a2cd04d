-- Every write of a load sets `changed_at` (the contract's `changedAt`, the service's clock at the last write), and
-- this index on it made every update of a load non-HOT: the new version was entered into each of the table's
-- indexes, 1,292 of the 2,642 WAL bytes of a write of the same body again
-- (docs/explanation/performance/2026-12-03-one-write-in-wal.md). `LoadFilter.changedSince` reads the loads through
-- the activity index instead (`load_activity (tenant_id, last_activity_at DESC, load_id DESC)`: a load's activity
-- is never before its `changed_at`, every statement that sets one moves the other) and compares `changed_at` on
-- the rows it finds (src/domain/load/queries.ts, compiled-graphql.ts).

-- DropIndex
DROP INDEX "loads_tenant_id_changed_at_idx";
