-- The function of migration `concurrent_create` is called by no statement since 2026-12-03: an upsert that meets a
-- concurrent create answers the row `raced` and the ingestion writes it again on its own (db/record-statements.ts,
-- decision 0032), instead of raising SQLSTATE 40001 through this function. Hand-written (Prisma does not model
-- functions); on a Citus coordinator the drop reaches the workers as the create did.
DROP FUNCTION IF EXISTS concurrent_create(text);
