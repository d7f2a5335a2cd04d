-- AlterTable
ALTER TABLE "ingest_counts" DROP CONSTRAINT "ingest_counts_pkey",
ALTER COLUMN "kind" SET DATA TYPE TEXT,
ADD CONSTRAINT "ingest_counts_pkey" PRIMARY KEY ("tenant_id", "bucket_start", "source", "kind", "outcome");

-- AlterTable
ALTER TABLE "ingest_rejections" ALTER COLUMN "kind" SET DATA TYPE TEXT;
