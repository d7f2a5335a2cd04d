-- ---------------------------------------------------------------------------------------------
-- One rule for "these two statuses are the same" (hand-written): status_key(text) is the status
-- trimmed of spaces and lower-cased. The status mapping keys its rows with it (status_mappings.status_key,
-- the phase lookup of every load write, the re-phasing of stored loads), and `loads(filter: { status })`
-- compares loads.status_key, a stored generated column (computed by PostgreSQL itself on every write
-- path, no trigger), through loads_tenant_id_status_key_idx. Before, the filter compared the stored
-- status untrimmed (`status ILIKE $status`): a load stored as "  Picked Up " was mapped but not found.
-- ---------------------------------------------------------------------------------------------
CREATE FUNCTION status_key(status text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN lower(btrim(status));

-- AlterTable
ALTER TABLE "loads" ADD COLUMN "status_key" VARCHAR(100) GENERATED ALWAYS AS (lower(btrim("status"))) STORED;

-- CreateIndex
CREATE INDEX "loads_tenant_id_status_key_idx" ON "loads"("tenant_id", "status_key");
