-- CreateEnum
CREATE TYPE "WebhookDeliveryState" AS ENUM ('PENDING', 'SUCCEEDED', 'FAILED');

-- CreateTable
CREATE TABLE "webhook_endpoints" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "tenant_id" UUID NOT NULL,
    "url" VARCHAR(2000) NOT NULL,
    "description" VARCHAR(500),
    "event_types" TEXT[],
    "secret" VARCHAR(100) NOT NULL,
    "previous_secret" VARCHAR(100),
    "previous_secret_expires_at" TIMESTAMPTZ(3),
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "disabled_at" TIMESTAMPTZ(3),
    "disabled_reason" VARCHAR(500),
    "failing_since" TIMESTAMPTZ(3),
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "webhook_endpoints_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "webhook_deliveries" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "tenant_id" UUID NOT NULL,
    "endpoint_id" UUID NOT NULL,
    "message_id" VARCHAR(100) NOT NULL,
    "event_seq" BIGINT NOT NULL,
    "event_type" VARCHAR(64) NOT NULL,
    "load_permalink" VARCHAR(100),
    "body" TEXT NOT NULL,
    "state" "WebhookDeliveryState" NOT NULL DEFAULT 'PENDING',
    "attempt_count" INTEGER NOT NULL DEFAULT 0,
    "next_attempt_at" TIMESTAMPTZ(3) NOT NULL,
    "lease_until" TIMESTAMPTZ(3),
    "lease_token" UUID,
    "replay" BOOLEAN NOT NULL DEFAULT false,
    "created_at" TIMESTAMPTZ(3) NOT NULL,
    "completed_at" TIMESTAMPTZ(3),

    CONSTRAINT "webhook_deliveries_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "webhook_attempts" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "delivery_id" UUID NOT NULL,
    "attempted_at" TIMESTAMPTZ(3) NOT NULL,
    "http_status" INTEGER,
    "error" VARCHAR(1000),
    "duration_ms" INTEGER NOT NULL,

    CONSTRAINT "webhook_attempts_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "webhook_endpoints_tenant_id_created_at_idx" ON "webhook_endpoints"("tenant_id", "created_at");

-- CreateIndex
CREATE INDEX "webhook_deliveries_state_next_attempt_at_idx" ON "webhook_deliveries"("state", "next_attempt_at");

-- CreateIndex
CREATE INDEX "webhook_deliveries_endpoint_id_state_load_permalink_event_s_idx" ON "webhook_deliveries"("endpoint_id", "state", "load_permalink", "event_seq");

-- CreateIndex
CREATE INDEX "webhook_deliveries_endpoint_id_created_at_idx" ON "webhook_deliveries"("endpoint_id", "created_at");

-- CreateIndex
CREATE INDEX "webhook_attempts_delivery_id_attempted_at_idx" ON "webhook_attempts"("delivery_id", "attempted_at");

-- AddForeignKey
ALTER TABLE "webhook_endpoints" ADD CONSTRAINT "webhook_endpoints_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_endpoint_id_fkey" FOREIGN KEY ("endpoint_id") REFERENCES "webhook_endpoints"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "webhook_attempts" ADD CONSTRAINT "webhook_attempts_delivery_id_fkey" FOREIGN KEY ("delivery_id") REFERENCES "webhook_deliveries"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- ---------------------------------------------------------------------------------------------
-- Webhook fan-out (hand-written; see README "Live data" → "Webhooks"): every change event recorded
-- in load_events is queued, in the same transaction, for each enabled endpoint of its tenant that
-- subscribes to its type. No event without its deliveries, no delivery without its event.
-- The body is fixed here once (`{type, timestamp, data}`), so every attempt signs the same bytes;
-- the message id (`webhook-id`) is the event's id.
-- ---------------------------------------------------------------------------------------------
CREATE FUNCTION webhook_enqueue_event() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO "webhook_deliveries" ("tenant_id", "endpoint_id", "message_id", "event_seq", "event_type",
                                    "load_permalink", "body", "next_attempt_at", "created_at")
  SELECT NEW."tenant_id", e."id", 'msg_' || NEW."id", NEW."seq", NEW."type", NEW."load_permalink",
         jsonb_build_object('type', NEW."type",
                            'timestamp', to_char(NEW."occurred_at" AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
                            'data', NEW."data")::text,
         now(), NEW."occurred_at"
  FROM "webhook_endpoints" e
  WHERE e."tenant_id" = NEW."tenant_id" AND e."enabled" AND NEW."type" = ANY (e."event_types");
  RETURN NULL;
END $$;

CREATE TRIGGER "load_events_webhooks" AFTER INSERT ON "load_events"
  FOR EACH ROW EXECUTE FUNCTION webhook_enqueue_event();
