/** The change events a tenant's subscribers receive (README "Live data" lists their payloads). */
export const loadEventTypes = [
  'load.created',
  'load.changed',
  'load.phase_changed',
  'leg.changed',
  'stop.arrived',
  'stop.departed',
  'stop.changed',
  'load_update.received',
  'ingest_health.state_changed',
] as const;

/** One stored event, as GraphQL, the subscription and webhooks see it. */
export interface LoadEvent {
  /** Per-tenant position, strictly increasing in commit order; `after` takes it back. */
  seq: bigint;
  type: string;
  loadPermalink: string | null;
  data: unknown;
  occurredAt: Date;
}

export interface LoadEventFilter {
  /** Any of these types (all when absent or empty). */
  types?: readonly string[] | null;
  /** Events of any of these loads (all when absent or empty). */
  loadPermalinks?: readonly string[] | null;
}
