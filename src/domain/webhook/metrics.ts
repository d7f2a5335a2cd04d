/**
 * Webhook series in the app's Prometheus registry: attempts and finished deliveries by outcome
 * (labelled with the tenant slug, like ingest_records_total), and the queue's depth and age, read
 * from the database at scrape time (so every instance reports the shared queue).
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import type { Clock } from '../../clock.js';
import type { Database } from '../../db/database.js';

export type AttemptOutcome = 'success' | 'failure';
export type DeliveryOutcome = 'succeeded' | 'failed';

export interface WebhookMetrics {
  attempt(tenant: string, outcome: AttemptOutcome): void;
  delivery(tenant: string, outcome: DeliveryOutcome): void;
}

/** Due, pending deliveries of enabled endpoints: how many, and how long the oldest has waited. */
const queueSql = `SELECT count(*)::int AS due, COALESCE(EXTRACT(EPOCH FROM ($1::timestamptz - min(d.next_attempt_at))), 0)::float8 AS age
  FROM webhook_deliveries d JOIN webhook_endpoints e ON e.tenant_id = d.tenant_id AND e.id = d.endpoint_id AND e.enabled
  WHERE d.state = 'PENDING' AND d.next_attempt_at <= $1::timestamptz`;

export function createWebhookMetrics(registry: Registry, db: Database, clock: Clock): WebhookMetrics {
  const attempts = new Counter({
    name: 'webhook_delivery_attempts_total',
    help: 'Webhook HTTP attempts sent by this instance, by tenant slug and outcome (success: a 2xx answer; failure: anything else).',
    labelNames: ['tenant', 'outcome'] as const,
    registers: [registry],
  });
  const deliveries = new Counter({
    name: 'webhook_deliveries_total',
    help: 'Webhook deliveries finished by this instance, by tenant slug and outcome (succeeded, or failed after the last attempt).',
    labelNames: ['tenant', 'outcome'] as const,
    registers: [registry],
  });
  // Each gauge reads at scrape time (two small indexed queries; a scrape is rare).
  const readQueue = async () => {
    const [row] = await db.sql.query<{ due: number; age: number }>(queueSql, [clock.now()]);
    return { due: Number(row?.due ?? 0), age: Math.max(0, Number(row?.age ?? 0)) };
  };
  new Gauge({
    name: 'webhook_queue_due',
    help: 'Webhook deliveries due now and not yet sent (all instances; endpoints that are enabled).',
    registers: [registry],
    async collect() {
      this.set((await readQueue()).due);
    },
  });
  new Gauge({
    name: 'webhook_queue_age_seconds',
    help: 'How long the oldest due webhook delivery has waited past its due time (0 when none is due).',
    registers: [registry],
    async collect() {
      this.set((await readQueue()).age);
    },
  });
  return {
    attempt: (tenant, outcome) => attempts.inc({ tenant, outcome }),
    delivery: (tenant, outcome) => deliveries.inc({ tenant, outcome }),
  };
}
