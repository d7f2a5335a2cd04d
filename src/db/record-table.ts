/**
 * The record-table model: a record table as the write statements see it (its columns, parents,
 * freshness guard, phase, change events, load path, delete cascade and load-level sets), derived from
 * each kind's declaration (`domain/declaration/record.ts`) and read by the statements that write it
 * (`record-statements.ts`) and by what those statements record (`record-effects.ts`).
 */

/** SQL type of a column, used for parameter casts. */
export type ColumnType = 'text' | 'int' | 'float8' | 'timestamptz' | 'jsonb' | `"${string}"`;

export interface ColumnSpec {
  column: string;
  type: ColumnType;
}

/** A foreign key to a parent table, resolved from the parent's permalink. */
export interface ParentColumn {
  table: string;
  column: string;
  /** A required parent must exist; an optional one must exist only when a permalink is given. */
  required: boolean;
}

/**
 * How a table's rows guard against stale writes: `sync_run_time` (a stored row fresher than the
 * caller's `sync_run_time` is kept), `append_only` (a repeated permalink changes nothing), or `none`
 * (every write applies; the table still records its freshness time).
 */
export type Freshness = 'sync_run_time' | 'append_only' | 'none';

/** A record table as the statements see it. */
export interface RecordTable {
  /** Statement name prefix (prepared statements are named after it). */
  name: string;
  table: string;
  columns: readonly ColumnSpec[];
  parents: readonly ParentColumn[];
  freshness: Freshness;
  /**
   * The phase column derived from a status column through the tenant's status mapping; `withoutStatus`
   * is the phase of a row without a status (null or blank).
   */
  phase?: { statusColumn: string; withoutStatus: 'UNMAPPED' | null };
  /** The change events its writes record, in their own statements. */
  events: TableEvents;
  /** The foreign keys from a row up to its load: [] (the row is a load) or null (it has none). */
  loadPath: readonly LoadHop[] | null;
  /** The tables a delete of a row cascades to (their rows under it), each with its own. */
  cascade: readonly CascadeTable[];
  /** The load-level set that counts the table's live rows (db/record-effects.ts), or null. */
  loadSet: LoadSet | null;
  /** The sets of the rows under a row of this table: a row that moves to another load moves them too. */
  carried: readonly CarriedSet[];
}

/**
 * A load-level set of a table's live rows (docs/decisions/0036-load-city-set.md): per load and key,
 * how many live rows of the load have that key. The set's table has the columns `tenant_id`, `key`,
 * `load_id` and `count`, its primary key `(tenant_id, key, load_id)`; the write statements keep it.
 */
export interface LoadSet {
  table: string;
  /** The row's column whose value keys the set, and the set's column of the same name. */
  key: string;
  /** The set's column counting the live rows. */
  count: string;
}

/** The set of a child table's rows that hang under a row of this one by `column`. */
export interface CarriedSet {
  table: string;
  column: string;
  set: LoadSet;
}

/** One field of an event snapshot: a column, or a parent (its permalink, by its foreign key `column`). */
export interface SnapshotField {
  /** The payload's name (GraphQL's). */
  name: string;
  column: string;
  type: ColumnType | 'parent';
  /** The parent's table (type `parent`). */
  parent?: string;
}

/** One foreign key on the way from a row to its load: the column, and the table it points to. */
export interface LoadHop {
  table: string;
  column: string;
}

/** A table a delete cascades to: its rows whose `column` names a row deleted now are deleted with it. */
export interface CascadeTable {
  table: string;
  column: string;
  /** The event of each row deleted by the cascade. */
  deleted: string | null;
  loadPath: readonly LoadHop[] | null;
  cascade: readonly CascadeTable[];
  /** The load-level set that counts the table's live rows, or null. */
  loadSet: LoadSet | null;
}

/** The change events of a table's writes (event types; null: none) and the fields of its snapshots. */
export interface TableEvents {
  /** The snapshot's key in a payload; null: the table has no snapshot events. */
  snapshot: string | null;
  created: string | null;
  changed: string | null;
  phaseChanged: string | null;
  deleted: string | null;
  transitions: readonly { type: string; column: string; name: string }[];
  /** The snapshot's fields and the changed fields' candidates (besides `extra`, `phase` and the times). */
  fields: readonly SnapshotField[];
}
