/** The tenant a request acts for, as authentication resolved it. */
export interface TenantRef {
  id: string;
  slug: string;
  name: string;
  tmsUrlTemplate: string | null;
  /** The tenant's own ingestion rate limit (`tenant set-rate-limit`); absent or null fields use the service defaults. */
  rateLimit?: TenantRateLimit;
}

/** Records per second (0 = no limit) and bucket size; null = the service default. */
export interface TenantRateLimit {
  perSecond: number | null;
  burst: number | null;
}
