/**
 * The tenant's pass: `load_events_sequence(tenant, coverage)` (migrations `event_sequencer`,
 * `coverage_from_the_log`) gives the tenant's committed, unnumbered events their `seq` in one short
 * transaction, queues their webhook deliveries and NOTIFYs `load_events` (on Citus, where the pass runs on the
 * tenant's node, the instance sends that NOTIFY on the coordinator: decision 0054), and adds the log entries
 * committed since its last run into field coverage (docs/decisions/0051-derived-from-the-log.md).
 * Writing transactions only insert their events and log entries, so they no longer queue on a
 * per-tenant counter, a coverage row or PostgreSQL's notify lock at commit.
 *
 * - **After each write**, the instance that wrote starts a pass for the tenant and answers without
 *   waiting for it (the write has committed: its 200 means stored); subscribers and webhooks are woken
 *   by the pass (docs/decisions/0045-answered-at-the-commit.md).
 * - **Before each read** that depends on it (`loadEvents`, subscriptions, an endpoint's deliveries, a
 *   replay, `dataQuality`), so a client that got its 200 finds its events on its next request, and a
 *   write from anywhere (a CLI, a script, an instance that died between its commit and its pass) is
 *   never invisible to a reader.
 * - **The sweep** (event maintenance, every instance) numbers every tenant's leftovers, so webhooks
 *   of such writes go out without waiting for a reader.
 *
 * `committed` also tells `onCommitted` (the response cache drops the tenant's answers).
 *
 * Passes are coalesced per tenant and instance: while one runs, callers wait for the next, which
 * covers them all, so 64 concurrent writers of a tenant cost a handful of passes, not 64. `idle` waits
 * for every pass this instance started (a shutdown, before it closes the database).
 */
import type { Database } from '../../db/database.js';
import type { Logger } from '../../logger.js';

interface Waiter {
  resolve(): void;
  reject(error: unknown): void;
}

export type EventSequencer = ReturnType<typeof createEventSequencer>;

/** The pass, one call (on Citus carried to the tenant's node as its writes are): the events it numbered, the coverage rows it wrote. */
export const passStatement = 'SELECT numbered, counted FROM load_events_sequence($1::uuid, $2::jsonb)';
const notifyStatement = `SELECT pg_notify('load_events', $1::text)`;
/** Whether `sql` is a statement of a tenant's pass (statement counts leave them out: they follow the answers). */
export const isPassStatement = (sql: string) => sql === passStatement || sql === notifyStatement;

export interface EventSequencerOptions {
  db: Database;
  logger: Logger;
  /** Called first for each committed write of a tenant on this instance (the response cache's versions). */
  onCommitted?: (tenantId: string) => void;
  /**
   * Each kind's recommended fields, in declaration order, as the write statements count them (their
   * log entries' `coverage` bits): the pass adds them up into field coverage. Null: coverage is not
   * counted (`INGEST_FIELD_COVERAGE=off`), the pass numbers events only.
   */
  coverage?: Readonly<Record<string, readonly string[]>> | null;
}

export function createEventSequencer({ db, logger, onCommitted, coverage = null }: EventSequencerOptions) {
  /** Tenants with a pass running on this instance → callers waiting for the pass after it. */
  const running = new Map<string, Waiter[]>();

  const coverageParam = coverage ? JSON.stringify(coverage) : null;
  /** One pass over the tenant's log; resolves to how many events it numbered plus coverage rows it wrote. */
  const pass = async (tenantId: string) => {
    // On Citus, a call on the tenant's node like a write's (decision 0055); a NOTIFY there reaches no listener:
    // the instances listen on the coordinator. As on one server, only a pass that numbered events notifies.
    const [row] = await db.tenantSql(tenantId).query<{ numbered: number; counted: number }>(passStatement, [tenantId, coverageParam], 'load_events_sequence');
    const { numbered = 0, counted = 0 } = row ?? {};
    if (numbered > 0 && (await db.citus())) await db.sql.query(notifyStatement, [tenantId], 'load_events_notify');
    return numbered + counted;
  };

  async function drain(tenantId: string, batch: Waiter[]) {
    for (;;) {
      try {
        await pass(tenantId);
        for (const waiter of batch) waiter.resolve();
      } catch (error) {
        for (const waiter of batch) waiter.reject(error);
      }
      const next = running.get(tenantId) ?? [];
      if (!next.length) {
        running.delete(tenantId);
        return;
      }
      batch = next;
      running.set(tenantId, []);
    }
  }

  /** Numbers the tenant's events committed before this call; rejects if the database fails. */
  function sequence(tenantId: string): Promise<void> {
    return new Promise((resolve, reject) => {
      const queued = running.get(tenantId);
      if (queued) {
        queued.push({ resolve, reject });
        return;
      }
      running.set(tenantId, []);
      void drain(tenantId, [{ resolve, reject }]);
    });
  }

  /** The passes started by `committed` that have not ended. */
  const started = new Set<Promise<void>>();

  return {
    sequence,
    /**
     * After a write of the tenant committed: starts the pass that numbers its events and returns at once
     * (the caller answers its client now). A failed pass is only logged: the next read of the tenant's
     * events or the next sweep numbers them.
     */
    committed(tenantId: string): void {
      onCommitted?.(tenantId);
      const pass: Promise<void> = sequence(tenantId)
        .catch((error: unknown) =>
          logger.warn({ err: error, tenantId }, 'numbering change events failed; the next read or event maintenance pass numbers them'),
        )
        .finally(() => started.delete(pass));
      started.add(pass);
    },
    /** Waits until every pass started by `committed` (those started meanwhile too) has ended. */
    async idle(): Promise<void> {
      while (started.size) await Promise.allSettled([...started]);
    },
    /**
     * After a write of the tenant that records no change event but changes what GraphQL answers (the
     * payload history of a skipped or duplicate write): only `onCommitted` (no pass, no round trip).
     */
    touched(tenantId: string): void {
      onCommitted?.(tenantId);
    },
    /**
     * Runs every tenant's pass over what is left (unnumbered events, log entries not yet counted);
     * returns how many tenants had some. Each tenant is one statement of its own, which returns at once
     * when there is nothing to do (two index probes; one shard's on a Citus cluster, which cannot run a
     * correlated subquery under the reference table `tenants`).
     */
    async sweep(): Promise<number> {
      let tenants = 0;
      for (const { id } of await db.sql.query<{ id: string }>('SELECT id FROM tenants', [])) if ((await pass(id)) > 0) tenants++;
      return tenants;
    },
  };
}
