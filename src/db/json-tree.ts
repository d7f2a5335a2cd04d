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
 * on the tenant as well as on its key. The models a tree may reach, with their tables, are the
 * caller's (`treeCompiler(tables)`; the domain derives them from the record-kind registry).
 */
import { getDatamodel } from './generated/pothos-types.js';

interface Field {
  name: string;
  kind: 'scalar' | 'enum' | 'object';
  type: string;
  isList: boolean;
  relationName?: string;
  relationFromFields?: string[];
}

const models = (getDatamodel() as unknown as { datamodel: { models: Record<string, { fields: Field[] }> } }).datamodel.models;

/**
 * The key column of a to-one relation besides tenant_id: every relation between records is keyed by
 * (tenantId, <parent>Id) (docs/decisions/0033-tenant-leading-keys.md), and every join here matches
 * the tenant on both sides by `tenant_id = $1` already. Undefined on the to-many side.
 */
const keyOf = (field: Field) => {
  const key = field.relationFromFields?.filter((name) => name !== 'tenantId');
  return key?.length === 1 ? key[0] : undefined;
};

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

/**
 * A Prisma `where` as one SQL condition on the row at `alias`, with Prisma's matching: `AND` / `OR`,
 * scalars by value (`field: value`, `null`) or by `equals` / `in` / `gte` / `gt` / `lte` / `lt` /
 * `contains` / `not: null` (`mode: 'insensitive'` compares with `ILIKE`, as Prisma does on
 * PostgreSQL; as there, the operand is a pattern, which callers build with `likeLiteral`), relations
 * by `some` (to-many) and `is` (to-one), each filtered on the tenant as well.
 * Anything else is unsupported.
 */
function conditionSql(model: string, alias: string, where: unknown, ctx: Context): string {
  if (!isObject(where)) throw unsupported;
  const parts = Object.entries(where).map(([key, value]) => {
    if (key === 'OR') {
      const served = orAsUnion(model, alias, Array.isArray(value) ? value : [value], ctx);
      if (served) return served;
    }
    if (key === 'AND' || key === 'OR') {
      const list = (Array.isArray(value) ? value : [value]).map((inner) => conditionSql(model, alias, inner, ctx));
      if (!list.length) return key === 'AND' ? 'true' : 'false';
      return `(${list.join(key === 'AND' ? ' AND ' : ' OR ')})`;
    }
    const field = models[model]!.fields.find((f) => f.name === key);
    if (!field) throw unsupported;
    return field.kind === 'object' ? relationCondition(alias, field, value, ctx) : scalarCondition(alias, field, value, ctx);
  });
  return parts.length ? parts.join(' AND ') : 'true';
}

/**
 * An OR whose arms reach related rows (`legs: { some: … }`) as `alias.id IN (one SELECT per table,
 * UNION ALL)`: the row's own arms in one SELECT of its table, each relation's in one SELECT of the
 * related table giving the key back. `a OR EXISTS (…)` makes PostgreSQL test every row of the tenant; in
 * this form each SELECT is served by its table's indexes (the trigram indexes for `search`, migration
 * `cost`) and only the matching ids are joined. Null when the OR has no such arm, or one this form does
 * not know (a to-one relation, an arm mixing own fields and relations): then the plain OR.
 */
function orAsUnion(model: string, alias: string, arms: unknown[], ctx: Context): string | null {
  const table = ctx.tables[model];
  if (!table || !arms.length) return null;
  const own: unknown[] = [];
  const related: { field: Field; inner: unknown }[] = [];
  for (const arm of arms) {
    if (!isObject(arm)) throw unsupported;
    const entries = Object.entries(arm);
    const field = entries.length === 1 ? models[model]!.fields.find((f) => f.name === entries[0]![0]) : undefined;
    if (field?.kind === 'object') {
      const value = entries[0]![1];
      if (!field.isList || !isObject(value) || Object.keys(value).length !== 1 || !('some' in value)) return null;
      related.push({ field, inner: value.some });
    } else {
      if (entries.some(([name]) => models[model]!.fields.find((f) => f.name === name)?.kind === 'object')) return null;
      own.push(arm);
    }
  }
  if (!related.length) return null;
  const selects: string[] = [];
  if (own.length) {
    const self = `t${++ctx.aliases}`;
    selects.push(
      `SELECT ${self}.id FROM ${quote(table)} ${self} WHERE ${self}.tenant_id = ${ctx.tenantParam} AND ${conditionSql(model, self, { OR: own }, ctx)}`,
    );
  }
  for (const { field, inner } of related) {
    const back = models[field.type]!.fields.find((f) => f.relationName === field.relationName && keyOf(f));
    const childTable = ctx.tables[field.type];
    if (!back || !childTable) throw unsupported;
    const child = `t${++ctx.aliases}`;
    selects.push(
      `SELECT ${child}.${quote(columnOf(keyOf(back)!))} FROM ${quote(childTable)} ${child} WHERE ${child}.tenant_id = ${ctx.tenantParam} AND ${conditionSql(field.type, child, inner, ctx)}`,
    );
  }
  return `${alias}.id IN (${selects.join(' UNION ALL ')})`;
}

