/**
 * Reading the change-event outbox (`load_events`, filled by the write statements and numbered by
 * sequencing passes; see the migrations `load_events` and `event_sequencer`): pages after a cursor,
 * retention pruning, and the cursor's string form. Callers run a pass (sequencer.ts) before reading.
 */
import type { Database } from '../../db/database.js';
import type { Prisma } from '../../db/generated/prisma/client.js';
import { AppError } from '../../errors.js';
import { loadEventTypes, type LoadEvent, type LoadEventFilter } from './catalog.js';

/** Most events one page (or one subscription read) returns. */
export const maxEventPage = 100;

/** A cursor is the event's `seq` in decimal: stable, per tenant, and meaningful across instances. */
export const cursorOf = (event: Pick<LoadEvent, 'seq'>) => event.seq.toString();

/** The seq after which to read: none → from the oldest kept event. */
export function parseCursor(after: string | null | undefined, field = 'after'): bigint {
  if (after == null || after === '') return 0n;
  if (!/^\d{1,19}$/.test(after)) {
    throw new AppError('validation_failed', 'The cursor is not a position in the event stream.', [
      { field, issue: 'must be an event cursor (a decimal seq) that loadEvents returned' },
    ]);
  }
  return BigInt(after);
}

/** Checks a filter's types against the catalogue (an unknown type would silently match nothing). */
export function assertValidFilter(filter: LoadEventFilter | null | undefined): void {
  const unknown = (filter?.types ?? []).filter((type) => !loadEventTypes.includes(type));
  if (unknown.length) {
    throw new AppError('validation_failed', `Unknown event type ${unknown.join(', ')}.`, [
      { field: 'filter.types', issue: `must be among ${loadEventTypes.join(', ')}` },
    ]);
  }
}

function whereOf(tenantId: string, after: bigint, filter: LoadEventFilter | null | undefined): Prisma.LoadEventWhereInput {
  const where: Prisma.LoadEventWhereInput = { tenantId, seq: { gt: after } };
  if (filter?.types?.length) where.type = { in: [...filter.types] };
  if (filter?.loadPermalinks?.length) where.loadPermalink = { in: [...filter.loadPermalinks] };
  return where;
}

/** Up to `first` events of the tenant after `after`, oldest first, matching the filter. */
export async function readLoadEvents(db: Database, tenantId: string, after: bigint, first: number, filter?: LoadEventFilter | null): Promise<LoadEvent[]> {
  const rows = await db.prisma.loadEvent.findMany({
    where: whereOf(tenantId, after, filter),
    orderBy: { seq: 'asc' },
    take: first,
    select: { seq: true, type: true, loadPermalink: true, data: true, occurredAt: true },
  });
  // `seq > after` leaves out the events not numbered yet.
  return rows.filter((row): row is typeof row & { seq: bigint } => row.seq !== null);
}

/** The tenant's last committed seq (0 before its first event). */
export async function latestSeq(db: Database, tenantId: string): Promise<bigint> {
  const row = await db.prisma.loadEventCursor.findUnique({ where: { tenantId }, select: { seq: true } });
  return row?.seq ?? 0n;
}

/**
 * Deletes events that occurred before `before` (retention), tenant by tenant in batches (each batch one
 * shard's statement on a Citus cluster); returns how many.
 */
export async function pruneLoadEvents(db: Database, before: Date, batchSize = 10_000): Promise<number> {
  let total = 0;
  for (const { id } of await db.sql.query<{ id: string }>('SELECT id FROM tenants ORDER BY id', [])) {
    for (;;) {
      const [row] = await db.sql.query<{ deleted: number }>(
        `WITH gone AS (DELETE FROM load_events WHERE tenant_id = $3::uuid
           AND (tenant_id, id) IN (SELECT tenant_id, id FROM load_events WHERE tenant_id = $3::uuid AND occurred_at < $1 LIMIT $2) RETURNING 1)
         SELECT count(*)::int AS deleted FROM gone`,
        [before, batchSize, id],
      );
      total += row?.deleted ?? 0;
      if ((row?.deleted ?? 0) < batchSize) break;
    }
  }
  return total;
}
