-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateEnum
CREATE TYPE "Phase" AS ENUM ('PLANNED', 'COVERED', 'DISPATCHED', 'AT_PICKUP', 'IN_TRANSIT', 'AT_DELIVERY', 'DELIVERED', 'COMPLETED', 'CANCELLED', 'UNMAPPED');

-- CreateEnum
CREATE TYPE "StopType" AS ENUM ('pickup', 'delivery');

-- CreateEnum
CREATE TYPE "LoadUpdateType" AS ENUM ('check_call', 'gps_ping', 'status_remark');

-- CreateTable
CREATE TABLE "tenants" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "slug" VARCHAR(100) NOT NULL,
    "name" VARCHAR(250) NOT NULL,
    "tms_url_template" VARCHAR(1000),
    "pull_stale_seconds" INTEGER NOT NULL DEFAULT 3600,
    "webhook_stale_seconds" INTEGER NOT NULL DEFAULT 86400,
    "unspecified_stale_seconds" INTEGER NOT NULL DEFAULT 86400,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "tenants_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "api_keys" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "tenant_id" UUID NOT NULL,
    "hash" CHAR(64) NOT NULL,
    "prefix" VARCHAR(16) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "revoked_at" TIMESTAMPTZ(3),

    CONSTRAINT "api_keys_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "status_mappings" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "tenant_id" UUID NOT NULL,
    "status" VARCHAR(100) NOT NULL,
    "status_key" VARCHAR(100) NOT NULL,
    "phase" "Phase" NOT NULL,
    "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "status_mappings_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "carriers" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "tenant_id" UUID NOT NULL,
    "permalink" VARCHAR(100) NOT NULL,
    "tms_id" VARCHAR(100),
    "company_permalink" VARCHAR(100),
    "name" VARCHAR(250),
    "mc_number" VARCHAR(50),
    "dot_number" VARCHAR(50),
    "scac" VARCHAR(10),
    "email" VARCHAR(250),
    "phone" VARCHAR(50),
    "extra" JSONB NOT NULL DEFAULT '{}',
    "fresh_at" TIMESTAMPTZ(3) NOT NULL,
    "changed_at" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "carriers_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "loads" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "tenant_id" UUID NOT NULL,
    "permalink" VARCHAR(100) NOT NULL,
    "tms_id" VARCHAR(100),
    "status" VARCHAR(100),
    "phase" "Phase" NOT NULL DEFAULT 'UNMAPPED',
    "customer_reference_number" VARCHAR(100),
    "order_type" VARCHAR(100),
    "bol_number" VARCHAR(250),
    "po_number" VARCHAR(1000),
    "load_mode" VARCHAR(100),
    "company_permalink" VARCHAR(250),
    "customer_name" VARCHAR(250),
    "origin_stop_id" VARCHAR(250),
    "origin_stop_id_permalink" VARCHAR(250),
    "destination_stop_id" VARCHAR(250),
    "destination_stop_id_permalink" VARCHAR(250),
    "extra" JSONB NOT NULL DEFAULT '{}',
    "fresh_at" TIMESTAMPTZ(3) NOT NULL,
    "changed_at" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "loads_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "load_legs" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "tenant_id" UUID NOT NULL,
    "permalink" VARCHAR(100) NOT NULL,
    "tms_id" VARCHAR(100),
    "sequence" INTEGER,
    "load_id" UUID NOT NULL,
    "load_tms_id" VARCHAR(100),
    "load_unique_key" VARCHAR(100),
    "reference_number" VARCHAR(100),
    "pickup_reference_number" VARCHAR(1000),
    "company_permalink" VARCHAR(100),
    "carrier_id" UUID,
    "driver_name" VARCHAR(250),
    "driver_phone" VARCHAR(50),
    "truck_number" VARCHAR(50),
    "trailer_number" VARCHAR(50),
    "carrier_rep_name" VARCHAR(250),
    "carrier_rep_email" VARCHAR(250),
    "customer_rep_name" VARCHAR(250),
    "customer_rep_email" VARCHAR(250),
    "status" VARCHAR(100),
    "extra" JSONB NOT NULL DEFAULT '{}',
    "fresh_at" TIMESTAMPTZ(3) NOT NULL,
    "changed_at" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "load_legs_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "stops" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "tenant_id" UUID NOT NULL,
    "permalink" VARCHAR(100) NOT NULL,
    "tms_id" VARCHAR(100),
    "leg_id" UUID NOT NULL,
    "sequence" INTEGER,
    "type" "StopType",
    "company_permalink" VARCHAR(100),
    "location_name" VARCHAR(250),
    "address_line1" VARCHAR(250),
    "address_line2" VARCHAR(250),
    "city" VARCHAR(100),
    "state" VARCHAR(100),
    "postal_code" VARCHAR(100),
    "country" VARCHAR(100),
    "latitude" DOUBLE PRECISION,
    "longitude" DOUBLE PRECISION,
    "timezone" VARCHAR(64),
    "appointment_start" TIMESTAMPTZ(3),
    "appointment_end" TIMESTAMPTZ(3),
    "arrived_at" TIMESTAMPTZ(3),
    "departed_at" TIMESTAMPTZ(3),
    "reference_number" VARCHAR(1000),
    "status" VARCHAR(100),
    "extra" JSONB NOT NULL DEFAULT '{}',
    "fresh_at" TIMESTAMPTZ(3) NOT NULL,
    "changed_at" TIMESTAMPTZ(3) NOT NULL,
    "created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "stops_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "load_updates" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "tenant_id" UUID NOT NULL,
    "permalink" VARCHAR(100) NOT NULL,
    "load_id" UUID NOT NULL,
    "leg_id" UUID,
    "type" "LoadUpdateType",
    "occurred_at" TIMESTAMPTZ(3),
    "company_permalink" VARCHAR(100),
    "status" VARCHAR(100),
    "phase" "Phase",
    "latitude" DOUBLE PRECISION,
    "longitude" DOUBLE PRECISION,
    "city" VARCHAR(100),
    "state" VARCHAR(100),
    "country" VARCHAR(100),
    "eta" TIMESTAMPTZ(3),
    "message" VARCHAR(2000),
    "source" VARCHAR(100),
    "extra" JSONB NOT NULL DEFAULT '{}',
    "created_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "load_updates_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "phase_changes" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "tenant_id" UUID NOT NULL,
    "load_id" UUID NOT NULL,
    "from_phase" "Phase",
    "to_phase" "Phase" NOT NULL,
    "status" VARCHAR(100),
    "changed_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "phase_changes_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "ingest_counts" (
    "tenant_id" UUID NOT NULL,
    "bucket_start" TIMESTAMPTZ(3) NOT NULL,
    "source" VARCHAR(16) NOT NULL,
    "kind" VARCHAR(16) NOT NULL,
    "outcome" VARCHAR(16) NOT NULL,
    "count" INTEGER NOT NULL,

    CONSTRAINT "ingest_counts_pkey" PRIMARY KEY ("tenant_id","bucket_start","source","kind","outcome")
);