function scalarCondition(alias: string, field: Field, value: unknown, ctx: Context): string {
  const raw = `${alias}.${quote(columnOf(field.name))}`;
  const column = field.kind === 'enum' ? `${raw}::text` : raw;
  const param = (v: unknown) => {
    if (field.type === 'DateTime') return v instanceof Date ? `${ctx.param(v.toISOString())}::timestamptz` : fail();
    return typeof v === 'string' || typeof v === 'number' || typeof v === 'boolean' ? ctx.param(v) : fail();
  };
  if (value === null) return `${raw} IS NULL`;
  if (!isObject(value) || value instanceof Date) return `${column} = ${param(value)}`;
  const { mode, ...ops } = value;
  if (mode !== undefined && mode !== 'insensitive' && mode !== 'default') throw unsupported;
  const insensitive = mode === 'insensitive';
  const parts = Object.entries(ops).map(([op, operand]) => {
    switch (op) {
      case 'equals':
        return operand === null ? `${raw} IS NULL` : `${column} ${insensitive ? 'ILIKE' : '='} ${param(operand)}`;
      case 'contains':
        return `${column} ${insensitive ? 'ILIKE' : 'LIKE'} ('%' || ${param(operand)} || '%')`;
      case 'in':
        if (!Array.isArray(operand)) throw unsupported;
        return operand.length ? `${column} IN (${operand.map(param).join(', ')})` : 'false';
      case 'gte':
      case 'gt':
      case 'lte':
      case 'lt':
        return `${column} ${{ gte: '>=', gt: '>', lte: '<=', lt: '<' }[op]} ${param(operand)}`;
      case 'not':
        if (operand !== null) throw unsupported;
        return `${raw} IS NOT NULL`;
      default:
        throw unsupported;
    }
  });
  if (!parts.length) throw unsupported;
  return parts.join(' AND ');
}

/** `relation: { some: … }` (to-many) or `relation: { is: … }` (to-one): a related row of the tenant matches. */
function relationCondition(alias: string, field: Field, value: unknown, ctx: Context): string {
  if (!isObject(value) || Object.keys(value).length !== 1) throw unsupported;
  const [op, inner] = Object.entries(value)[0]!;
  if (op !== (field.isList ? 'some' : 'is')) throw unsupported;
  const { table, child, join } = relationJoin(alias, field, ctx);
  return `EXISTS (SELECT 1 FROM ${quote(table)} ${child} WHERE ${join} AND ${child}.tenant_id = ${ctx.tenantParam} AND ${conditionSql(field.type, child, inner, ctx)})`;
}

/** The table of a relation's target, a fresh alias for it, and the condition joining it to the row at `alias`. */
function relationJoin(alias: string, field: Field, ctx: Context): { table: string; child: string; join: string } {
  const table = ctx.tables[field.type];
  if (!table) throw unsupported;
  const child = `t${++ctx.aliases}`;
  const key = keyOf(field);
  if (key) {
    // to-one: this row holds the key
    return { table, child, join: `${child}.id = ${alias}.${quote(columnOf(key))}` };
  }
  const back = models[field.type]!.fields.find((f) => f.relationName === field.relationName && keyOf(f));
  if (!back) throw unsupported;
  return { table, child, join: `${child}.${quote(columnOf(keyOf(back)!))} = ${alias}.id` };
}

/** The models a tree may reach, with their tables (columns are the snake_case of the field names). */
export type TreeTables = Readonly<Record<string, string>>;

interface Context {
  tables: TreeTables;
  tenantParam: string;
  /** Adds a parameter and returns its placeholder (a selection tree takes none: its conditions are `null` checks). */
  param: (value: unknown) => string;
  aliases: number;
}

