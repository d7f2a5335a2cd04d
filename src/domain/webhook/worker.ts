/**
 * The delivery worker: claims due deliveries, sends them, records each attempt.
 *
 * - **Shared by instances.** A claim is one statement per tenant with due deliveries (`FOR UPDATE SKIP
 *   LOCKED` + a lease): an instance takes rows no other instance holds and marks them leased until the
 *   attempt's time limit plus a margin; a crashed instance's rows are retried after their lease
 *   (at-least-once). Per tenant, every statement of the worker is one shard's on a Citus cluster
 *   (docs/explanation/scaling.md); only the list of tenants with due deliveries reads every shard.
 * - **In order per load.** Only a load's oldest pending delivery (by event sequence) per endpoint is
 *   claimable; the next waits until it succeeds or fails for good.
 * - **Retries** follow `retryScheduleMs`; after the last attempt a delivery is FAILED. An endpoint
 *   whose attempts have all failed for 5 days is disabled.
 * - **Woken by commits, per tenant.** Deliveries are queued when an event is numbered (load_events_sequence,
 *   in the same transaction); the worker LISTENs on `load_events` (NOTIFYed by that pass with the tenant's
 *   id) and claims that tenant's deliveries at once: one shard's statement per pass, none that reads every
 *   shard. The same when an attempt of a tenant ends (the load's next delivery becomes claimable). Every
 *   `pollIntervalMs`, and after the listener reconnects, it looks over every tenant (`dueTenantsSql`): what
 *   no notification names (retries falling due, a crashed instance's deliveries after their lease, a
 *   notification lost).
 * - **Clock.** Due times and leases use the injected clock, so tests walk the schedule without waiting.
 */
import { randomUUID } from 'node:crypto';
import type { Clock } from '../../clock.js';
import type { Database } from '../../db/database.js';
import type { Logger } from '../../logger.js';
import { loadEventsChannel } from '../events/live.js';
import type { WebhookMetrics } from './metrics.js';
import { disableAfterFailingMs, maxAttempts, retryScheduleMs } from './schema.js';
import { sendWebhook, type AttemptResult } from './sender.js';
import { signingSecrets } from './service.js';
import { webhookHeaders } from './signing.js';

export interface WebhookSettings {
  /** Time limit of one attempt (connect to last byte). */
  timeoutMs: number;
  allowPrivateNetworks: boolean;
  /** How often the worker looks over every tenant for due deliveries (besides the tenants it is woken for). */
  pollIntervalMs: number;
  /** Attempts in flight at once per instance. */
  concurrency: number;
  /** Finished deliveries are deleted this long after they finished (EVENTS_RETENTION_DAYS). */
  retentionMs: number;
}

/** How often a running worker deletes finished deliveries past the retention. */
const pruneIntervalMs = 60_000;

export interface WebhookWorkerDeps {
  db: Database;
  clock: Clock;
  logger: Logger;
  settings: WebhookSettings;
  metrics?: WebhookMetrics;
  /** The numbering passes this instance started (they queue deliveries): `drain` waits for them first. */
  numbering?: { idle(): Promise<void> };
}

interface Claimed {
  id: string;
  tenant_id: string;
  lease_token: string;
  tenant_slug: string;
  endpoint_id: string;
  message_id: string;
  body: string;
  attempt_count: number;
  url: string;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: Date | null;
}

// $1 now: the tenants with due deliveries, longest due first (every shard's rows on Citus).
export const dueTenantsSql = `SELECT d.tenant_id FROM webhook_deliveries d
  WHERE d.state = 'PENDING' AND d.next_attempt_at <= $1::timestamptz AND (d.lease_until IS NULL OR d.lease_until <= $1::timestamptz)
  GROUP BY d.tenant_id ORDER BY min(d.next_attempt_at)`;

