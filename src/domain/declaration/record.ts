/**
 * A record kind, declared once in its folder (`domain/<kind>/schema.ts`) with `defineRecord`: its zod
 * body, its column mapping, its parents, its freshness mode and the names its transports use. The
 * registry (`domain/registry.ts`) lists the kinds; the ingestion use case, the REST routes, the
 * GraphQL mutations, the OpenAPI document, the metrics labels and ingest health derive from it.
 */
import type { z } from 'zod';
import type { CarriedSet, CascadeTable, ColumnSpec, Freshness, LoadHop, LoadSet, ParentColumn, RecordTable, SnapshotField } from '../../db/record-table.js';
import { camelCase, feedsOf, meaningOf } from './fields.js';

/** A reference from this record to its parent, by the parent's permalink. */
export interface ParentSpec<Field extends string = string> extends ParentColumn {
  /** Body field holding the parent's permalink. */
  field: Field;
  /** Body field holding the parent's TMS id: builds `<id>-<tenant slug>` when the permalink is null. */
  idField?: string;
}

/** The REST names of a kind: its operations are `POST /api/v1/<collection>/<action>` (and `/bulk_<action>`). */
export interface RestNames {
  collection: string;
  /** What the kind's write (its upsert or create) does, for the OpenAPI document. */
  description: string;
  /** What the kind is, for its tag in the OpenAPI document (the tag is its label). */
  about: string;
}

/** The GraphQL names of a kind: its input type and its ingestion mutation. */
export interface GraphqlNames {
  /**
   * The Query fields that read only the tenant's records of this kind (`load`, `loads`): the response
   * cache keeps their answers until the tenant's data changes.
   */
  rootFields: readonly string[];
  /** The write's input type (`LoadInput`); a delete's is `<Model>DeleteInput`. */
  input: string;
  /** The write's mutation (`upsertLoad`, `createLoadUpdate`); a delete's is `delete<Model>`. */
  mutation: string;
  /** What the write mutation does (the operation adds which REST route it shares its service with). */
  description: string;
  /** GraphQL enum name per enum field (default: the field name in PascalCase). */
  enumNames?: Record<string, string>;
}

/** The change events of a kind (their types; each one must be in `changeEvents`). */
export interface RecordEvents<Field extends string = string> {
  /** The key of the record's snapshot in a payload (`load`, `leg`); null: no snapshot events. */
  snapshot: string | null;
  /** A new record (with `created: true` and every field changed when the same type as `changed`). */
  created?: string;
  /** A stored record whose fields changed (`changedFields`, sorted). */
  changed?: string;
  /** A stored record whose phase changed (`from`, `to`, `status`), with a `phase_changes` row. */
  phaseChanged?: string;
  /** A record deleted now (a tombstone), each of the delete's cascade too. */
  deleted?: string;
  /**
   * Events of a field that becomes set (`stop.arrived`: `arrived_at`): recorded after the record's
   * other events, and the field is then no changed field of its `changed` event.
   */
  transitions?: readonly { type: string; field: Field }[];
}

type FieldOf<Body extends z.ZodObject> = keyof Body['shape'] & string;

