-- The load-level set of stop cities (docs/decisions/0036-load-city-set.md): per load and city key
-- (`stops.city_key`, PostgreSQL's `lower(city)`), how many live stops of the load are in that city.
-- Kept by the write statements themselves (db/record-effects.ts: set-based deltas, no trigger), read by
-- the compiled `loads(filter: { city })` as one index probe per load, or one index range per city.
-- Rows whose count fell to 0 stay (a later stop in the city reuses them); the load's delete removes its rows.
-- The key carries the count (INCLUDE): `stops > 0` is read from the index alone (index-only scans of a
-- city's range or of one load's key, no heap visit per load); the price is that a changed count is
-- never a HOT update (one new index entry per (load, city) a write changes).
CREATE TABLE "load_cities" (
    "tenant_id" UUID NOT NULL,
    "city_key" VARCHAR(100) NOT NULL,
    "load_id" UUID NOT NULL,
    "stops" INTEGER NOT NULL,

    CONSTRAINT "load_cities_pkey" PRIMARY KEY ("tenant_id","city_key","load_id") INCLUDE ("stops")
);

ALTER TABLE "load_cities" ADD CONSTRAINT "load_cities_tenant_id_load_id_fkey" FOREIGN KEY ("tenant_id", "load_id") REFERENCES "loads"("tenant_id", "id") ON DELETE CASCADE ON UPDATE NO ACTION;

-- The set of the stops stored so far: every live stop, by the load its leg names.
INSERT INTO "load_cities" ("tenant_id", "city_key", "load_id", "stops")
SELECT s."tenant_id", s."city_key", g."load_id", count(*)::int
FROM "stops" s JOIN "load_legs" g ON g."tenant_id" = s."tenant_id" AND g."id" = s."leg_id"
WHERE s."deleted_at" IS NULL AND s."city_key" IS NOT NULL
GROUP BY 1, 2, 3;
