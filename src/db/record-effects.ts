/**
 * What a write of record rows does besides the rows themselves, as data-modifying CTEs of the write's
 * own statement (docs/decisions/0032-set-based-writes.md): its change events (`load_events`), its
 * phase history (`phase_changes`) and the activity of the loads it touches (`load_activity`). Each is
 * one set-based INSERT over the statement's rows: no trigger, no function called per row. Built from
 * a table's description (`RecordTable`, derived from the kind's declaration), so no kind's fields are
 * listed by hand. Every join matches `tenant_id` as well as the key: a statement stays in one tenant.
 */
import type { LoadHop, LoadSet, RecordTable, SnapshotField, TableEvents } from './record-table.js';

const q = (identifier: string) => `"${identifier}"`;

/**
 * The tenant, the first parameter of every statement built with these CTEs. Each table a CTE joins is
 * matched with it as well as with the joined row's tenant: on a Citus coordinator a join with a CTE's
 * result (an intermediate result) tells the planner nothing of the tenant, and without the constant it
 * read the joined table from every shard (EXPLAIN: "Task Count: 32").
 */
const tenantParam = '$1::uuid';
const literal = (text: string) => `'${text.replaceAll("'", "''")}'`;

/** An instant as payloads print it: ISO 8601 UTC with milliseconds (as GraphQL's DateTime). */
export const eventTime = (sql: string) => `to_char(${sql} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** A jsonb object of `[key, SQL value]` pairs (in chunks: a function takes at most 100 arguments). */
function jsonObject(pairs: readonly (readonly [string, string])[]): string {
  const chunks: string[] = [];
  for (let i = 0; i < pairs.length; i += 40) {
    chunks.push(
      `jsonb_build_object(${pairs
        .slice(i, i + 40)
        .map(([key, value]) => `${literal(key)}, ${value}`)
        .join(', ')})`,
    );
  }
  return chunks.length ? `(${chunks.join(' || ')})` : `'{}'::jsonb`;
}

/**
 * The joins from the row at `alias` up to its load (each matching the tenant), the alias of the load's
 * row and the SQL of its id and permalink; null when the row hangs under no load.
 */
export function loadJoin(path: readonly LoadHop[] | null, alias: string): { joins: string; row: string; id: string; permalink: string } | null {
  if (!path) return null;
  let previous = alias;
  let joins = '';
  path.forEach((hop, i) => {
    const next = `${alias}_l${i}`;
    joins += ` LEFT JOIN ${q(hop.table)} ${next} ON ${next}.tenant_id = ${tenantParam} AND ${next}.tenant_id = ${previous}.tenant_id AND ${next}.id = ${previous}.${q(hop.column)}`;
    previous = next;
  });
  return { joins, row: previous, id: `${previous}.id`, permalink: `${previous}.permalink` };
}

/**
 * The joins from the row at `alias` up to the one naming its load (each matching the tenant), and the SQL
 * of the load's id as that row names it (no read of the load itself); null when the row hangs under no load.
 */
export function loadIdJoin(path: readonly LoadHop[] | null, alias: string): { joins: string; id: string } | null {
  if (!path?.length) return null;
  const upper = loadJoin(path.slice(0, -1), alias)!;
  return { joins: upper.joins, id: `${upper.row}.${q(path.at(-1)!.column)}` };
}

/** The SQL of one snapshot field of the row at `alias` (a parent's permalink through `parentAlias`). */
function fieldSql(field: SnapshotField, alias: string, parentAlias: (field: SnapshotField) => string): string {
  if (field.type === 'parent') return `${parentAlias(field)}.permalink`;
  if (field.type === 'timestamptz') return eventTime(`${alias}.${q(field.column)}`);
  return `${alias}.${q(field.column)}`;
}

/** The names a snapshot holds beyond its fields, in this order: the phase, `extra` and the times. */
function bookkeeping(spec: RecordTable, alias: string): [string, string][] {
  return [
    ...(spec.phase ? [['phase', `${alias}.phase`] as [string, string]] : []),
    ['extra', `${alias}.extra`],
    ...(spec.freshness === 'append_only' ? [] : [['changedAt', eventTime(`${alias}.changed_at`)] as [string, string]]),
    ['createdAt', eventTime(`${alias}.created_at`)],
  ];
}

/** The fields of a created record that its event names changed: every snapshot name but the times, sorted. */
const createdFields = (spec: RecordTable) => [...spec.events.fields.map((f) => f.name), ...(spec.phase ? ['phase'] : []), 'extra'].sort();

/**
 * The CTEs recording what a write did, after the statement's own: `facts` is a relation of the
 * statement holding every column of each written row (`f.*`), `inserted` (created now), `n` (the
 * order to record in) and `before` (the row as it was, a whole-row value locked before the write, or
 * null). Returns the CTE definitions (`name AS (…)`), none when the table records nothing.
 */
export function changeEffects(spec: RecordTable, facts: string): string[] {
  const { events } = spec;
  const load = loadJoin(spec.loadPath, 'f');
  const ctes: string[] = [];
  const parentAliases = new Map<string, string>();
  let parentJoins = '';
  for (const field of events.fields) {
    if (field.type !== 'parent') continue;
    const alias = `f_p${parentAliases.size}`;
    parentAliases.set(field.column, alias);
    parentJoins += ` LEFT JOIN ${q(field.parent!)} ${alias} ON ${alias}.tenant_id = ${tenantParam} AND ${alias}.tenant_id = e.tenant_id AND ${alias}.id = e.${q(field.column)}`;
  }
  const snapshot = jsonObject([
    ...events.fields.map((f) => [f.name, fieldSql(f, 'e', (p) => parentAliases.get(p.column)!)] as const),
    ...bookkeeping(spec, 'e'),
  ]);
  // The snapshot's fields whose stored value differs from the row before (parents by their key), sorted;
  // a transition's field is left out when the transition happens now (its own event says it).
  const transitionNow = (t: TableEvents['transitions'][number], a = 'f') =>
    `(${a}.${q(t.column)} IS NOT NULL AND (${a}.inserted OR (${a}.before).${q(t.column)} IS NULL))`;
  const compared = [...events.fields.map((f) => [f.name, f.column] as const), ['extra', 'extra'] as const].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const changed = `array_remove(ARRAY[${compared
    .map(([name, column]) => {
      const transition = events.transitions.find((t) => t.column === column);
      return `CASE WHEN f.${q(column)} IS DISTINCT FROM (f.before).${q(column)}${transition ? ` AND NOT ${transitionNow(transition)}` : ''} THEN ${literal(name)} END`;
    })
    .join(', ')}]::text[], NULL)`;
  const activityColumn = spec.freshness === 'append_only' ? 'created_at' : 'changed_at';
  ctes.push(`effects AS (
    SELECT f.*, ${load ? `${load.id} AS load_id_, ${load.permalink} AS load_permalink_` : 'NULL::uuid AS load_id_, NULL::text AS load_permalink_'},
      ${events.changed ? `CASE WHEN f.inserted THEN NULL ELSE ${changed} END` : 'NULL::text[]'} AS changed_
    FROM ${facts} f${load?.joins ?? ''}
  )`);
  // The snapshot (with its parents' permalinks) of the rows that record an event with it, only those:
  // an upsert that changes nothing builds none.
  const snapshotted = [
    ...(events.created ? ['e.inserted'] : []),
    ...(events.changed ? ['cardinality(e.changed_) > 0'] : []),
    ...events.transitions.map((t) => transitionNow(t, 'e')),
  ];
  if (events.snapshot && snapshotted.length) {
    ctes.push(`snapshots AS (
    SELECT e.*, ${snapshot} AS snap_ FROM effects e${parentJoins} WHERE ${snapshotted.join(' OR ')}
  )`);
  }

  const sameType = events.created !== null && events.created === events.changed;
  const wrap = (extra: readonly (readonly [string, string])[]) =>
    jsonObject([...(spec.loadPath?.length ? [['loadPermalink', 'e.load_permalink_'] as const] : []), [events.snapshot!, 'e.snap_'], ...extra]);
  const candidates: string[] = [];
  const candidate = (rank: number, type: string, data: string, where: string, from = 'snapshots') =>
    candidates.push(
      `SELECT e.n, ${rank} AS rank, e.tenant_id, ${literal(type)} AS type, e.load_permalink_ AS load_permalink, ${data} AS data, e.${activityColumn} AS at FROM ${from} e WHERE ${where}`,
    );
  if (events.snapshot && events.created) {
    const all = `'${JSON.stringify(createdFields(spec))}'::jsonb`;
    candidate(
      1,
      events.created,
      wrap(
        sameType
          ? [
              ['created', 'true'],
              ['changedFields', all],
            ]
          : [],
      ),
      'e.inserted',
    );
  }
  if (events.snapshot && events.changed) {
    candidate(
      1,
      events.changed,
      wrap([...(sameType ? [['created', 'false'] as const] : []), ['changedFields', 'to_jsonb(e.changed_)']]),
      'NOT e.inserted AND cardinality(e.changed_) > 0',
    );
  }
  if (events.phaseChanged && spec.phase) {
    const data = jsonObject([
      ['loadPermalink', 'e.load_permalink_'],
      ['from', '(e.before).phase'],
      ['to', 'e.phase'],
      ['status', `e.${q(spec.phase.statusColumn)}`],
      ['changedAt', eventTime('e.changed_at')],
    ]);
    candidate(2, events.phaseChanged, data, 'NOT e.inserted AND e.phase IS DISTINCT FROM (e.before).phase', 'effects');
  }
  events.transitions.forEach((t, i) => {
    candidate(3 + i, t.type, wrap([[t.name, `e.snap_ -> ${literal(t.name)}`]]), transitionNow(t, 'e'));
  });
  if (candidates.length) {
    ctes.push(eventsCte(candidates.join(' UNION ALL '), 'x.n, x.rank'));
  }
  if (events.phaseChanged && spec.phase) {
    ctes.push(`phases AS (
    INSERT INTO phase_changes (id, tenant_id, load_id, from_phase, to_phase, status, changed_at)
    SELECT gen_random_uuid(), e.tenant_id, e.id, CASE WHEN e.inserted THEN NULL ELSE (e.before).phase END, e.phase, e.${q(spec.phase.statusColumn)}, e.changed_at
    FROM effects e WHERE e.inserted OR e.phase IS DISTINCT FROM (e.before).phase ORDER BY e.n
  )`);
  }
  ctes.push(...loadSetCtes(upsertSetDeltas(spec, 'effects')));
  if (load) {
    ctes.push(
      activityCte(
        `SELECT e.tenant_id, e.load_id_ AS load_id, e.${activityColumn} AS at FROM effects e${spec.freshness === 'append_only' ? ' WHERE e.inserted' : ''}`,
      ),
    );
  }
  return ctes;
}

/**
 * The CTE inserting the change events in `candidates` (rows of `tenant_id`, `type`, `load_permalink`, `data`,
 * `at`), unnumbered, their ids taken in `order`. The id is taken explicitly, not by the column's default: a
 * Citus shard has no sequence default, and a write on the tenant's node inserts into the shard itself
 * (docs/decisions/0054-one-call-on-the-tenants-node.md).
 */
export function eventsCte(candidates: string, order: string): string {
  return `events AS (
    INSERT INTO load_events (id, tenant_id, seq, type, load_permalink, data, occurred_at)
    SELECT nextval('load_events_id_seq'), x.tenant_id, NULL, x.type, x.load_permalink, x.data, x.at FROM (${candidates}) x ORDER BY ${order}
  )`;
}

/**
 * The CTE moving the activity of the loads in `touched` (rows of `tenant_id`, `load_id`, `at`) forward
 * to their latest `at` (never back), one row per load, in load id order: every write takes the
 * activity rows it moves in that one order, so writers of any kinds cannot deadlock on them.
 */
export function activityCte(touched: string): string {
  return `activity AS (
    INSERT INTO load_activity AS a (tenant_id, load_id, last_activity_at)
    SELECT t.tenant_id, t.load_id, max(t.at) FROM (${touched}) t WHERE t.load_id IS NOT NULL GROUP BY t.tenant_id, t.load_id ORDER BY t.tenant_id, t.load_id
    ON CONFLICT (tenant_id, load_id) DO UPDATE SET last_activity_at = EXCLUDED.last_activity_at WHERE a.last_activity_at < EXCLUDED.last_activity_at
  )`;
}

/** One relation of deltas to a load-level set: rows of `tenant_id`, `load_id`, `key` and `delta`. */
export interface SetDeltas {
  set: LoadSet;
  sql: string;
}

/**
 * The deltas a write of stored rows makes to the load-level sets (docs/decisions/0036-load-city-set.md),
 * from `effects` (every column of each written row, `load_id_` its load after the write, `before` the
 * row as it was, locked before the write, or null when created now):
 * - a table with its own set (a stop): −1 for the row's key and load before, if it was live; +1 for its
 *   key and load after, if it is live (a new city, another leg, a revival, or nothing: they cancel);
 * - a table carrying a set (a leg whose stops are counted): when a written row's load changed, each live
 *   row under it counts −1 for the load before and +1 for the load after.
 */
function upsertSetDeltas(spec: RecordTable, effects: string): SetDeltas[] {
  if (!spec.loadSet && !spec.carried.length) return [];
  if (spec.freshness === 'append_only') throw new Error(`${spec.table}: an append-only table keeps no load-level set`);
  // The row before the write, with its load (through the parents it named then).
  const before = loadIdJoin(spec.loadPath, 'b');
  if (!before) throw new Error(`${spec.table}: a load-level set needs a way to the load`);
  const withBefore = `${effects} e CROSS JOIN LATERAL (SELECT (e.before).*) b${before.joins} WHERE (e.before).id IS NOT NULL`;
  const deltas: SetDeltas[] = [];
  if (spec.loadSet) {
    const key = q(spec.loadSet.key);
    deltas.push({
      set: spec.loadSet,
      sql:
        `SELECT e.tenant_id, e.load_id_ AS load_id, e.${key}::text AS key, 1 AS delta FROM ${effects} e WHERE e.deleted_at IS NULL` +
        ` UNION ALL SELECT b.tenant_id, ${before.id}, b.${key}::text, -1 FROM ${withBefore} AND b.deleted_at IS NULL`,
    });
  }
  for (const carried of spec.carried) {
    const moved = `SELECT e.tenant_id, e.id, e.load_id_ AS load_after, ${before.id} AS load_before FROM ${withBefore} AND ${before.id} IS DISTINCT FROM e.load_id_`;
    deltas.push({
      set: carried.set,
      sql:
        `SELECT m.tenant_id, v.load_id, c.${q(carried.set.key)}::text AS key, v.delta FROM (${moved}) m` +
        ` CROSS JOIN LATERAL (VALUES (m.load_after, 1), (m.load_before, -1)) v(load_id, delta)` +
        ` JOIN ${q(carried.table)} c ON c.tenant_id = ${tenantParam} AND c.tenant_id = m.tenant_id AND c.${q(carried.column)} = m.id AND c.deleted_at IS NULL`,
    });
  }
  return deltas;
}

/**
 * The CTEs applying deltas to load-level sets, one per set table: the deltas summed per (tenant, key,
 * load), those that cancel out dropped, each applied as an atomic increment of the stored count
 * (`ON CONFLICT … DO UPDATE`: two writers of one load and key add up; the row each delta comes from was
 * locked before the write, so its delta is exact, but for a stop written while a leg write moves its leg
 * to another load: decision 0036, "known gap"), in (tenant, key, load) order: every writer takes a set's
 * rows in one order, so writers cannot deadlock on them. A count that falls to 0 stays as a row.
 */
export function loadSetCtes(deltas: readonly SetDeltas[]): string[] {
  const tables = [...new Set(deltas.map((d) => d.set.table))];
  return tables.map((table) => {
    const { set } = deltas.find((d) => d.set.table === table)!;
    const all = deltas.filter((d) => d.set.table === table).map((d) => d.sql);
    return `set_${table} AS (
    INSERT INTO ${q(table)} AS s (tenant_id, ${q(set.key)}, load_id, ${q(set.count)})
    SELECT d.tenant_id, d.key, d.load_id, sum(d.delta)::int FROM (${all.join(' UNION ALL ')}) d
    WHERE d.key IS NOT NULL AND d.load_id IS NOT NULL
    GROUP BY d.tenant_id, d.key, d.load_id HAVING sum(d.delta) <> 0 ORDER BY d.tenant_id, d.key, d.load_id
    ON CONFLICT (tenant_id, ${q(set.key)}, load_id) DO UPDATE SET ${q(set.count)} = s.${q(set.count)} + EXCLUDED.${q(set.count)}
  )`;
  });
}
