-- Ingest health keeps each rejection's field issues and the rejected body (issue 20).
ALTER TABLE "ingest_rejections" ADD COLUMN "details" JSONB,
ADD COLUMN "body" JSONB,
ADD COLUMN "body_truncated" BOOLEAN NOT NULL DEFAULT false;
