/**
 * Live change events for subscriptions, on every instance: one `LISTEN load_events` per process
 * (each sequencing pass NOTIFYs the tenant id when it has numbered new events, on whichever instance
 * ran it), fanned out in memory to this process's subscribers of that tenant.
 *
 * A subscriber reads from the outbox after its cursor, never from the notification itself, so
 * replay and live are one loop without a gap or a duplicate at the switch: it registers for wake-ups
 * *before* its first read, so an event committed after any read wakes it, and `seq` (commit order)
 * is its position. Each read first runs a sequencing pass (sequencer.ts), so events whose writer
 * could not number them are read too. A lost listening connection re-reads everyone once it is back.
 */
import type { Database } from '../../db/database.js';
import { AppError } from '../../errors.js';
import type { Logger } from '../../logger.js';
import type { LoadEvent, LoadEventFilter } from './catalog.js';
import type { EventSequencer } from './sequencer.js';
import { latestSeq, maxEventPage, readLoadEvents } from './service.js';

export const loadEventsChannel = 'load_events';

export interface LoadEventHubOptions {
  db: Database;
  sequencer: EventSequencer;
  logger: Logger;
  /** Most open subscriptions per tenant on this instance (`EVENTS_MAX_SUBSCRIPTIONS_PER_TENANT`). */
  maxSubscriptionsPerTenant: number;
  /** A subscriber re-reads at least this often even without a notification (a safety net). */
  pollIntervalMs?: number;
}

interface Waiter {
  wake(): void;
  /** Ends the subscription (shutdown). */
  end(): void;
}

export type LoadEventHub = ReturnType<typeof createLoadEventHub>;

export interface ChangeObserver {
  changed(tenantId: string): void;
  reconnected(): void;
}

export function createLoadEventHub({ db, sequencer, logger, maxSubscriptionsPerTenant, pollIntervalMs = 30_000 }: LoadEventHubOptions) {
  const waiters = new Map<string, Set<Waiter>>();
  let listening: Promise<unknown> | null = null;

  const wakeTenant = (tenantId: string) => {
    for (const waiter of waiters.get(tenantId) ?? []) waiter.wake();
  };
  const wakeAll = () => {
    for (const tenantId of waiters.keys()) wakeTenant(tenantId);
  };
  /** Others told of each notification on the same connection (the response cache). */
  const observers = new Set<ChangeObserver>();

  /** Starts listening on first use; a failed start is retried by the next subscriber or watcher. */
  function ensureListening() {
    listening ??= db
      .listen(
        loadEventsChannel,
        (tenantId) => {
          wakeTenant(tenantId);
          for (const observer of observers) observer.changed(tenantId);
        },
        () => {
          logger.warn('load_events listener reconnected; re-reading subscriptions');
          wakeAll();
          for (const observer of observers) observer.reconnected();
        },
      )
      .catch((error) => {
        listening = null;
        throw error;
      });
    return listening;
  }

  /**
   * The tenant's events after `after` (null: after the last one committed when this resolves)
   * matching `filter`: first what is stored, then each new one as
   * it commits, until the consumer stops iterating. Throws `rate_limited` (before any event) beyond
   * the tenant's cap; the place is given back when the consumer stops or the stream fails.
   */
  async function subscribe(tenantId: string, after: bigint | null, filter: LoadEventFilter | null | undefined): Promise<AsyncGenerator<LoadEvent>> {
    const tenantWaiters = waiters.get(tenantId) ?? new Set<Waiter>();
    if (tenantWaiters.size >= maxSubscriptionsPerTenant) {
      throw new AppError('rate_limited', `This tenant already has ${maxSubscriptionsPerTenant} open subscriptions on this instance.`, [
        { field: 'subscription', issue: `at most ${maxSubscriptionsPerTenant} per tenant; close one first` },
      ]);
    }
    let dirty = true;
    let closed = false;
    let wakeUp: (() => void) | null = null;
    const waiter: Waiter = {
      wake() {
        dirty = true;
        wakeUp?.();
      },
      end: () => release(),
    };
    // Registered before the first read: whatever commits after that read wakes this subscriber.
    tenantWaiters.add(waiter);
    waiters.set(tenantId, tenantWaiters);
    const release = () => {
      if (closed) return;
      closed = true;
      wakeUp?.();
      tenantWaiters.delete(waiter);
      if (!tenantWaiters.size && waiters.get(tenantId) === tenantWaiters) waiters.delete(tenantId);
    };

    // Listening and positioned before the response starts: a client that sees the stream open
    // receives everything that commits afterwards.
    let cursor: bigint;
    try {
      await ensureListening();
      if (after === null) await sequencer.sequence(tenantId);
      cursor = after ?? (await latestSeq(db, tenantId));
    } catch (error) {
      release();
      throw error;
    }

    async function* stream(): AsyncGenerator<LoadEvent> {
      while (!closed) {
        while (dirty && !closed) {
          dirty = false;
          await sequencer.sequence(tenantId);
          for (;;) {
            const events = await readLoadEvents(db, tenantId, cursor, maxEventPage, filter);
            for (const event of events) {
              if (closed) return;
              cursor = event.seq;
              yield event;
            }
            if (events.length < maxEventPage || closed) break;
          }
        }
        if (closed) return;
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, pollIntervalMs);
          wakeUp = () => {
            clearTimeout(timer);
            resolve();
          };
          if (dirty || closed) wakeUp();
        });
        wakeUp = null;
        dirty = true;
      }
    }
    return releasing(stream(), release);
  }

  return {
    subscribe,
    /**
     * Tells `observer` of every tenant whose events a sequencing pass numbered (any instance), and of a
     * reconnected listener (notifications meanwhile lost); resolves once listening (one connection
     * for the subscriptions and every observer).
     */
    watch(observer: ChangeObserver): Promise<unknown> {
      observers.add(observer);
      return ensureListening();
    },
    /** Open subscriptions of a tenant on this instance. */
    openSubscriptions: (tenantId: string) => waiters.get(tenantId)?.size ?? 0,
    /** Ends every open subscription (their streams complete): graceful shutdown. */
    endAll() {
      for (const tenantWaiters of [...waiters.values()]) for (const waiter of [...tenantWaiters]) waiter.end();
    },
  };
}

/** The iterator with `release` called once when it ends, fails, or its consumer stops it. */
function releasing<T>(inner: AsyncGenerator<T>, release: () => void): AsyncGenerator<T> {
  const iterator: AsyncGenerator<T> = {
    async next() {
      try {
        const result = await inner.next();
        if (result.done) release();
        return result;
      } catch (error) {
        release();
        throw error;
      }
    },
    async return(value) {
      release();
      return inner.return(value);
    },
    async throw(error) {
      release();
      return inner.throw(error);
    },
    [Symbol.asyncIterator]() {
      return iterator;
    },
  };
  return iterator;
}