/**
 * The row of `model` at `alias` with the scalars and relations `args` asks for, as a SELECT list
 * (`expr AS "field", …`) and its decoder.
 */
function selectList(model: string, alias: string, args: Args, ctx: Context, extra: Set<string>): { list: string; decode: Decoder } {
  const fields = models[model]?.fields;
  if (!fields || !ctx.tables[model]) throw unsupported;
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
  const { table, child, join } = relationJoin(alias, field, ctx);
  const row = `r${ctx.aliases}`;
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
  const where = [join, `${child}.tenant_id = ${ctx.tenantParam}`, ...(args.where === undefined ? [] : [conditionSql(target, child, args.where, ctx)])];
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
 * The tree compiler over `tables`: the SELECT list for rows of `model` at `alias` with the relations
 * and scalars of `args` (Prisma's `include` / `select` form), or null when the tree uses something
 * this reader does not know. `tenantParam` is the SQL parameter holding the tenant id (e.g. `$1`).
 */
export function treeCompiler(tables: TreeTables) {
  return function compileTree(
    model: string,
    alias: string,
    args: { include?: unknown; select?: unknown },
    tenantParam: string,
    extra: readonly string[] = [],
  ): { list: string; decode: Decoder } | null {
    try {
      return selectList(model, alias, args, { tables, tenantParam, aliases: 0, param: fail }, new Set(extra));
    } catch (error) {
      if (error === unsupported) return null;
      throw error;
    }
  };
}

/** Whether the Prisma datamodel has `model` with a tenant key (every table a tree reads is filtered on it). */
export const isTenantModel = (model: string) => Boolean(models[model]?.fields.some((field) => field.name === 'tenantId'));

/**
 * The where compiler over `tables`: a Prisma `where` of `model` (see `conditionSql` for what it
 * understands) as one SQL condition on the row at `alias`. What it does not understand is a fault of
 * the caller's definition, thrown (never a silent fallback). `param` adds a parameter and returns its placeholder.
 */
export function whereCompiler(tables: TreeTables) {
  return function compileWhere(model: string, alias: string, where: unknown, tenantParam: string, param: (value: unknown) => string): string {
    try {
      return conditionSql(model, alias, where, { tables, tenantParam, aliases: 0, param });
    } catch (error) {
      if (error === unsupported) throw new Error(`json-tree: a ${model} where the SQL compiler does not know: ${JSON.stringify(where)}`, { cause: error });
      throw error;
    }
  };
}

/**
 * The keys of a Prisma `orderBy` of `model` (scalar fields, one per entry, or a to-one relation's
 * scalar: `{ activity: { lastActivityAt: 'desc' } }`, then `relation` names it), with their columns and directions.
 */
export function orderKeys(
  model: string,
  orderBy: readonly Record<string, unknown>[],
): { field: string; column: string; direction: 'ASC' | 'DESC'; relation?: string }[] {
  return orderBy.map((entry) => {
    const [name, sort] = Object.entries(entry)[0] ?? [];
    const field = models[model]?.fields.find((f) => f.name === name);
    if (field?.kind === 'object' && !field.isList && isObject(sort) && Object.keys(entry).length === 1) {
      const [inner] = orderKeys(field.type, [sort]);
      return { ...inner!, relation: field.name };
    }
    if (!field || field.kind === 'object' || (sort !== 'asc' && sort !== 'desc') || Object.keys(entry).length !== 1) {
      throw new Error(`json-tree: an orderBy of ${model} the SQL compiler does not know: ${JSON.stringify(entry)}`);
    }
    return { field: field.name, column: columnOf(field.name), direction: sort === 'asc' ? 'ASC' : 'DESC' };
  });
}

/** The join of a to-one relation of `model` from the row at `alias` to `child` (its table, matched on the tenant too). */
export function toOneJoin(model: string, relation: string, alias: string, child: string, tables: TreeTables): string {
  const field = models[model]?.fields.find((f) => f.name === relation);
  if (!field || field.kind !== 'object' || field.isList) throw new Error(`json-tree: ${model}.${relation} is no to-one relation`);
  const { table, child: inner, join } = relationJoin(alias, field, { tables, tenantParam: '', param: fail, aliases: 0 });
  return `LEFT JOIN ${quote(table)} ${child} ON ${child}.tenant_id = ${alias}.tenant_id AND ${join.replaceAll(`${inner}.`, `${child}.`)}`;
}
