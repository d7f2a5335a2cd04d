/**
 * Reads a Prisma-style relation tree (the `include` / `select` that @pothos/plugin-prisma plans for a
 * GraphQL selection) in one SQL statement: PostgreSQL builds each row's nested relations as JSON
 * (`row_to_json`, `json_agg`, `LIMIT` per relation), so no ORM maps rows or joins relations in
 * memory. The result has the shape Prisma would return for the same arguments (field names, `Date`
 * for DateTime, parsed JSON), so the GraphQL resolvers read it unchanged.
 *
 * Only the arguments the read side plans are understood (relations by foreign key, `orderBy` on
 * scalar fields, `take`, `where` of `field: null` / `field: { not: null }`); anything else makes
 * `compileTree` answer null and the caller asks Prisma instead. Every nested relation is filtered
 * on the tenant as well as on its key.
 */
import { getDatamodel } from './generated/pothos-types.js';

/** The models a tree may reach, with their tables (columns are the snake_case of the field names). */
const tables: Readonly<Record<string, string>> = {
  Load: 'loads',
  LoadLeg: 'load_legs',
  Carrier: 'carriers',
  Stop: 'stops',
  LoadUpdate: 'load_updates',
  PhaseChange: 'phase_changes',
};

interface Field {
  name: string;
  kind: 'scalar' | 'enum' | 'object';
  type: string;
  isList: boolean;
  relationName?: string;
  relationFromFields?: string[];
}

const models = (getDatamodel() as unknown as { datamodel: { models: Record<string, { fields: Field[] }> } }).datamodel.models;

const columnOf = (field: string) => field.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
const quote = (name: string) => `"${name.replaceAll('"', '""')}"`;

/** How one model's JSON row turns into Prisma's value: DateTime columns arrive as epoch milliseconds. */
type Decoder = (row: Record<string, unknown>) => void;

export interface CompiledTree {
  /** The JSON of one row of `alias`: `(SELECT row_to_json(…) …)`. */
  json: string;
  decode: Decoder;
}

type Args = Record<string, unknown>;

const isObject = (value: unknown): value is Args => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The SQL of a scalar column as it goes into the JSON (timestamps as epoch milliseconds). */
function scalarSql(alias: string, field: Field): string {
  const column = `${alias}.${quote(columnOf(field.name))}`;
  if (field.kind === 'scalar' && field.type === 'DateTime') return `(extract(epoch from ${column}) * 1000)::int8`;
  if (field.kind === 'scalar' && !['String', 'Int', 'Float', 'Boolean', 'Json'].includes(field.type)) throw unsupported;
  return column;
}

const unsupported = new Error('unsupported tree');

/** `ORDER BY` entries of an orderBy argument (scalar fields only), on the JSON row's keys. */
function orderSql(model: string, orderBy: unknown, alias: string, needed: Set<string>, byField = false): string[] {
  const entries = Array.isArray(orderBy) ? orderBy : orderBy === undefined ? [] : [orderBy];
  return entries.map((entry) => {
    if (!isObject(entry) || Object.keys(entry).length !== 1) throw unsupported;
    const [name, spec] = Object.entries(entry)[0]!;
    const field = models[model]!.fields.find((f) => f.name === name);
    if (!field || field.kind === 'object') throw unsupported;
    needed.add(name);
    const sort = typeof spec === 'string' ? spec : isObject(spec) ? spec.sort : undefined;
    const nulls = isObject(spec) ? spec.nulls : undefined;
    if (sort !== 'asc' && sort !== 'desc') throw unsupported;
    if (nulls !== undefined && nulls !== 'first' && nulls !== 'last') throw unsupported;
    return `${alias}.${quote(byField ? name : columnOf(name))} ${sort.toUpperCase()}${nulls ? ` NULLS ${String(nulls).toUpperCase()}` : ''}`;
  });
}

/** `where` of a nested relation: `{ field: null }` and `{ field: { not: null } }` only. */
function whereSql(model: string, where: unknown, alias: string): string[] {
  if (where === undefined) return [];
  if (!isObject(where)) throw unsupported;
  return Object.entries(where).map(([name, value]) => {
    const field = models[model]!.fields.find((f) => f.name === name);
    if (!field || field.kind === 'object') throw unsupported;
    const column = `${alias}.${quote(columnOf(name))}`;
    if (value === null) return `${column} IS NULL`;
    if (isObject(value) && Object.keys(value).length === 1 && value.not === null) return `${column} IS NOT NULL`;
    throw unsupported;
  });
}

interface Context {
  tenantParam: string;
  aliases: number;
}

/**
 * The row of `model` at `alias` with the scalars and relations `args` asks for, as a SELECT list
 * (`expr AS "field", …`) and its decoder.
 */
