-- Payload history (api-contract.md E, "Payload history"; docs/decisions/0016-payload-history.md):
-- the body of every write answered processed, skipped or duplicate, kept as received. The table is
-- partitioned by day on received_at: retention drops whole days (DROP TABLE of a partition, no
-- DELETE on the hot table); the maintenance job creates the coming days' partitions ahead, and the
-- default partition only catches rows of a day whose partition is missing.
-- `body` is `json`, not `jsonb`: it keeps the keys in the order they were received.
-- `seq` orders the rows of one record (newest first), also within one request.
CREATE TABLE "payload_history" (
    "seq" BIGSERIAL NOT NULL,
    "tenant_id" UUID NOT NULL,
    "kind" VARCHAR(32) NOT NULL,
    "permalink" TEXT NOT NULL,
    "received_at" TIMESTAMPTZ(3) NOT NULL,
    "source" VARCHAR(16) NOT NULL,
    "request_id" VARCHAR(128),
    "outcome" VARCHAR(16) NOT NULL,
    "changed" BOOLEAN NOT NULL,
    "body" JSON NOT NULL
) PARTITION BY RANGE ("received_at");

CREATE INDEX "payload_history_record_idx" ON "payload_history" ("tenant_id", "kind", "permalink", "seq" DESC);

CREATE TABLE "payload_history_default" PARTITION OF "payload_history" DEFAULT;