/** Any zod object body (the declared shape is checked by `defineRecord`). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- zod objects are invariant in their shape.
type AnyBody = z.ZodObject<any, any>;

export interface RecordSpec<Kind extends string = string> {
  /** The kind's name in ingest accounting, metrics and `IngestRecordKind` (snake_case). */
  kind: Kind;
  /** Human name used in messages ("Load", "Load leg"); its plural names the kind in docs. */
  label: string;
  table: string;
  /** The Prisma model of `table` (the SQL load page reads it through the models' relations). */
  model: string;
  /**
   * The change events a write of this kind records (each named in `events`, checked by `defineRecord`);
   * the event catalog is built from them, in registry order.
   */
  changeEvents: readonly string[];
  body: AnyBody;
  /** Body field of the record's own permalink (schema-required, never null). */
  permalinkField: string;
  /** Contract field → column, for every contract field stored as a column. */
  columns: Readonly<Record<string, ColumnSpec>>;
  parents: readonly ParentSpec[];
  freshness: Freshness;
  /**
   * The phase translated from the named status field; `withoutStatus` is the phase of a record
   * without a status (null or blank): a load is `UNMAPPED`, a load update (a GPS ping) has none.
   */
  phase?: { from: string; withoutStatus: 'UNMAPPED' | null };
  /**
   * The database side of the kind's change events (docs/decisions/0032-set-based-writes.md): the
   * write statements (db/record-statements.ts) record them from this, in the write's own statement.
   * The snapshot in a payload holds every column and parent of the kind (by default: a field added to
   * the kind is in its events) but the `hidden` ones, plus `phase`, `extra` and the times.
   */
  events: RecordEvents;
  /**
   * Stored fields (columns or parents) no reader is shown: left out of the change events' snapshots and
   * changed fields, and of the kind's GraphQL object (`graphql/stored-fields.ts`). Every other column
   * is shown in both, so a field added to the kind is.
   */
  hidden?: readonly string[];
  /**
   * The parent chain up to the load: `self` (the record is a load), the parent field whose record
   * leads to the load (its own `load`), or null (the record hangs under no load: no activity, no
   * `loadPermalink`). A write moves the activity of the loads it touches (`load_activity`).
   */
  load: string | null;
  /**
   * The load-level set counting the kind's live records by a column (stops by `city_key`, the board's
   * city filter; docs/decisions/0036-load-city-set.md): every write of the kind, of its parent on the
   * way to the load (a leg that moves to another load) and every delete's cascade keep it, in their
   * own statements.
   */
  loadSet?: LoadSet;
  rest: RestNames;
  graphql: GraphqlNames;
}

/**
 * Declares a record kind. Every body field but the record's own permalink and its parents' permalinks
 * must be mapped to a column (a field left out, or a column for an unknown field, is a type error).
 * The declaration keeps its body's type, so the registry types each kind's records (the client's `RecordOf`).
 */
export function defineRecord<
  const Kind extends string,
  Body extends z.ZodObject,
  const Permalink extends FieldOf<Body>,
  const ParentField extends FieldOf<Body> = never,
>(
  spec: Omit<RecordSpec<Kind>, 'body' | 'permalinkField' | 'columns' | 'parents' | 'phase' | 'events' | 'load' | 'hidden'> & {
    body: Body;
    permalinkField: Permalink;
    phase?: { from: Exclude<FieldOf<Body>, Permalink | ParentField>; withoutStatus: 'UNMAPPED' | null };
    events: RecordEvents<NoInfer<Exclude<FieldOf<Body>, Permalink>>>;
    hidden?: readonly NoInfer<Exclude<FieldOf<Body>, Permalink>>[];
    load: 'self' | NoInfer<ParentField> | null;
    parents: readonly ParentSpec<ParentField>[];
    columns: { readonly [F in Exclude<FieldOf<Body>, Permalink | ParentField>]: ColumnSpec };
  },
): RecordSpec<Kind> & { readonly body: Body } {
  const { events } = spec;
  const used = [events.created, events.changed, events.phaseChanged, events.deleted, ...(events.transitions ?? []).map((t) => t.type)].filter(
    (type): type is string => type !== undefined,
  );
  const undeclared = [...used.filter((type) => !spec.changeEvents.includes(type)), ...spec.changeEvents.filter((type) => !used.includes(type))];
  if (undeclared.length) throw new Error(`${spec.kind}: events and changeEvents disagree on ${undeclared.join(', ')}`);
  return spec;
}

/** An ingestion action: what an operation of a kind does with each record. */
export type IngestAction = 'upsert' | 'create' | 'delete';

/**
 * How an operation treats the caller's `sync_run_time`: `honoured` (a stored record fresher than it is
 * left alone), `ignored` (accepted and not used: carriers have no freshness guard), `absent` (not taken).
 */
export type SyncRunTimeUse = 'honoured' | 'ignored' | 'absent';

/**
 * What a kind's freshness mode means for its operations, read here only (the SQL statements read
 * `freshness` for their own clauses): its actions (the write first) and its use of `sync_run_time`.
 */
const freshnessRules: Readonly<Record<Freshness, { actions: readonly IngestAction[]; syncRunTime: SyncRunTimeUse }>> = {
  sync_run_time: { actions: ['upsert', 'delete'], syncRunTime: 'honoured' },
  none: { actions: ['upsert', 'delete'], syncRunTime: 'ignored' },
  append_only: { actions: ['create'], syncRunTime: 'absent' },
};

