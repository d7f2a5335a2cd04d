-- CreateIndex
CREATE INDEX "loads_tenant_id_created_at_id_idx" ON "loads"("tenant_id", "created_at" DESC, "id" DESC);
