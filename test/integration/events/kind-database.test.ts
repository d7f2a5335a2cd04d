/**
 * The database half of "adding a kind has no hidden tail" (test/unit/kind-wiring.test.ts): what the
 * database does for each record kind comes from its declaration (`defineRecord`) through the write
 * statements (db/record-statements.ts, db/record-effects.ts), and nothing else acts behind them:
 * - every column of a kind's table is declared by the kind (a field, a parent) or is bookkeeping;
 * - a kind's event snapshot holds every column of its table but the ones its declaration omits, so a
 *   field added to a kind and missing from its events fails here;
 * - no trigger acts on a record table, and a bulk write of every kind (its events, phase history,
 *   payload history, activity, a delete's cascade) calls no database function per record
 *   (`pg_stat_xact_user_functions`, with `track_functions = 'all'`).
 */
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { buildDeleteStatement, buildUpsertStatement, type UpsertInput } from '../../../src/db/record-statements.js';
import type { ColumnSpec, RecordTable } from '../../../src/db/record-table.js';
import type { Sql } from '../../../src/db/database.js';
import { recordTableOf } from '../../../src/domain/ingestion/record-tables.js';
import { recordSpecOf, recordSpecs } from '../../../src/domain/registry.js';
import { camelCase } from '../../../src/domain/declaration/fields.js';
import type { RecordSpec } from '../../../src/domain/declaration/record.js';
import { createTestDatabase, onCitus, type TestDatabase } from '../../setup/database.js';

let database: TestDatabase;
let tenantId: string;
/** Each record table's columns: name and whether PostgreSQL generates it. */
let columnsOf: Map<string, { name: string; generated: boolean }[]>;
let enumLabels: Map<string, string>;

/** Columns every record table has for its own bookkeeping (no contract field). */
const bookkeeping = ['id', 'tenant_id', 'permalink', 'extra', 'fresh_at', 'changed_at', 'created_at', 'deleted_at', 'phase'];

beforeAll(async () => {
  database = await createTestDatabase();
  const sql = database.db.sql;
  const [tenant] = await sql.query<{ id: string }>(`INSERT INTO tenants (slug, name) VALUES ('kinds', 'Kinds') RETURNING id`, []);
  tenantId = tenant!.id;
  const rows = await sql.query<{ table: string; name: string; generated: string }>(
    `SELECT table_name AS "table", column_name AS name, is_generated AS generated FROM information_schema.columns WHERE table_schema = current_schema()`,
    [],
  );
  columnsOf = new Map();
  for (const row of rows) columnsOf.set(row.table, [...(columnsOf.get(row.table) ?? []), { name: row.name, generated: row.generated === 'ALWAYS' }]);
  const labels = await sql.query<{ type: string; label: string }>(
    `SELECT DISTINCT ON (t.typname) t.typname AS type, e.enumlabel AS label FROM pg_enum e JOIN pg_type t ON t.oid = e.enumtypid ORDER BY t.typname, e.enumsortorder`,
    [],
  );
  enumLabels = new Map(labels.map((row) => [row.type, row.label]));
});

afterAll(async () => database?.drop());

/** A value of every column type, none null (an enum's first value). */
function valueOf(column: ColumnSpec, n: number): unknown {
  if (column.type === 'int') return n;
  if (column.type === 'float8') return n + 0.5;
  if (column.type === 'timestamptz') return new Date(Date.UTC(2026, 0, 1, 0, 0, n)).toISOString();
  if (column.type === 'jsonb') return { n };
  if (column.type.startsWith('"')) return enumLabels.get(column.type.slice(1, -1));
  return `v${n}`;
}

/** Every column of the table set to a value of its type, by column name. */
const fullValues = (table: RecordTable) => Object.fromEntries(table.columns.map((c, i) => [c.column, valueOf(c, i + 1)]));

/** The table's parents' permalinks by column, from permalinks by parent table. */
const parentsOf = (table: RecordTable, parents: Record<string, string>) => Object.fromEntries(table.parents.map((p) => [p.column, parents[p.table] ?? null]));

/** Writes one record of the kind with every column set and its parents named; returns its permalink. */
async function writeFull(sql: Sql, spec: RecordSpec, parents: Record<string, string>, suffix = '', now = new Date()): Promise<string> {
  const table = recordTableOf(spec);
  const statement = buildUpsertStatement(table);
  const permalink = `${spec.kind}${suffix}-kinds`;
  const input: UpsertInput = {
    tenantId,
    now,
    syncRunTime: null,
    present: [...table.columns.map((c) => c.column), ...table.parents.map((p) => p.column)],
    rows: [{ permalink, values: fullValues(table), parents: parentsOf(table, parents), extra: {} }],
  };
  const rows = await sql.query<{ inserted: boolean | null }>(statement.text, statement.params(input), statement.name);
  expect(rows[0]?.inserted, `${spec.kind}: written`).not.toBeNull();
  return permalink;
}

