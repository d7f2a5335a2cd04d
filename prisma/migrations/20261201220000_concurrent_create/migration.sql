-- Raised by an upsert statement that met a concurrent create of one of its permalinks (db/record-statements.ts):
-- while another transaction's insert of the permalink was uncommitted, the statement read no stored row to lock
-- (`before` is NULL), then `INSERT … ON CONFLICT` waited for that insert and took its `DO UPDATE` path. What the
-- statement derived from the write (change events, phase history, the city set) would then compare the new row
-- with nothing. The statement raises instead, so all of it rolls back; SQLSTATE 40001 (serialization_failure)
-- tells the caller to run it again (src/domain/shared/ingest.ts), when the row is committed and locked like any
-- stored row. Hand-written (Prisma does not model functions).
CREATE FUNCTION concurrent_create(permalink text) RETURNS boolean LANGUAGE plpgsql VOLATILE AS $$
BEGIN
  RAISE EXCEPTION 'a concurrent write created % while this statement ran', permalink USING ERRCODE = '40001';
END
$$;