// $1 now, $2 limit, $3 lease until, $4 lease token, $5 tenant. One tenant's rows, its tables named after
// FROM and JOIN: on Citus a call on the tenant's node, as a write is (the claim and each attempt's record).
export const claimSql = `WITH due AS (
  SELECT d.id FROM webhook_deliveries d
  JOIN webhook_endpoints e ON e.tenant_id = d.tenant_id AND e.id = d.endpoint_id AND e.enabled
  WHERE d.tenant_id = $5::uuid AND d.state = 'PENDING' AND d.next_attempt_at <= $1::timestamptz
    AND (d.lease_until IS NULL OR d.lease_until <= $1::timestamptz)
    AND NOT EXISTS (
      SELECT 1 FROM webhook_deliveries p
      WHERE p.tenant_id = d.tenant_id AND p.endpoint_id = d.endpoint_id AND p.state = 'PENDING'
        AND p.load_permalink = d.load_permalink AND p.event_seq < d.event_seq)
  ORDER BY d.next_attempt_at, d.event_seq
  LIMIT $2::int
  FOR UPDATE OF d SKIP LOCKED
)
UPDATE webhook_deliveries w SET lease_until = $3::timestamptz, lease_token = $4::uuid
FROM due JOIN webhook_endpoints e ON e.tenant_id = $5::uuid JOIN tenants t ON t.id = $5::uuid
WHERE w.tenant_id = $5::uuid AND w.id = due.id AND e.id = w.endpoint_id
RETURNING w.id, w.tenant_id, w.lease_token, t.slug AS tenant_slug, w.endpoint_id, w.message_id, w.body, w.attempt_count,
  e.url, e.secret, e.previous_secret, e.previous_secret_expires_at`;

// $1 delivery, $2 lease token, $3 attempted at, $4 http status, $5 error, $6 duration ms, $7 new state,
// $8 next attempt at, $9 succeeded?, $10 endpoint, $11 failing since at most this → disable, $12 tenant.
export const recordSql = `WITH attempt AS (
  INSERT INTO webhook_attempts (id, tenant_id, delivery_id, attempted_at, http_status, error, duration_ms)
  SELECT gen_random_uuid(), d.tenant_id, d.id, $3::timestamptz, $4::int, $5::text, $6::int FROM webhook_deliveries d
  WHERE d.tenant_id = $12::uuid AND d.id = $1::uuid
), delivery AS (
  UPDATE webhook_deliveries SET attempt_count = attempt_count + 1, state = $7::"WebhookDeliveryState",
    next_attempt_at = $8::timestamptz, completed_at = CASE WHEN $7::"WebhookDeliveryState" = 'PENDING' THEN NULL ELSE $3::timestamptz END,
    lease_until = NULL, lease_token = NULL
  WHERE tenant_id = $12::uuid AND id = $1::uuid AND lease_token = $2::uuid
  RETURNING id
), endpoint AS (
  UPDATE webhook_endpoints e SET
    failing_since = CASE WHEN $9::boolean THEN NULL ELSE COALESCE(e.failing_since, $3::timestamptz) END,
    enabled = e.enabled AND ($9::boolean OR COALESCE(e.failing_since, $3::timestamptz) > $11::timestamptz),
    disabled_at = CASE WHEN e.enabled AND NOT $9::boolean AND COALESCE(e.failing_since, $3::timestamptz) <= $11::timestamptz
      THEN $3::timestamptz ELSE e.disabled_at END,
    disabled_reason = CASE WHEN e.enabled AND NOT $9::boolean AND COALESCE(e.failing_since, $3::timestamptz) <= $11::timestamptz
      THEN 'Every delivery attempt failed for 5 days; fix the receiver, then re-enable the endpoint (updateWebhookEndpoint) and replay.'
      ELSE e.disabled_reason END
  WHERE e.tenant_id = $12::uuid AND e.id = $10::uuid
  RETURNING NOT e.enabled AND e.disabled_at = $3::timestamptz AS disabled_now
)
SELECT (SELECT count(*) FROM delivery)::int AS recorded, COALESCE((SELECT bool_or(disabled_now) FROM endpoint), false) AS disabled_now`;

