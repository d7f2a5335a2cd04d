-- ---------------------------------------------------------------------------------------------
-- Issue 21: `loads(filter: {search})` served by indexes (hand-written; docs/explanation/performance.md).
--
-- `search` is a case-insensitive part of any reference number (ILIKE '%term%'): no B-tree serves it.
-- pg_trgm's GIN operator class does, one index per table over its searchable columns (a multi-column
-- GIN index answers a condition on any of them; an OR of them is a BitmapOr over the same index).
-- The load filter's SQL (src/db/json-tree.ts, `orAsUnion`) asks for the matching ids table by table,
-- so each table's part is an index scan. PGlite ships pg_trgm as an extension (src/db/database.ts,
-- `pgliteExtensions`).
-- ---------------------------------------------------------------------------------------------
CREATE EXTENSION IF NOT EXISTS pg_trgm;

-- CreateIndex
CREATE INDEX "loads_search_trgm_idx" ON "loads" USING GIN ("customer_reference_number" gin_trgm_ops, "bol_number" gin_trgm_ops, "po_number" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "load_legs_search_trgm_idx" ON "load_legs" USING GIN ("reference_number" gin_trgm_ops, "pickup_reference_number" gin_trgm_ops);

-- CreateIndex
CREATE INDEX "stops_search_trgm_idx" ON "stops" USING GIN ("reference_number" gin_trgm_ops);