function selectList(model: string, alias: string, args: Args, ctx: Context, extra: Set<string>): { list: string; decode: Decoder } {
  const fields = models[model]?.fields;
  if (!fields || !tables[model]) throw unsupported;
  for (const key of Object.keys(args)) if (!['select', 'include', 'orderBy', 'take', 'where', 'skip'].includes(key)) throw unsupported;
  if (args.select !== undefined && args.include !== undefined) throw unsupported;
  const picked: Args = isObject(args.select) ? args.select : isObject(args.include) ? args.include : {};
  if (args.select !== undefined && !isObject(args.select)) throw unsupported;
  if (args.include !== undefined && !isObject(args.include)) throw unsupported;
  const allScalars = args.select === undefined;
  const parts: string[] = [];
  const dates: string[] = [];
  const nested: [string, Decoder, boolean][] = [];
  for (const field of fields) {
    if (field.kind === 'object') continue;
    if (!allScalars && picked[field.name] !== true && !extra.has(field.name)) continue;
    parts.push(`${scalarSql(alias, field)} AS ${quote(field.name)}`);
    if (field.type === 'DateTime') dates.push(field.name);
  }
  for (const [name, value] of Object.entries(picked)) {
    if (value === false || value === undefined) continue;
    const field = fields.find((f) => f.name === name);
    if (!field) throw unsupported;
    if (field.kind !== 'object') {
      if (value !== true) throw unsupported;
      continue;
    }
    const relation = relationSql(model, alias, field, value === true ? {} : isObject(value) ? value : fail(), ctx);
    parts.push(`${relation.json} AS ${quote(name)}`);
    nested.push([name, relation.decode, field.isList]);
  }
  if (!parts.length) throw unsupported;
  const decode: Decoder = (row) => {
    for (const name of dates) {
      const value = row[name];
      if (value != null) row[name] = new Date(value as number);
    }
    for (const [name, decodeChild, isList] of nested) {
      const value = row[name];
      if (isList) for (const child of value as Record<string, unknown>[]) decodeChild(child);
      else if (value) decodeChild(value as Record<string, unknown>);
    }
  };
  return { list: parts.join(', '), decode };
}

const fail = (): never => {
  throw unsupported;
};

/** One relation of the row at `alias`: a JSON array (to-many) or object / null (to-one). */
function relationSql(model: string, alias: string, field: Field, args: Args, ctx: Context): CompiledTree {
  const target = field.type;
  const table = tables[target];
  if (!table) throw unsupported;
  const child = `t${++ctx.aliases}`;
  const row = `r${ctx.aliases}`;
  let join: string;
  if (field.relationFromFields?.length === 1) {
    // to-one: this row holds the key
    join = `${child}.id = ${alias}.${quote(columnOf(field.relationFromFields[0]!))}`;
  } else {
    const back = models[target]!.fields.find((f) => f.relationName === field.relationName && f.relationFromFields?.length === 1);
    if (!back) throw unsupported;
    join = `${child}.${quote(columnOf(back.relationFromFields![0]!))} = ${alias}.id`;
  }
  if (!field.isList) {
    if (args.orderBy !== undefined || args.take !== undefined || args.where !== undefined || args.skip !== undefined) throw unsupported;
    const { list, decode } = selectList(target, child, args, ctx, new Set());
    return {
      json: `(SELECT row_to_json(${row}) FROM (SELECT ${list} FROM ${quote(table)} ${child} WHERE ${join} AND ${child}.tenant_id = ${ctx.tenantParam}) ${row})`,
      decode,
    };
  }
  if (args.skip !== undefined && args.skip !== 0) throw unsupported;
  const take = args.take;
  if (take !== undefined && !(Number.isInteger(take) && (take as number) >= 0)) throw unsupported;
  const sortKeys = new Set<string>();
  const inner = orderSql(target, args.orderBy, child, sortKeys);
  const outer = orderSql(target, args.orderBy, row, new Set(), true);
  const where = [join, `${child}.tenant_id = ${ctx.tenantParam}`, ...whereSql(target, args.where, child)];
  const { list, decode } = selectList(target, child, args, ctx, sortKeys);
  // The outer ORDER BY reads the JSON row's own columns (the sort keys are always selected), so the
  // array's order does not depend on how PostgreSQL feeds the aggregate.
  const outerOrder = outer.length ? ` ORDER BY ${outer.join(', ')}` : '';
  const json =
    `(SELECT coalesce(json_agg(${row}${outerOrder}), '[]') FROM (SELECT ${list} FROM ${quote(table)} ${child} WHERE ${where.join(' AND ')}` +
    `${inner.length ? ` ORDER BY ${inner.join(', ')}` : ''}${take !== undefined ? ` LIMIT ${take as number}` : ''}) ${row})`;
  return { json, decode };
}

/**
 * The SELECT list for rows of `model` at `alias` with the relations and scalars of `args` (Prisma's
 * `include` / `select` form), or null when the tree uses something this reader does not know.
 * `tenantParam` is the SQL parameter holding the tenant id (e.g. `$1`).
 */
export function compileTree(
  model: string,
  alias: string,
  args: { include?: unknown; select?: unknown },
  tenantParam: string,
  extra: readonly string[] = [],
): { list: string; decode: Decoder } | null {
  try {
    return selectList(model, alias, args, { tenantParam, aliases: 0 }, new Set(extra));
  } catch (error) {
    if (error === unsupported) return null;
    throw error;
  }
}