/** The permalinks of one record of every kind, parents first (registry order). */
async function writeEveryKind(sql: Sql, suffix = ''): Promise<Record<string, string>> {
  const written: Record<string, string> = {};
  for (const spec of recordSpecs) written[spec.table] = await writeFull(sql, spec, written, suffix);
  return written;
}

describe.each(recordSpecs.map((spec) => [spec.kind, spec] as const))('record kind %s: its table and its declaration agree', (kind, spec) => {
  test('every column of the table is a declared field, a parent or bookkeeping', () => {
    const declared = new Set([...Object.values(spec.columns).map((c) => c.column), ...spec.parents.map((p) => p.column), ...bookkeeping]);
    const columns = columnsOf.get(spec.table) ?? [];
    expect(columns.length, `no table ${spec.table}`).toBeGreaterThan(0);
    const undeclared = columns.filter((c) => !c.generated && !declared.has(c.name)).map((c) => c.name);
    expect(undeclared, `${spec.table}: columns domain/${kind}/schema.ts does not declare`).toEqual([]);
  });
});

const withSnapshots = recordSpecs.filter((spec) => spec.events.snapshot !== null);

describe.each(withSnapshots.map((spec) => [spec.kind, spec] as const))('record kind %s: its events', (kind, spec) => {
  test("its events' snapshot holds every column of the table but those the declaration hides", async () => {
    const written = await writeEveryKind(database.db.sql, `-${kind}`);
    const [event] = await database.db.sql.query<{ data: Record<string, Record<string, unknown>> }>(
      `SELECT data FROM load_events WHERE tenant_id = $1::uuid AND type = $2 AND data -> $3 ->> 'permalink' = $4 ORDER BY id LIMIT 1`,
      [tenantId, spec.events.created, spec.events.snapshot, written[spec.table]],
    );
    const snapshot = event!.data[spec.events.snapshot!]!;
    const omitted = new Set((spec.hidden ?? []).map((field) => spec.columns[field]?.column ?? spec.parents.find((p) => p.field === field)?.column));
    const parentColumns = new Set(spec.parents.map((p) => p.column));
    const expected = (columnsOf.get(spec.table) ?? [])
      .filter((c) => !c.generated && !omitted.has(c.name) && !['id', 'tenant_id', 'fresh_at', 'deleted_at'].includes(c.name))
      .map((c) => (parentColumns.has(c.name) ? camelCase(`${c.name.replace(/_id$/, '')}_permalink`) : camelCase(c.name)));
    expect(Object.keys(snapshot).sort(), `${spec.table}: the ${spec.events.created} snapshot`).toEqual(expected.sort());
    for (const [name, value] of Object.entries(snapshot)) expect(value, `${spec.events.created}: ${name}`).not.toBeNull();
  });
});

describe('no procedural work per record', () => {
  test('no trigger acts on a record table or on what a write records', async () => {
    const tables = [...recordSpecs.map((spec) => spec.table), 'load_activity', 'load_cities', 'load_events', 'phase_changes', 'payload_history'];
    const triggers = await database.db.sql.query<{ table: string; name: string }>(
      `SELECT c.relname AS "table", t.tgname AS name FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid WHERE NOT t.tgisinternal AND c.relname = ANY($1::text[])`,
      [tables],
    );
    expect(triggers).toEqual([]);
  });

  test('no foreign key checks the tenant of each row a write records (a trigger per row, a lock on the tenant)', async () => {
    const tables = [...recordSpecs.map((spec) => spec.table), 'load_activity', 'load_events', 'phase_changes', 'payload_history', 'field_coverage'];
    const toTenants = await database.db.sql.query<{ table: string; name: string }>(
      `SELECT conrelid::regclass::text AS "table", conname AS name FROM pg_constraint
       WHERE contype = 'f' AND confrelid = 'tenants'::regclass AND conrelid::regclass::text = ANY($1::text[]) ORDER BY 1`,
      [tables],
    );
    expect(toTenants).toEqual([]);
  });

  test.skipIf(onCitus())(
    'bulk writes of every kind, their events, history, activity and a cascading delete call no function (not on Citus: its coordinator calls its own functions, read_intermediate_result, per subplan)',
    async () => {
      const calls = await database.db.rehearse(async (sql) => {
        await sql.query(`SET LOCAL track_functions = 'all'`, []);
        // Status mappings, so the phase lookups find some.
        await sql.query(`INSERT INTO status_mappings (tenant_id, status, status_key, phase) VALUES ($1::uuid, 'v2', 'v2', 'COVERED')`, [tenantId]);
        for (let i = 0; i < 20; i++) await writeEveryKind(sql, `-bulk${i}`);
        const load = buildDeleteStatement(recordTableOf(recordSpecOf.load), { history: true });
        const input: UpsertInput = {
          tenantId,
          now: new Date(),
          syncRunTime: null,
          present: [],
          rows: Array.from({ length: 20 }, (_, i) => ({ permalink: `load-bulk${i}-kinds`, values: {}, parents: {}, extra: {} })),
          history: { bodies: Array.from({ length: 20 }, () => ({})), source: 'pull', requestId: null, query: null },
        };
        await sql.query(load.text, load.params(input), load.name);
        const [deleted] = await sql.query<{ n: number }>(`SELECT count(*)::int AS n FROM stops WHERE tenant_id = $1::uuid AND deleted_at IS NOT NULL`, [
          tenantId,
        ]);
        expect(deleted!.n, 'the delete cascaded to the stops').toBe(20);
        return sql.query<{ name: string; calls: number }>(`SELECT funcname AS name, calls::int AS calls FROM pg_stat_xact_user_functions`, []);
      });
      expect(calls).toEqual([]);
    },
  );
});

