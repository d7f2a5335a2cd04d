import { recordSpecs } from '../registry.js';

/**
 * The change events a tenant's subscribers receive (docs/reference/events.md lists their payloads): those
 * each record kind declares (`changeEvents`, recorded by its write statements), in registry order, then
 * ingest health's own.
 */
export const loadEventTypes: readonly string[] = [...recordSpecs.flatMap((spec) => spec.changeEvents), 'ingest_health.state_changed'];

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