/** The actions a kind takes: `upsert` and `delete` for records that change, `create` only for append-only ones. */
export const actionsOf = (spec: RecordSpec): readonly IngestAction[] => freshnessRules[spec.freshness].actions;

/** The kind's write: `upsert`, or `create` for an append-only kind. */
export const writeActionOf = (spec: RecordSpec): IngestAction => actionsOf(spec)[0]!;

/** How the kind's operations treat `sync_run_time`. */
export const syncRunTimeUseOf = (spec: RecordSpec): SyncRunTimeUse => freshnessRules[spec.freshness].syncRunTime;

/** The REST path of a kind's single-record route: `POST /api/v1/<collection>/<action>`. */
export const restPath = (spec: RecordSpec, action = writeActionOf(spec)) => `/api/v1/${spec.rest.collection}/${action}`;

/** The REST path of a kind's bulk route: `POST /api/v1/<collection>/bulk_<action>`. */
export const bulkRestPath = (spec: RecordSpec, action = writeActionOf(spec)) => `/api/v1/${spec.rest.collection}/bulk_${action}`;

/** The GraphQL name of a kind's single-record mutation: the write's declared name, `delete<Model>` for its delete. */
export const mutationName = (spec: RecordSpec, action = writeActionOf(spec)) => (action === 'delete' ? `delete${spec.model}` : spec.graphql.mutation);

/** The GraphQL name of a bulk mutation: `upsertLoad` → `bulkUpsertLoads`, `createLoadUpdate` → `bulkCreateLoadUpdates`, `deleteLoad` → `bulkDeleteLoads`. */
export const bulkMutationName = (spec: RecordSpec, action = writeActionOf(spec)) => {
  const single = mutationName(spec, action);
  return `bulk${single[0]!.toUpperCase()}${single.slice(1)}s`;
};

/** The snapshot name of a parent: its column without `_id`, with `Permalink` (`load_id` → `loadPermalink`). */
const parentName = (column: string) => camelCase(`${column.replace(/_id$/, '')}_permalink`);

/**
 * The table a record kind is written to, as the SQL builders see it: its columns and parents, and its
 * database side derived from the declaration: the events' fields (every column and parent but the
 * hidden ones), the chain up to its load, and the tables a delete cascades to (the kinds whose
 * required parent it is, recursively). `kinds` are all the kinds (the registry), for those two.
 */
