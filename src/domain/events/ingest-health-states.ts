/**
 * `ingest_health.state_changed`: every tenant's sources are evaluated (as `ingestHealth` evaluates
 * them) and the states upserted into ingest_health_states, one statement per tenant (one shard's work
 * on a Citus cluster); the conditional upsert changes a row only when its state differs, and the same
 * statement records the event (source, from, to) of each row it changed. Instances evaluating at the
 * same time record a change once: the stored row is locked before it is compared.
 */
import type { Database } from '../../db/database.js';
import { ingestSources, type IngestSourceName } from '../ingest-health/report.js';
import { healthState, windowStarts, zeroCounts, type HealthState } from '../ingest-health/service.js';

export interface EvaluateIngestHealthOptions {
  db: Database;
  now: Date;
  degradedRejectionRate: number;
}

/** Evaluates every used source of every tenant; returns how many states changed. */
export async function recordIngestHealthStates({ db, now, degradedRejectionRate }: EvaluateIngestHealthOptions): Promise<number> {
  const windows = windowStarts(now);
  const [sources, counts] = await Promise.all([
    db.sql.query<{ tenant_id: string; source: IngestSourceName; last_received_at: Date; pull: number; webhook: number; unspecified: number }>(
      `SELECT s.tenant_id, s.source, s.last_received_at, t.pull_stale_seconds AS pull, t.webhook_stale_seconds AS webhook,
              t.unspecified_stale_seconds AS unspecified
       FROM ingest_sources s JOIN tenants t ON t.id = s.tenant_id`,
      [],
    ),
    db.sql.query<{ tenant_id: string; source: IngestSourceName; outcome: keyof ReturnType<typeof zeroCounts>; count: unknown }>(
      `SELECT tenant_id, source, outcome, sum(count)::int8 AS count FROM ingest_counts WHERE bucket_start >= $1 AND NOT dry_run GROUP BY tenant_id, source, outcome`,
      [windows.hour],
    ),
  ]);
  const states: { tenantId: string; source: string; state: HealthState }[] = [];
  for (const row of sources) {
    if (!(ingestSources as readonly string[]).includes(row.source)) continue;
    const lastHour = zeroCounts();
    for (const count of counts) {
      if (count.tenant_id === row.tenant_id && count.source === row.source) lastHour[count.outcome] += Number(count.count);
    }
    const state = healthState({ lastReceivedAt: row.last_received_at, staleAfterSeconds: row[row.source], lastHour, now, degradedRejectionRate });
    states.push({ tenantId: row.tenant_id, source: row.source, state });
  }
  if (!states.length) return 0;
  let changed = 0;
  for (const tenantId of new Set(states.map((s) => s.tenantId))) {
    const mine = states.filter((s) => s.tenantId === tenantId);
    const rows = await db.tenantSql(tenantId).query<{ changed: number }>(recordStatesSql, [tenantId, mine.map((s) => s.source), mine.map((s) => s.state), now]);
    changed += rows[0]?.changed ?? 0;
  }
  return changed;
}

/**
 * $1 tenant, $2 sources, $3 their states, $4 now. The stored states are locked first (read at their latest
 * version: the state an event names as `from`; a source without a row was NO_TRAFFIC), then each state that
 * differs is written, and its `ingest_health.state_changed` event recorded. The insert reads its rows from
 * `input`, which joins the locked states, so they are read before the insert changes them (a row this
 * statement has already updated is invisible to its own `FOR UPDATE`, which would then read no state).
 * One tenant's rows, every default named (the event's id): on Citus a call on the tenant's node over its
 * shards, which have no defaults, as a write is.
 */
export const recordStatesSql = `WITH before AS (
    SELECT s.source, s.state FROM ingest_health_states s WHERE s.tenant_id = $1::uuid AND s.source = ANY ($2::text[]) ORDER BY s.source FOR UPDATE
  ),
  input AS (
    SELECT $1::uuid AS tenant_id, u.source, u.state, COALESCE(b.state, 'NO_TRAFFIC') AS from_state
    FROM unnest($2::text[], $3::text[]) AS u(source, state) LEFT JOIN before b ON b.source = u.source
    WHERE EXISTS (SELECT 1 FROM tenants t WHERE t.id = $1::uuid)
  ),
  written AS (
    INSERT INTO ingest_health_states AS s (tenant_id, source, state, changed_at)
    SELECT tenant_id, source, state, $4::timestamptz FROM input ORDER BY source
    ON CONFLICT (tenant_id, source) DO UPDATE SET state = EXCLUDED.state, changed_at = EXCLUDED.changed_at
    WHERE s.state <> EXCLUDED.state
    RETURNING s.tenant_id, s.source, s.state, s.changed_at
  ),
  events AS (
    INSERT INTO load_events (id, tenant_id, seq, type, load_permalink, data, occurred_at)
    SELECT nextval('load_events_id_seq'), w.tenant_id, NULL, 'ingest_health.state_changed', NULL,
      jsonb_build_object('source', upper(w.source), 'from', i.from_state, 'to', w.state, 'changedAt', load_event_time(w.changed_at)),
      w.changed_at
    FROM written w JOIN input i ON i.source = w.source
    WHERE i.from_state IS DISTINCT FROM w.state
    ORDER BY w.source
  )
  SELECT count(*)::int AS changed FROM written`;