-- CreateTable
CREATE TABLE "ingest_sources" (
    "tenant_id" UUID NOT NULL,
    "source" VARCHAR(16) NOT NULL,
    "last_received_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "ingest_sources_pkey" PRIMARY KEY ("tenant_id","source")
);

-- CreateTable
CREATE TABLE "ingest_rejections" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "tenant_id" UUID NOT NULL,
    "source" VARCHAR(16) NOT NULL,
    "kind" VARCHAR(16) NOT NULL,
    "code" VARCHAR(50) NOT NULL,
    "field" VARCHAR(200),
    "message" VARCHAR(1000) NOT NULL,
    "permalink" VARCHAR(100),
    "received_at" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "ingest_rejections_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "tenants_slug_key" ON "tenants"("slug");

-- CreateIndex
CREATE UNIQUE INDEX "api_keys_hash_key" ON "api_keys"("hash");

-- CreateIndex
CREATE INDEX "api_keys_tenant_id_idx" ON "api_keys"("tenant_id");

-- CreateIndex
CREATE UNIQUE INDEX "status_mappings_tenant_id_status_key_key" ON "status_mappings"("tenant_id", "status_key");

-- CreateIndex
CREATE INDEX "carriers_tenant_id_changed_at_idx" ON "carriers"("tenant_id", "changed_at");

-- CreateIndex
CREATE UNIQUE INDEX "carriers_tenant_id_permalink_key" ON "carriers"("tenant_id", "permalink");

