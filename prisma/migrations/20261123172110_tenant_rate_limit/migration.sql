-- AlterTable
ALTER TABLE "tenants" ADD COLUMN     "rate_limit_burst" INTEGER,
ADD COLUMN     "rate_limit_per_second" INTEGER;

-- A rate of 0 means "no limit"; a burst holds at least one record.
ALTER TABLE "tenants" ADD CONSTRAINT "tenants_rate_limit_per_second_check" CHECK ("rate_limit_per_second" >= 0);
ALTER TABLE "tenants" ADD CONSTRAINT "tenants_rate_limit_burst_check" CHECK ("rate_limit_burst" >= 1);