export function tableOf(spec: RecordSpec, kinds: readonly RecordSpec[]): RecordTable {
  const omit = new Set<string>(spec.hidden ?? []);
  const columnOf = (field: string) => spec.columns[field]?.column ?? spec.parents.find((p) => p.field === field)?.column;
  for (const field of [...omit, ...(spec.events.transitions ?? []).map((t) => t.field)]) {
    if (!columnOf(field)) throw new Error(`${spec.kind}: events name ${field}, no column or parent of the kind`);
  }
  const fields: SnapshotField[] = [
    { name: 'permalink', column: 'permalink', type: 'text' },
    ...Object.entries(spec.columns)
      .filter(([field]) => !omit.has(field))
      .map(([, c]) => ({ name: camelCase(c.column), column: c.column, type: c.type })),
    ...spec.parents.filter((p) => !omit.has(p.field)).map((p) => ({ name: parentName(p.column), column: p.column, type: 'parent' as const, parent: p.table })),
  ];
  const kindOfTable = (table: string) => {
    const kind = kinds.find((k) => k.table === table);
    if (!kind) throw new Error(`${spec.kind}: no kind is stored in ${table}`);
    return kind;
  };
  const loadPath = (kind: RecordSpec): LoadHop[] | null => {
    if (kind.load === null) return null;
    if (kind.load === 'self') return [];
    const parent = kind.parents.find((p) => p.field === kind.load);
    if (!parent) throw new Error(`${kind.kind}: load names ${kind.load}, no parent of the kind`);
    const rest = loadPath(kindOfTable(parent.table));
    if (!rest) throw new Error(`${kind.kind}: its load's parent ${parent.table} leads to no load`);
    return [{ table: parent.table, column: parent.column }, ...rest];
  };
  const cascadeOf = (table: string): CascadeTable[] =>
    kinds
      .filter((k) => k.freshness !== 'append_only' && k.table !== table)
      .flatMap((k) => k.parents.filter((p) => p.required && p.table === table).map((p) => ({ kind: k, column: p.column })))
      .map(({ kind, column }) => ({
        table: kind.table,
        column,
        deleted: kind.events.deleted ?? null,
        loadPath: loadPath(kind),
        cascade: cascadeOf(kind.table),
        loadSet: kind.loadSet ?? null,
      }));
  // The sets of the kinds whose way to their load leads through this kind (a stop's leg).
  const carried: CarriedSet[] = kinds.flatMap((k) => {
    if (!k.loadSet || typeof k.load !== 'string' || k.load === 'self') return [];
    const parent = k.parents.find((p) => p.field === k.load);
    return parent?.table === spec.table ? [{ table: k.table, column: parent.column, set: k.loadSet }] : [];
  });
  return {
    name: spec.kind,
    table: spec.table,
    columns: Object.values(spec.columns),
    parents: spec.parents,
    freshness: spec.freshness,
    phase: spec.phase && { statusColumn: spec.columns[spec.phase.from]!.column, withoutStatus: spec.phase.withoutStatus },
    events: {
      snapshot: spec.events.snapshot,
      created: spec.events.created ?? null,
      changed: spec.events.changed ?? null,
      phaseChanged: spec.events.phaseChanged ?? null,
      deleted: spec.events.deleted ?? null,
      transitions: (spec.events.transitions ?? []).map((t) => ({ type: t.type, column: columnOf(t.field)!, name: camelCase(columnOf(t.field)!) })),
      fields,
    },
    loadPath: loadPath(spec),
    cascade: spec.freshness === 'append_only' ? [] : cascadeOf(spec.table),
    loadSet: spec.loadSet ?? null,
    carried,
  };
}

/**
 * The body fields a kind stores in a column of its own, by column: its permalink (column `permalink`)
 * and every mapped field (parents' permalinks are resolved to ids and are no columns of theirs).
 */
export function storedFields(spec: RecordSpec): ReadonlyMap<string, string> {
  return new Map([['permalink', spec.permalinkField], ...Object.entries(spec.columns).map(([field, { column }]) => [column, field] as [string, string])]);
}

/**
 * The description of a stored body field on an output type (GraphQL object field), derived from the
 * zod field: "`<contract field>`: <what it is>". `name` is the contract (snake_case) field name or the
 * camelCase name of its column (the Prisma and GraphQL field name). An unknown name throws, when the
 * schema is built.
 */
export function describeStoredField(spec: RecordSpec, name: string): string {
  let field: string | undefined;
  for (const [column, contractField] of storedFields(spec)) {
    if (name === contractField || name === camelCase(column)) field = contractField;
  }
  const schema = field === undefined ? undefined : (spec.body.shape as Record<string, z.ZodType>)[field];
  if (!schema) throw new Error(`${spec.label}: no stored contract field named ${name}`);
  return `\`${field}\`: ${meaningOf(schema)}`;
}

/** A recommended field of a kind and the feature it feeds (api-contract.md F). */
export interface RecommendedField {
  /** The contract (snake_case) field name. */
  field: string;
  feeds: string;
}

/**
 * Whether a body carries a value for a field (api-contract.md F, "present"): not absent, not null,
 * not a string of white space only.
 */
export const hasValue = (value: unknown) => value !== undefined && value !== null && !(typeof value === 'string' && value.trim() === '');

/** The kind's recommended fields, in body order, each with what it feeds (from its declaration). */
export function recommendedFields(spec: RecordSpec): readonly RecommendedField[] {
  return Object.entries(spec.body.shape as Record<string, z.ZodType>).flatMap(([field, schema]) => {
    const feeds = feedsOf(schema);
    return feeds === undefined ? [] : [{ field, feeds }];
  });
}

/**
 * The fields whose presence a write of the kind counts (field coverage, api-contract.md F): its
 * recommended fields in body order, as its log entries' coverage bits stand for them.
 */
export const countedFields = (spec: RecordSpec): readonly string[] => recommendedFields(spec).map((f) => f.field);