-- CreateIndex
CREATE INDEX "loads_tenant_id_changed_at_idx" ON "loads"("tenant_id", "changed_at");

-- CreateIndex
CREATE INDEX "loads_tenant_id_phase_idx" ON "loads"("tenant_id", "phase");

-- CreateIndex
CREATE UNIQUE INDEX "loads_tenant_id_permalink_key" ON "loads"("tenant_id", "permalink");

-- CreateIndex
CREATE INDEX "load_legs_load_id_sequence_idx" ON "load_legs"("load_id", "sequence");

-- CreateIndex
CREATE INDEX "load_legs_carrier_id_idx" ON "load_legs"("carrier_id");

-- CreateIndex
CREATE UNIQUE INDEX "load_legs_tenant_id_permalink_key" ON "load_legs"("tenant_id", "permalink");

-- CreateIndex
CREATE INDEX "stops_leg_id_sequence_idx" ON "stops"("leg_id", "sequence");

-- CreateIndex
CREATE UNIQUE INDEX "stops_tenant_id_permalink_key" ON "stops"("tenant_id", "permalink");

-- CreateIndex
CREATE INDEX "load_updates_load_id_occurred_at_idx" ON "load_updates"("load_id", "occurred_at");

-- CreateIndex
CREATE UNIQUE INDEX "load_updates_tenant_id_permalink_key" ON "load_updates"("tenant_id", "permalink");

-- CreateIndex
CREATE INDEX "phase_changes_load_id_changed_at_idx" ON "phase_changes"("load_id", "changed_at");

-- CreateIndex
CREATE INDEX "ingest_rejections_tenant_id_received_at_idx" ON "ingest_rejections"("tenant_id", "received_at");

-- AddForeignKey
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "status_mappings" ADD CONSTRAINT "status_mappings_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "carriers" ADD CONSTRAINT "carriers_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "loads" ADD CONSTRAINT "loads_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "load_legs" ADD CONSTRAINT "load_legs_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "load_legs" ADD CONSTRAINT "load_legs_load_id_fkey" FOREIGN KEY ("load_id") REFERENCES "loads"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "load_legs" ADD CONSTRAINT "load_legs_carrier_id_fkey" FOREIGN KEY ("carrier_id") REFERENCES "carriers"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "stops" ADD CONSTRAINT "stops_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "stops" ADD CONSTRAINT "stops_leg_id_fkey" FOREIGN KEY ("leg_id") REFERENCES "load_legs"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "load_updates" ADD CONSTRAINT "load_updates_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "load_updates" ADD CONSTRAINT "load_updates_load_id_fkey" FOREIGN KEY ("load_id") REFERENCES "loads"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "load_updates" ADD CONSTRAINT "load_updates_leg_id_fkey" FOREIGN KEY ("leg_id") REFERENCES "load_legs"("id") ON DELETE SET NULL ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "phase_changes" ADD CONSTRAINT "phase_changes_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "phase_changes" ADD CONSTRAINT "phase_changes_load_id_fkey" FOREIGN KEY ("load_id") REFERENCES "loads"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ingest_counts" ADD CONSTRAINT "ingest_counts_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ingest_sources" ADD CONSTRAINT "ingest_sources_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "ingest_rejections" ADD CONSTRAINT "ingest_rejections_tenant_id_fkey" FOREIGN KEY ("tenant_id") REFERENCES "tenants"("id") ON DELETE CASCADE ON UPDATE CASCADE;


-- Phase history: every change of a load's phase (upsert, status-mapping change, user edit) is
-- recorded by the database itself, atomically with the change.
CREATE FUNCTION record_load_phase_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' OR NEW.phase IS DISTINCT FROM OLD.phase THEN
    INSERT INTO "phase_changes" ("id", "tenant_id", "load_id", "from_phase", "to_phase", "status", "changed_at")
    VALUES (gen_random_uuid(), NEW."tenant_id", NEW."id",
            CASE WHEN TG_OP = 'UPDATE' THEN OLD."phase" END, NEW."phase", NEW."status", NEW."changed_at");
  END IF;
  RETURN NEW;
END $$;

CREATE TRIGGER "loads_phase_history" AFTER INSERT OR UPDATE OF "phase" ON "loads"
  FOR EACH ROW EXECUTE FUNCTION record_load_phase_change();
