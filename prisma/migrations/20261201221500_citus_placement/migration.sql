-- What a Citus coordinator refuses, replaced by what it accepts, with the behaviour kept by the service's
-- statements on every database (issue 38; docs/decisions/0044-the-service-distributes-itself.md). After
-- the migrations, src/db/distribution.ts places every table on a Citus coordinator.

-- Each ALTER TABLE has one subcommand: on a database Citus has distributed already, it refuses ADD CONSTRAINT
-- beside another subcommand.

-- 1. No SET NULL on a key holding the distribution column ("SET NULL or SET DEFAULT is not supported in ON
-- DELETE operation when distribution key is included in the foreign key constraint"). The tombstone purge
-- (src/domain/shared/tombstones.ts) clears a purged carrier's legs' carrier_id and a purged leg's load
-- updates' leg_id before it deletes the parents, as the key did.
ALTER TABLE "load_legs" DROP CONSTRAINT "load_legs_tenant_id_carrier_id_fkey";
ALTER TABLE "load_legs" ADD CONSTRAINT "load_legs_tenant_id_carrier_id_fkey" FOREIGN KEY ("tenant_id", "carrier_id") REFERENCES "carriers" ("tenant_id", "id") ON DELETE NO ACTION ON UPDATE NO ACTION;
ALTER TABLE "load_updates" DROP CONSTRAINT "load_updates_tenant_id_leg_id_fkey";
ALTER TABLE "load_updates" ADD CONSTRAINT "load_updates_tenant_id_leg_id_fkey" FOREIGN KEY ("tenant_id", "leg_id") REFERENCES "load_legs" ("tenant_id", "id") ON DELETE NO ACTION ON UPDATE NO ACTION;

-- 2. No trigger on ingest_health_states ("cannot distribute relation because it has triggers"; its event took
-- its id from a worker's sequence). The health evaluation's statement records `ingest_health.state_changed`
-- itself (src/domain/events/ingest-health-states.ts).
DROP TRIGGER "ingest_health_states_events" ON "ingest_health_states";
DROP FUNCTION "load_events_on_ingest_health"();

-- 3. The webhook tables keyed by tenant, as every other tenant table (migration `tenant_leading_keys`), so
-- they are distributed by tenant_id with the events whose deliveries they hold: the numbering pass queues a
-- tenant's deliveries on the tenant's shard. An attempt carries its delivery's tenant.
ALTER TABLE "webhook_attempts" ADD COLUMN "tenant_id" UUID;
UPDATE "webhook_attempts" a SET "tenant_id" = d."tenant_id" FROM "webhook_deliveries" d WHERE d."id" = a."delivery_id";
ALTER TABLE "webhook_attempts" ALTER COLUMN "tenant_id" SET NOT NULL;

ALTER TABLE "webhook_attempts" DROP CONSTRAINT "webhook_attempts_delivery_id_fkey";
ALTER TABLE "webhook_deliveries" DROP CONSTRAINT "webhook_deliveries_endpoint_id_fkey";

ALTER TABLE "webhook_endpoints" DROP CONSTRAINT "webhook_endpoints_pkey";
ALTER TABLE "webhook_endpoints" ADD CONSTRAINT "webhook_endpoints_pkey" PRIMARY KEY ("tenant_id", "id");
ALTER TABLE "webhook_deliveries" DROP CONSTRAINT "webhook_deliveries_pkey";
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_pkey" PRIMARY KEY ("tenant_id", "id");
ALTER TABLE "webhook_attempts" DROP CONSTRAINT "webhook_attempts_pkey";
ALTER TABLE "webhook_attempts" ADD CONSTRAINT "webhook_attempts_pkey" PRIMARY KEY ("tenant_id", "id");

ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_tenant_id_endpoint_id_fkey" FOREIGN KEY ("tenant_id", "endpoint_id") REFERENCES "webhook_endpoints" ("tenant_id", "id") ON DELETE CASCADE ON UPDATE NO ACTION;
ALTER TABLE "webhook_attempts" ADD CONSTRAINT "webhook_attempts_tenant_id_delivery_id_fkey" FOREIGN KEY ("tenant_id", "delivery_id") REFERENCES "webhook_deliveries" ("tenant_id", "id") ON DELETE CASCADE ON UPDATE NO ACTION;

ALTER TABLE "webhook_endpoints" DROP CONSTRAINT "webhook_endpoints_tenant_id_fkey";
ALTER TABLE "webhook_endpoints" ADD CONSTRAINT "webhook_endpoints_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants" ("id") ON DELETE CASCADE ON UPDATE NO ACTION;
ALTER TABLE "webhook_deliveries" DROP CONSTRAINT "webhook_deliveries_tenant_id_fkey";
ALTER TABLE "webhook_deliveries" ADD CONSTRAINT "webhook_deliveries_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants" ("id") ON DELETE CASCADE ON UPDATE NO ACTION;

COMMENT ON INDEX "webhook_endpoints_pkey" IS 'the delivery worker''s joins of a delivery to its endpoint, and an endpoint''s updates (domain/webhook)';
COMMENT ON INDEX "webhook_deliveries_pkey" IS 'the worker''s claim (w.id = due.id) and the record of each attempt (WHERE tenant_id = $1 AND id = $2)';
COMMENT ON INDEX "webhook_attempts_pkey" IS 'the attempt row''s identity (Prisma''s @id)';
