/**
 * What the compiled reads (graphql/compiled-read.ts, docs/decisions/0034-compiled-load-page.md) answer
 * of loads: the root fields `loads` and `load`, and the types `Load`, `LoadLeg`, `Stop`, `LoadUpdate`,
 * `PhaseChange` and `Location` with the fields listed below, each the SQL of its JSON with the same
 * meaning as its resolver (graphql.ts, activity-graphql.ts and the other kinds' graphql.ts files).
 * Every table is matched on the tenant, in every subquery and join. A field not listed here (each
 * record's `history`, …) leaves the whole operation to the resolvers.
 */
import { jsonFirst, jsonList, orderBySql, uriComponent } from '../../db/json-tree.js';
import { isoInstant, literal } from '../../db/sql-text.js';
import { connectionSql, type OrderKey } from '../../graphql/compiled-connection.js';
import { columnFields, compiledRoot, compiledType, objectSql, parentOf, type Scope } from '../../graphql/compiled-read.js';
import { likeLiteral } from '../../db/like.js';
import { statusKey } from '../status-mapping/service.js';
import { legOrder, stopOrder, updateOrder, type LoadFilter, type LoadOrder } from './queries.js';

/**
 * THE activity source of compiled reads: where a load's latest activity is read for `lastActivityAt`,
 * `activitySince` and `ACTIVITY_DESC`: its row of `load_activity` (decision 0032), which every load the
 * service writes has. The list joins it (so `ACTIVITY_DESC` walks the activity index and stops at the
 * page); the field reads it by key, falling back to the load's `changed_at` as its resolver does.
 */
export const loadActivity = {
  /**
   * FROM-clause text joining the activity of the load at `load` as `activity`. The tenant is matched by its
   * parameter (`tenant`) as well as by the load's column: a Citus coordinator routes a statement to one shard
   * only when every distributed table in it is filtered on the same constant tenant (a correlation on
   * `${load}.tenant_id` alone, beside a set-returning function elsewhere in the statement, is refused:
   * "complex joins are only supported when all distributed tables are co-located…").
   */
  join: (load: string, activity: string, tenant: string) =>
    ` JOIN load_activity ${activity} ON ${activity}.tenant_id = ${tenant} AND ${activity}.tenant_id = ${load}.tenant_id AND ${activity}.load_id = ${load}.id`,
  /** The activity instant of the load at `load`, with `join` applied. */
  at: (_load: string, activity: string) => `${activity}.last_activity_at`,
  /** The same as a value of the load row alone (for the field), the tenant matched as in `join`. */
  of: (load: string, tenant: string) =>
    `coalesce((SELECT x.last_activity_at FROM load_activity x WHERE x.tenant_id = ${tenant} AND x.tenant_id = ${load}.tenant_id AND x.load_id = ${load}.id), ${load}.changed_at)`,
};

/** The rows of `table` at alias `a` of the tenant, with more conditions. */
const rowsOf = (table: string, a: string, scope: Scope, ...conditions: string[]) =>
  `${table} ${a} WHERE ${[`${a}.tenant_id = ${scope.tenantParam}`, ...conditions].join(' AND ')}`;

/** The load's live legs at alias `g`, and their order (`legOrder`, then the id). */
const liveLegs = (row: string, g: string, scope: Scope) => rowsOf('load_legs', g, scope, `${g}.load_id = ${row}.id`, `${g}.deleted_at IS NULL`);
const legsInOrder = (g: string) => `${orderBySql(legOrder, g)}, ${g}.id`;

/** The JSON of the load's newest update (in `updateOrder`) meeting `conditions`, or null. */
const latestUpdate = (row: string, scope: Scope, value: (u: string) => string, conditions: (u: string) => string[] = () => []) => {
  const u = scope.alias('u');
  return jsonFirst({
    value: value(u),
    rows: rowsOf('load_updates', u, scope, `${u}.load_id = ${row}.id`, ...conditions(u)),
    order: orderBySql(updateOrder, u),
  });
};

