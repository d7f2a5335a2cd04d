-- AlterTable
ALTER TABLE "loads" ADD COLUMN     "status_key" VARCHAR(100);

-- CreateIndex
CREATE INDEX "loads_tenant_id_status_key_idx" ON "loads"("tenant_id", "status_key");

-- ---------------------------------------------------------------------------------------------
-- One rule for "these two statuses are the same" (hand-written): status_key(text) is the status
-- trimmed of spaces and lower-cased. The status mapping keys its rows with it (status_mappings.status_key,
-- the phase lookup of every load write, the re-phasing of stored loads), and `loads(filter: { status })`
-- compares loads.status_key, kept by this trigger on every write path, through
-- loads_tenant_id_status_key_idx. Before, the filter compared the stored status untrimmed
-- (`status ILIKE $status`): a load stored as "  Picked Up " was mapped but not found.
-- ---------------------------------------------------------------------------------------------
CREATE FUNCTION status_key(status text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN lower(btrim(status));

CREATE FUNCTION load_status_key() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW."status_key" := status_key(NEW."status");
  RETURN NEW;
END $$;

CREATE TRIGGER "loads_status_key" BEFORE INSERT OR UPDATE OF "status" ON "loads"
  FOR EACH ROW EXECUTE FUNCTION load_status_key();

UPDATE "loads" SET "status_key" = status_key("status") WHERE "status" IS NOT NULL;
