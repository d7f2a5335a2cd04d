/**
 * The purge of tombstones (api-contract.md E): records deleted before the retention
 * (`DELETED_RETENTION_DAYS`) are removed for good with what hangs under them, in one transaction:
 * the records of every kind whose required parent is purged (a leg's stops, a load's legs and load
 * updates; their phase history goes with them by its foreign key), then the tombstones themselves. A record
 * that names a purged record as an optional parent keeps its other fields (that parent becomes null: a load
 * update naming a purged leg keeps its load, a leg naming a purged carrier its other assignments; no
 * `leg.changed` is recorded). The statements and their order come from the kinds' declarations (their
 * parents and freshness, `domain/registry.ts`): a kind added under a parent is purged with it.
 * Run by the periodic maintenance (`events/maintenance.ts`); idempotent, so instances may overlap.
 */
import type { Database } from '../../db/database.js';
import { recordSpecs } from '../registry.js';
import type { RecordSpec } from '../declaration/record.js';

/** A kind keeps tombstones (a `deleted_at` column) unless it is append-only. */
const keepsTombstones = (spec: RecordSpec) => spec.freshness !== 'append_only';

const kindOfTable = (kinds: readonly RecordSpec[], table: string) => {
  const kind = kinds.find((k) => k.table === table);
  if (!kind) throw new Error(`tombstones: no kind is stored in ${table}`);
  return kind;
};

/**
 * Which rows of a kind the purge removes, as the condition of a statement on its table, besides the
 * tenant ($1 the retention's end, $2 the tenant): its tombstones older than the retention and the
 * records whose required parent is purged; null when nothing of the kind is ever purged. Each parent
 * row is matched with its tenant, by the children's keys `(tenant_id, <parent>_id)`.
 */
function purgedWhere(kinds: readonly RecordSpec[], spec: RecordSpec): string | null {
  const conditions = [
    ...(keepsTombstones(spec) ? ['deleted_at < $1::timestamptz'] : []),
    ...spec.parents
      .filter((p) => p.required)
      .flatMap((p) => {
        const parent = purgedRows(kinds, kindOfTable(kinds, p.table));
        return parent ? [`(tenant_id, ${p.column}) IN (${parent})`] : [];
      }),
  ];
  return conditions.length ? conditions.join(' OR ') : null;
}

/** The rows of a kind the purge removes (`tenant_id, id`), or null (see `purgedWhere`). */
function purgedRows(kinds: readonly RecordSpec[], spec: RecordSpec): string | null {
  const where = purgedWhere(kinds, spec);
  return where && `SELECT tenant_id, id FROM ${spec.table} WHERE tenant_id = $2::uuid AND (${where})`;
}

/** The kinds with every kind that names it as a parent before it (children before their parents: the foreign keys restrict). */
function childrenFirst(kinds: readonly RecordSpec[]): RecordSpec[] {
  const ordered: RecordSpec[] = [];
  const visit = (spec: RecordSpec, path: readonly string[]) => {
    if (ordered.includes(spec)) return;
    if (path.includes(spec.kind)) throw new Error(`tombstones: the kinds' parents form a circle (${[...path, spec.kind].join(' → ')})`);
    for (const child of kinds.filter((k) => k !== spec && k.parents.some((p) => p.table === spec.table))) visit(child, [...path, spec.kind]);
    ordered.push(spec);
  };
  for (const spec of kinds) visit(spec, []);
  return ordered;
}

/**
 * The purge's statements in order ($1 the retention's end, $2 the tenant), from the kinds' declarations:
 * first every optional parent that is purged is cleared from the records that stay (set null here:
 * Citus refuses a key that sets a column null when it holds the distribution column, migration
 * `citus_placement`), then each kind's purged rows are deleted, children before their parents.
 */
function purgeStatements(kinds: readonly RecordSpec[]): { text: string; deletes: boolean }[] {
  const clears = kinds.flatMap((spec) =>
    spec.parents
      .filter((p) => !p.required)
      .flatMap((p) => {
        const parent = purgedRows(kinds, kindOfTable(kinds, p.table));
        if (!parent) return [];
        return [{ text: `UPDATE ${spec.table} SET ${p.column} = NULL WHERE tenant_id = $2::uuid AND (tenant_id, ${p.column}) IN (${parent})`, deletes: false }];
      }),
  );
  const deletes = childrenFirst(kinds).flatMap((spec) => {
    const where = purgedWhere(kinds, spec);
    return where ? [{ text: `DELETE FROM ${spec.table} WHERE tenant_id = $2::uuid AND (${where})`, deletes: true }] : [];
  });
  return [...clears, ...deletes];
}

const statements = purgeStatements(recordSpecs);

/**
 * Removes the tombstones deleted before `before` and what hangs under them, tenant by tenant (one
 * transaction each: on a Citus cluster, each is one shard's work); returns how many rows went (the
 * parents cleared from the children that stay are not counted).
 */
export async function purgeTombstones(db: Database, before: Date): Promise<number> {
  let purged = 0;
  for (const { id } of await db.sql.query<{ id: string }>('SELECT id FROM tenants ORDER BY id', [])) {
    const counts = await db.prisma.$transaction(statements.map(({ text }) => db.prisma.$executeRawUnsafe(text, before, id)));
    purged += counts.reduce((sum, n, i) => sum + (statements[i]!.deletes ? n : 0), 0);
  }
  return purged;
}