compiledType('Load', {
  lastActivityAt: (row, _selection, scope) => isoInstant(loadActivity.of(row, scope.tenantParam)),
  // The tenant's template with `{key}` replaced by the URL-encoded key of the first live leg that has one.
  tmsUrl: (row, _selection, scope) => {
    const template = scope.tenant.tmsUrlTemplate;
    if (!template) return 'NULL';
    const g = scope.alias('g');
    return jsonFirst({
      value: `replace(${scope.param(template)}::text, '{key}', ${uriComponent(`${g}.load_unique_key`)})`,
      rows: `${liveLegs(row, g, scope)} AND ${g}.load_unique_key <> ''`,
      order: legsInOrder(g),
    });
  },
  legs: (row, selection, scope) => {
    const g = scope.alias('g');
    return jsonList({ value: objectSql('LoadLeg', g, selection.selections, scope), rows: liveLegs(row, g, scope), order: legsInOrder(g) });
  },
  updates: (row, selection, scope) => {
    // Default 10; a size out of range never gets here (compiled-read.ts leaves it to the resolvers' error).
    const first = (selection.args.first as number | null | undefined) ?? 10;
    const u = scope.alias('u');
    return jsonList({
      value: objectSql('LoadUpdate', u, selection.selections, scope),
      rows: rowsOf('load_updates', u, scope, `${u}.load_id = ${row}.id`),
      order: orderBySql(updateOrder, u),
      limit: first,
    });
  },
  phaseHistory: (row, selection, scope) => {
    const h = scope.alias('h');
    return jsonList({
      value: objectSql('PhaseChange', h, selection.selections, scope),
      rows: rowsOf('phase_changes', h, scope, `${h}.load_id = ${row}.id`),
      order: `${h}.changed_at ASC, ${h}.id ASC`,
    });
  },
  lastUpdate: (row, selection, scope) => latestUpdate(row, scope, (u) => objectSql('LoadUpdate', u, selection.selections, scope)),
  lastLocation: (row, selection, scope) =>
    latestUpdate(
      row,
      scope,
      (u) => objectSql('Location', u, selection.selections, scope),
      (u) => [`${u}.latitude IS NOT NULL`, `${u}.longitude IS NOT NULL`],
    ),
  // The first stop without `departedAt` of the first live leg (in leg order) that has one.
  nextStop: (row, selection, scope) => {
    const [g, s] = [scope.alias('g'), scope.alias('s')];
    return jsonFirst({
      value: objectSql('Stop', s, selection.selections, scope),
      rows:
        `load_legs ${g} JOIN stops ${s} ON ${s}.tenant_id = ${scope.tenantParam} AND ${s}.leg_id = ${g}.id` +
        ` WHERE ${g}.tenant_id = ${scope.tenantParam} AND ${g}.load_id = ${row}.id AND ${g}.deleted_at IS NULL AND ${s}.deleted_at IS NULL AND ${s}.departed_at IS NULL`,
      order: `${legsInOrder(g)}, ${orderBySql(stopOrder, s)}, ${s}.id`,
    });
  },
});

compiledType('LoadLeg', {
  // Null while the carrier is deleted.
  carrier: parentOf('Carrier', 'carriers', 'carrier_id', (c) => [`${c}.deleted_at IS NULL`]),
  stops: (row, selection, scope) => {
    const s = scope.alias('s');
    return jsonList({
      value: objectSql('Stop', s, selection.selections, scope),
      rows: rowsOf('stops', s, scope, `${s}.leg_id = ${row}.id`, `${s}.deleted_at IS NULL`),
      order: `${orderBySql(stopOrder, s)}, ${s}.id`,
    });
  },
});

// `Load.lastLocation`, read from the load update that has the position.
compiledType('Location', columnFields('LoadUpdate', ['latitude', 'longitude', 'occurredAt']));

/**
 * The load filter as SQL conditions on the load at a row alias (with `loadActivity.join` applied),
 * with the meaning of `loadFilterWhere` (queries.ts), which the resolvers give Prisma: each relation
 * part is served by an index (the load-level city set `load_cities` for `city`, legs by `carrier_id`,
 * the trigram indexes for `search`), never a probe of each candidate load's legs and stops.
 */