// Every write sets the bookkeeping columns it must (`changed_at`, `fresh_at`: the contract's changedAt is the
// service's clock at the last write). An index holding one of them makes every update of the table non-HOT: the
// new version is entered into each index of the table (docs/explanation/performance/2026-12-03-one-write-in-wal.md).
const stored = recordSpecs.filter((spec) => spec.freshness !== 'append_only');
describe.each(stored.map((spec) => [spec.kind, spec] as const))('record kind %s: a write of the same body again', (kind, spec) => {
  test('changes only columns no index of its table holds, so its update can be HOT', async () => {
    const { changed, indexes } = await database.db.rehearse(async (sql) => {
      const parents = await writeEveryKind(sql, '-hot');
      const row = () =>
        sql.query<{ row: Record<string, unknown> }>(`SELECT to_jsonb(t) AS row FROM ${spec.table} t WHERE t.tenant_id = $1::uuid AND t.permalink = $2`, [
          tenantId,
          parents[spec.table],
        ]);
      const [before] = await row();
      await writeFull(sql, spec, parents, '-hot', new Date(Date.now() + 60_000));
      const [after] = await row();
      const changed = Object.keys(after!.row).filter((column) => JSON.stringify(after!.row[column]) !== JSON.stringify(before!.row[column]));
      const indexes = await sql.query<{ name: string; definition: string }>(
        `SELECT indexrelid::regclass::text AS name, pg_get_indexdef(indexrelid) AS definition FROM pg_index WHERE indrelid = $1::regclass`,
        [spec.table],
      );
      return { changed, indexes };
    });
    expect(changed, `${kind}: the write set the service's clock`).toContain('changed_at');
    // Key columns, expressions and a partial index's predicate all count (PostgreSQL's HOT rule).
    const holding = indexes.flatMap((index) =>
      changed.filter((column) => new RegExp(`[(\\s,"]${column}[)\\s,"]`).test(index.definition)).map((column) => `${index.name}: ${column}`),
    );
    expect(holding).toEqual([]);
  });
});

describe('a single-record write is planned for one row', () => {
  // Planned for a set (jsonb_to_recordset counts as 100 rows), each join of the statement built a hash
  // table on every execution for its one row (db/record-statements.ts, `UpsertOptions.one`).
  test.skipIf(onCitus()).each(recordSpecs.map((spec) => [spec.kind, spec] as const))(
    '%s: its statement of one record joins without a hash table (not on Citus: the coordinator plans each CTE over intermediate results)',
    async (kind, spec) => {
      const table = recordTableOf(spec);
      const parents = await database.db.rehearse((sql) => writeEveryKind(sql, '-plan'));
      const statement = buildUpsertStatement(table, { history: true, coverage: ['x'], one: true });
      const input: UpsertInput = {
        tenantId,
        now: new Date(),
        syncRunTime: null,
        present: table.columns.map((c) => c.column),
        rows: [
          {
            permalink: `${kind}-plan`,
            values: fullValues(table),
            parents: parentsOf(table, parents),
            extra: {},
          },
        ],
        history: { bodies: [{}], coverage: ['1'], source: 'pull', requestId: null, query: null },
      };
      const plan = await database.db.rehearse((sql) => sql.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${statement.text}`, statement.params(input)));
      const lines = plan.map((row) => row['QUERY PLAN']);
      expect(lines.length).toBeGreaterThan(1);
      expect(lines.filter((line) => /Hash/.test(line))).toEqual([]);
    },
  );
});
