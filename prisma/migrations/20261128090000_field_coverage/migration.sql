-- Field coverage (api-contract.md F, data quality; docs/decisions/0035-data-quality.md): per write
-- statement that settled records of a kind, how many records and, per recommended field, how many
-- carried a non-empty value, for its tenant, kind, source and hour. Append-only (one row per
-- statement, never a counter row that every write of a tenant updates); the maintenance rolls each
-- hour up into one row and drops hours past ingest health's retention. Every key leads with tenant_id.
-- No foreign key to tenants (a check per write statement on the hot path); rows expire with the retention.
CREATE TABLE "field_coverage" (
    "tenant_id" UUID NOT NULL,
    "id" BIGSERIAL NOT NULL,
    "hour" TIMESTAMPTZ(3) NOT NULL,
    "kind" VARCHAR(32) NOT NULL,
    "source" VARCHAR(16) NOT NULL,
    "fields" TEXT[],
    "records" INTEGER NOT NULL,
    "present" INTEGER[],

    CONSTRAINT "field_coverage_pkey" PRIMARY KEY ("tenant_id","id")
);

CREATE INDEX "field_coverage_tenant_id_hour_idx" ON "field_coverage"("tenant_id", "hour");
