-- AlterTable
ALTER TABLE "stops" ADD COLUMN     "city_key" VARCHAR(100);

-- CreateIndex
CREATE INDEX "stops_tenant_id_city_key_leg_id_idx" ON "stops"("tenant_id", "city_key", "leg_id");

-- ---------------------------------------------------------------------------------------------
-- LoadFilter.city through an index (hand-written; README "Live data → A dashboard"). The filter
-- compared `stops.city ILIKE $city`, which no B-tree index serves: on a tenant with 100,000 loads its
-- count scanned every stop. city_key is `city` lower-cased, kept by this trigger on every write path
-- (upserts, bulk, scripts around the service), and the filter compares `city_key = lower($city)`
-- through stops_tenant_id_city_key_leg_id_idx (an index-only scan to the legs).
-- ---------------------------------------------------------------------------------------------
CREATE FUNCTION stop_city_key() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW."city_key" := lower(NEW."city");
  RETURN NEW;
END $$;

CREATE TRIGGER "stops_city_key" BEFORE INSERT OR UPDATE OF "city" ON "stops"
  FOR EACH ROW EXECUTE FUNCTION stop_city_key();

UPDATE "stops" SET "city_key" = lower("city") WHERE "city" IS NOT NULL;
