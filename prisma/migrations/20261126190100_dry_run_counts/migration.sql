-- Dry runs (?dry_run=true, dryRun: true) are counted apart from ingested traffic: a count row says
-- whether it counts dry-run records. Existing rows are real traffic.
ALTER TABLE "ingest_counts" ADD COLUMN "dry_run" BOOLEAN NOT NULL DEFAULT false,
DROP CONSTRAINT "ingest_counts_pkey",
ADD CONSTRAINT "ingest_counts_pkey" PRIMARY KEY ("tenant_id", "bucket_start", "source", "kind", "outcome", "dry_run");