function loadFilterSql(filter: LoadFilter | null | undefined, scope: Scope): (row: string) => string {
  const T = scope.tenantParam;
  const parts: ((l: string) => string)[] = [(l) => `${l}.deleted_at IS NULL`];
  if (filter?.phase) {
    const phases = filter.phase.map(literal).join(', ');
    parts.push((l) => (phases ? `${l}.phase IN (${phases})` : 'false'));
  }
  const status = filter?.status ? statusKey(filter.status) : '';
  if (status) {
    const p = scope.param(status);
    parts.push((l) => `${l}.status_key = ${p}`);
  }
  if (filter?.changedSince) {
    const p = scope.param(filter.changedSince.toISOString());
    // Through the activity index (never before changed_at), compared on changed_at (as queries.ts).
    parts.push((l) => `${l}.changed_at >= ${p}::timestamptz AND ${loadActivity.at(l, `${l}a`)} >= ${p}::timestamptz`);
  }
  if (filter?.activitySince) {
    const p = scope.param(filter.activitySince.toISOString());
    parts.push((l) => `${loadActivity.at(l, `${l}a`)} >= ${p}::timestamptz`);
  }
  const carrier = filter?.carrier?.trim();
  if (carrier) {
    // The carrier's loads, found through its legs (the legs' carrier index), read once as a list of ids:
    // one carrier's loads are few, so the page and the count read those loads, not the tenant's.
    const p = scope.param(carrier);
    parts.push(
      (l) =>
        `${l}.id = ANY (ARRAY (SELECT g.load_id FROM load_legs g WHERE g.tenant_id = ${T} AND g.deleted_at IS NULL AND g.carrier_id =` +
        ` (SELECT c.id FROM carriers c WHERE c.tenant_id = ${T} AND c.permalink = ${p} AND c.deleted_at IS NULL)))`,
    );
  }
  const city = filter?.city?.trim();
  if (city) {
    // Any live stop in the city, read from the load-level set of stop cities that the writes keep
    // (`load_cities`, docs/decisions/0036-load-city-set.md): one probe of its key per candidate load, or
    // the city's range of it; PostgreSQL picks the side to start from by the city's frequency.
    const p = scope.param(city.toLowerCase());
    parts.push((l) => `EXISTS (SELECT FROM load_cities c WHERE c.tenant_id = ${T} AND c.city_key = ${p} AND c.load_id = ${l}.id AND c.stops > 0)`);
  }
  const term = filter?.search?.trim();
  if (term) {
    const p = `('%' || ${scope.param(likeLiteral(term))} || '%')`;
    parts.push(
      (l) =>
        `${l}.id IN (SELECT x.id FROM loads x WHERE x.tenant_id = ${T} AND (x.customer_reference_number ILIKE ${p} OR x.bol_number ILIKE ${p} OR x.po_number ILIKE ${p})` +
        ` UNION ALL SELECT g.load_id FROM load_legs g WHERE g.tenant_id = ${T} AND g.deleted_at IS NULL AND (g.reference_number ILIKE ${p} OR g.pickup_reference_number ILIKE ${p})` +
        ` UNION ALL SELECT g.load_id FROM stops s JOIN load_legs g ON g.tenant_id = ${T} AND g.id = s.leg_id` +
        ` WHERE s.tenant_id = ${T} AND s.deleted_at IS NULL AND g.deleted_at IS NULL AND s.reference_number ILIKE ${p})`,
    );
  }
  return (l) => parts.map((part) => part(l)).join(' AND ');
}

const byId: OrderKey = { sql: (l) => `${l}.id`, direction: 'DESC' };
const loadKeys: Record<LoadOrder, readonly OrderKey[]> = {
  CREATED_DESC: [{ sql: (l) => `${l}.created_at`, direction: 'DESC' }, byId],
  ACTIVITY_DESC: [{ sql: (l) => loadActivity.at(l, `${l}a`), direction: 'DESC' }, byId],
};

compiledRoot('loads', (selection, scope) => {
  const { filter, orderBy } = selection.args as { filter?: LoadFilter | null; orderBy?: LoadOrder | null };
  return connectionSql(
    {
      node: 'Load',
      table: 'loads',
      // Only an order or a filter on activity or on changedAt (read through the activity) joins it: a load stored
      // around the service has no activity row, and such a filter finds it no more than the resolvers' does.
      join: orderBy === 'ACTIVITY_DESC' || filter?.activitySince || filter?.changedSince ? (l) => loadActivity.join(l, `${l}a`, scope.tenantParam) : undefined,
      where: loadFilterSql(filter, scope),
      keys: loadKeys[orderBy ?? 'CREATED_DESC'],
    },
    selection,
    scope,
  );
});

compiledRoot('load', (selection, scope) => {
  const { permalink, includeDeleted } = selection.args as { permalink: string; includeDeleted?: boolean | null };
  const l = scope.alias('l');
  const conditions = [`${l}.permalink = ${scope.param(permalink)}`, ...(includeDeleted ? [] : [`${l}.deleted_at IS NULL`])];
  return jsonFirst({ value: objectSql('Load', l, selection.selections, scope), rows: rowsOf('loads', l, scope, ...conditions) });
});