export function createWebhookWorker({ db, clock, logger, settings, metrics, numbering }: WebhookWorkerDeps) {
  const log = logger.child({ component: 'webhooks' });
  const inflight = new Set<Promise<void>>();
  let stopped = true;
  let loop: Promise<void> | null = null;
  let wakeUp: (() => void) | null = null;
  let unlisten: Promise<(() => Promise<void>) | null> | null = null;

  const wake = () => {
    const resolve = wakeUp;
    wakeUp = null;
    resolve?.();
  };
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(() => wake(), ms);
      wakeUp = () => {
        clearTimeout(timer);
        resolve();
      };
    });

  /** Tenants whose deliveries to claim next: a pass queued some, an attempt ended. */
  const woken = new Set<string>();
  /** When the next look over every tenant is due (`Date.now()`); the first fill looks at once. */
  let scanAt = 0;

  /** Wakes the worker for a tenant's deliveries (a NOTIFY's payload, an ended attempt). */
  const wakeFor = (tenantId: string) => {
    woken.add(tenantId);
    wake();
  };

  /**
   * The tenants to claim for now: every tenant with due deliveries (`null`: asked of the database) when
   * `everyTenant` or a look over every tenant is due, else the woken ones.
   */
  function tenantsToClaim(everyTenant: boolean): string[] | null {
    if (everyTenant || Date.now() >= scanAt) {
      scanAt = Date.now() + settings.pollIntervalMs;
      woken.clear();
      return null;
    }
    const tenants = [...woken];
    woken.clear();
    return tenants;
  }

  /**
   * Claims up to `limit` due deliveries, tenant by tenant: of `tenants`, or of every tenant with due
   * deliveries (the longest due first) when `null`. A tenant that filled the limit may have more: woken again.
   */
  async function claim(limit: number, tenants: readonly string[] | null): Promise<Claimed[]> {
    const now = clock.now();
    const leaseUntil = new Date(now.getTime() + settings.timeoutMs + 60_000);
    const claimed: Claimed[] = [];
    const due = tenants ?? (await db.sql.query<{ tenant_id: string }>(dueTenantsSql, [now])).map((row) => row.tenant_id);
    for (const [i, tenantId] of due.entries()) {
      if (claimed.length >= limit) {
        for (const rest of due.slice(i)) woken.add(rest);
        break;
      }
      const wanted = limit - claimed.length;
      const rows = (await db.tenantSql(tenantId).query<Claimed>(claimSql, [now, wanted, leaseUntil, randomUUID(), tenantId])).map(
        // Carried to a Citus node the row comes back as JSON, its time as text.
        (row) => ({ ...row, previous_secret_expires_at: row.previous_secret_expires_at && new Date(row.previous_secret_expires_at) }),
      );
      if (rows.length === wanted) woken.add(tenantId);
      claimed.push(...rows);
    }
    return claimed;
  }

  async function record(row: Claimed, attemptedAt: Date, result: AttemptResult, durationMs: number) {
    const attempts = row.attempt_count + 1;
    const state = result.ok ? 'SUCCEEDED' : attempts >= maxAttempts ? 'FAILED' : 'PENDING';
    const now = clock.now();
    const next = state === 'PENDING' ? new Date(now.getTime() + retryScheduleMs[attempts]!) : now;
    const disableBefore = new Date(attemptedAt.getTime() - disableAfterFailingMs);
    const [outcome] = await db
      .tenantSql(row.tenant_id)
      .query<{ recorded: number; disabled_now: boolean }>(recordSql, [
        row.id,
        row.lease_token,
        attemptedAt,
        result.httpStatus,
        result.error?.slice(0, 1000) ?? null,
        Math.round(durationMs),
        state,
        next,
        result.ok,
        row.endpoint_id,
        disableBefore,
        row.tenant_id,
      ]);
    metrics?.attempt(row.tenant_slug, result.ok ? 'success' : 'failure');
    if (state !== 'PENDING' && outcome?.recorded) metrics?.delivery(row.tenant_slug, state === 'SUCCEEDED' ? 'succeeded' : 'failed');
    const context = { tenant: row.tenant_slug, endpoint: row.endpoint_id, webhookId: row.message_id, attempt: attempts };
    if (!result.ok) log.info({ ...context, httpStatus: result.httpStatus, error: result.error, state }, 'webhook attempt failed');
    if (outcome?.disabled_now) log.warn(context, 'webhook endpoint disabled: every attempt failed for 5 days');
  }

  async function deliver(row: Claimed) {
    const attemptedAt = clock.now();
    const secrets = signingSecrets(
      {
        secret: row.secret,
        previousSecret: row.previous_secret,
        previousSecretExpiresAt: row.previous_secret_expires_at && new Date(row.previous_secret_expires_at),
      },
      attemptedAt,
    );
    const headers = webhookHeaders(secrets, row.message_id, Math.floor(attemptedAt.getTime() / 1000), row.body);
    const started = performance.now();
    const result = await sendWebhook(row.url, headers, row.body, settings);
    await record(row, attemptedAt, result, performance.now() - started);
  }

  /**
   * Claims as many due deliveries as there are free slots and starts sending them; those of every tenant
   * when `everyTenant` (see `tenantsToClaim`).
   */
  async function fill(everyTenant = false): Promise<number> {
    const free = settings.concurrency - inflight.size;
    if (free <= 0) return 0;
    const rows = await claim(free, tenantsToClaim(everyTenant));
    for (const row of rows) {
      const sending: Promise<void> = deliver(row)
        .catch((error) => log.error({ err: error, webhookId: row.message_id }, 'webhook delivery could not be recorded'))
        .finally(() => {
          inflight.delete(sending);
          // The load's next delivery may be claimable now.
          wakeFor(row.tenant_id);
        });
      inflight.add(sending);
    }
    return rows.length;
  }

  /** Deletes deliveries (with their attempts) that finished longer ago than the retention; returns how many. */
  async function prune(): Promise<number> {
    const before = new Date(clock.now().getTime() - settings.retentionMs);
    const rows = await db.sql.query<{ deleted: number }>(
      `WITH gone AS (DELETE FROM webhook_deliveries WHERE state <> 'PENDING' AND completed_at < $1::timestamptz RETURNING 1)
       SELECT count(*)::int AS deleted FROM gone`,
      [before],
    );
    return rows[0]?.deleted ?? 0;
  }

  async function run() {
    let prunedAt = 0;
    while (!stopped) {
      if (Date.now() - prunedAt >= pruneIntervalMs) {
        prunedAt = Date.now();
        await prune().catch((error) => log.error({ err: error }, 'pruning webhook deliveries failed'));
      }
      let claimed = 0;
      let failed = false;
      try {
        claimed = await fill();
      } catch (error) {
        failed = true;
        log.error({ err: error }, 'webhook claim failed');
      }
      if (stopped) break;
      // Tenants woken meanwhile (or left over by a full claim) are claimed for at once; after a failure, at the next poll.
      if (!failed && woken.size > 0 && inflight.size < settings.concurrency) continue;
      // Until woken, or until the next look over every tenant (a whole interval after a failure).
      if (claimed === 0 || inflight.size >= settings.concurrency) await sleep(failed ? settings.pollIntervalMs : Math.max(0, scanAt - Date.now()));
    }
  }

  return {
    /** Starts polling (main.ts); idempotent. */
    start() {
      if (!stopped) return;
      stopped = false;
      // Without a listener (it failed to start) polling still delivers, a little later.
      unlisten = db
        .listen(
          loadEventsChannel,
          (tenantId) => wakeFor(tenantId),
          () => {
            // Notifications may have been lost meanwhile: the next fill looks over every tenant.
            scanAt = 0;
            wake();
          },
        )
        .catch((error) => {
          log.warn({ err: error }, 'webhook worker could not LISTEN; polling only');
          return null;
        });
      // The first look over every tenant once listening: a delivery queued before it is found by that look, one
      // queued after it is heard of (started together, a pass between the look and the LISTEN waited for the next poll).
      loop = unlisten.then(() => run());
    },
    /** Looks for due deliveries now instead of at the next poll (after a change event). */
    wake,
    /** Stops claiming and waits for the attempts in flight to be recorded. */
    async stop() {
      stopped = true;
      wake();
      const stopListening = await unlisten;
      unlisten = null;
      await stopListening?.();
      await loop;
      loop = null;
      await Promise.allSettled([...inflight]);
    },
    prune,
    /**
     * Sends everything due now, to the end, and waits (tests walk the retry schedule with it); the
     * deliveries of writes answered before the call included (their numbering passes are waited for).
     */
    async drain(): Promise<void> {
      await numbering?.idle();
      for (;;) {
        const claimed = await fill(true);
        if (claimed === 0 && inflight.size === 0) return;
        if (inflight.size) await Promise.race(inflight);
      }
    },
  };
}
