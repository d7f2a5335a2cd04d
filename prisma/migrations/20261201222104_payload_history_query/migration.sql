-- Payload history keeps the request's parameters beside each body (issue 37, item 6): REST's query
-- string as received (without `?`), a GraphQL write's arguments beside its input written the same
-- way; null when the request had none. Nullable, no default: rows written before keep NULL, and
-- adding the column rewrites no partition.
ALTER TABLE "payload_history" ADD COLUMN "query" TEXT;
