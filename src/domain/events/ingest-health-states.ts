/**
 * `ingest_health.state_changed`: every tenant's sources are evaluated (as `ingestHealth` evaluates
 * them) and the states upserted into ingest_health_states; the conditional upsert changes a row only
 * when its state differs, and the row's trigger records the event (source, from, to) in the same
 * transaction. Instances evaluating at the same time record a change once.
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
  const changed = await db.sql.query<{ tenant_id: string }>(
    `INSERT INTO ingest_health_states AS s (tenant_id, source, state, changed_at)
     SELECT tenant_id, source, state, $4::timestamptz FROM unnest($1::uuid[], $2::text[], $3::text[]) AS u(tenant_id, source, state)
     WHERE EXISTS (SELECT 1 FROM tenants t WHERE t.id = u.tenant_id)
     ON CONFLICT (tenant_id, source) DO UPDATE SET state = EXCLUDED.state, changed_at = EXCLUDED.changed_at
     WHERE s.state <> EXCLUDED.state
     RETURNING tenant_id`,
    [states.map((s) => s.tenantId), states.map((s) => s.source), states.map((s) => s.state), now],
  );
  return changed.length;
}
