/**
 * Distributable by tenant (issue 30 item 5; docs/explanation/scaling.md, docs/decisions/0033-tenant-leading-keys.md):
 * every primary key, unique key and foreign key of a table that Citus would distribute by `tenant_id`
 * leads with `tenant_id`, and a foreign key names `tenant_id` on both sides (or is the key to
 * `tenants`, the reference table). Read from the catalog (`pg_constraint`, `pg_index`) of a migrated
 * database, so a key written by hand in a migration counts as much as one Prisma wrote. Every table
 * with a `tenant_id` column must be classified here: distributed (and held to the rule) or not (with
 * its reason), so a new table cannot slip past unclassified.
 */
import { describe, expect, test } from '../../fixtures.js';
import type { Database } from '../../../src/db/database.js';
import { migrate, readMigrations } from '../../../src/db/migrate.js';
import { recordSpecs } from '../../../src/domain/registry.js';
import { allDistributed, distributedTables, localTables, referenceTables } from '../../../src/db/distribution.js';
import { withEmptyDatabase } from '../../helpers/empty-database.js';
import { onCitus } from '../../setup/database.js';

/** The tables distributed by tenant_id, by what they hold: the declared list the service distributes by (src/db/distribution.ts). */
const distributed: Record<string, readonly string[]> = distributedTables;

/** Tables with a tenant_id that are not distributed by it, and why. */
const notDistributed: Record<string, string> = Object.fromEntries(
  Object.entries(referenceTables)
    .filter(([table]) => table !== 'tenants')
    .map(([table, why]) => [table, `a reference table: ${why}`]),
);

interface Key {
  table: string;
  name: string;
  /** p (primary key), u (unique constraint), i (unique index without a constraint) or f (foreign key). */
  type: string;
  columns: string[];
  referenced: string | null;
  referencedColumns: string[];
  /** The columns an ON DELETE SET NULL / SET DEFAULT sets (null: all of the key's columns). */
  setColumns: string[] | null;
  deleteAction: string;
}

/** A relation's column names for attribute numbers, in the given order (0, an expression, reads as `(expression)`). */
const columnNames = (relation: string, numbers: string) => `ARRAY(
  SELECT coalesce(a.attname::text, '(expression)') FROM unnest(${numbers}) WITH ORDINALITY k(n, i)
  LEFT JOIN pg_attribute a ON a.attrelid = ${relation} AND a.attnum = k.n ORDER BY k.i)`;

/** Every key of the public schema's tables (partitions under their partitioned table's name). */
const keysSql = `
WITH owner AS (
  SELECT c.oid, coalesce((SELECT p.relname FROM pg_inherits i JOIN pg_class p ON p.oid = i.inhparent WHERE i.inhrelid = c.oid AND c.relispartition), c.relname) AS name
  FROM pg_class c WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p')
)
SELECT o.name AS "table", con.conname AS name, con.contype::text AS type,
       ${columnNames('con.conrelid', 'con.conkey')} AS columns,
       f.name AS referenced, ${columnNames('con.confrelid', 'con.confkey')} AS "referencedColumns",
       CASE WHEN con.confdelsetcols IS NULL THEN NULL ELSE ${columnNames('con.conrelid', 'con.confdelsetcols')} END AS "setColumns",
       con.confdeltype::text AS "deleteAction"
FROM pg_constraint con JOIN owner o ON o.oid = con.conrelid LEFT JOIN owner f ON f.oid = con.confrelid
WHERE con.contype IN ('p', 'u', 'f')
UNION ALL
SELECT o.name, ic.relname, 'i', ${columnNames('x.indrelid', 'x.indkey::int2[]')}, NULL, '{}', NULL, ''
FROM pg_index x JOIN owner o ON o.oid = x.indrelid JOIN pg_class ic ON ic.oid = x.indexrelid
WHERE x.indisunique AND NOT EXISTS (SELECT 1 FROM pg_constraint con WHERE con.conindid = x.indexrelid AND con.contype IN ('p', 'u'))`;

/** The tables (not partitions) with a tenant_id column. */
const tenantTablesSql = `
SELECT c.relname AS name FROM pg_class c JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = 'tenant_id' AND NOT a.attisdropped
WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p') AND NOT c.relispartition ORDER BY 1`;

/** What keeps the schema from being distributed by tenant: one line per problem, none when it can be. */
async function tenantKeyProblems(db: Database): Promise<string[]> {
  const problems: string[] = [];
  const classified = new Map<string, string>();
  for (const [kind, tables] of Object.entries(distributed)) for (const table of tables) classified.set(table, kind);
  for (const table of Object.keys(notDistributed)) classified.set(table, 'not distributed');

  const tenantTables = (await db.sql.query<{ name: string }>(tenantTablesSql, [])).map((row) => row.name);
  for (const table of tenantTables) if (!classified.has(table)) problems.push(`${table}: has tenant_id but is not classified (distributed or not, and why)`);
  for (const table of classified.keys()) if (!tenantTables.includes(table)) problems.push(`${table}: classified, but no table of that name has tenant_id`);

  const isDistributed = (table: string | null) => table != null && classified.has(table) && classified.get(table) !== 'not distributed';
  for (const key of await db.sql.query<Key>(keysSql, [])) {
    const { table, name, type, columns, referenced, referencedColumns } = key;
    const at = `${table}.${name} (${columns.join(', ')})`;
    if (type !== 'f') {
      if (isDistributed(table) && columns[0] !== 'tenant_id')
        problems.push(`${at}: a ${type === 'p' ? 'primary' : 'unique'} key that does not lead with tenant_id`);
      continue;
    }
    if (!isDistributed(table) && !isDistributed(referenced)) continue;
    const toTenants = referenced === 'tenants' && columns.join() === 'tenant_id' && referencedColumns.join() === 'id';
    if (toTenants) continue;
    if (!isDistributed(table) || !isDistributed(referenced))
      problems.push(`${at} → ${referenced}: a foreign key between a distributed and a not distributed table`);
    else if (columns[0] !== 'tenant_id' || referencedColumns[0] !== 'tenant_id')
      problems.push(`${at} → ${referenced} (${referencedColumns.join(', ')}): a foreign key without tenant_id leading on both sides`);
    // SET NULL / SET DEFAULT without a column list would clear tenant_id too.
    if ((key.deleteAction === 'n' || key.deleteAction === 'd') && (key.setColumns ?? columns).includes('tenant_id'))
      problems.push(`${at}: ON DELETE SET NULL/DEFAULT reaches tenant_id (name the parent's column: SET NULL (<column>))`);
  }
  return problems;
}

/** Every table of a migrated database (partitions under their partitioned table). */
const tablesSql = `SELECT c.relname AS name FROM pg_class c WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p') AND NOT c.relispartition ORDER BY 1`;

/** What the declared placement (src/db/distribution.ts) leaves out or names wrongly: one line per problem. */
async function placementProblems(db: Database): Promise<string[]> {
  const declared = [...allDistributed, ...Object.keys(referenceTables), ...Object.keys(localTables)];
  const tables = (await db.sql.query<{ name: string }>(tablesSql, [])).map((row) => row.name);
  return [
    ...tables
      .filter((table) => !declared.includes(table))
      .map((table) => `${table}: no list of src/db/distribution.ts names it (distributed, reference or local)`),
    ...declared.filter((table) => !tables.includes(table)).map((table) => `${table}: declared, but no such table`),
    ...recordSpecs
      .filter((spec) => !distributedTables.record.includes(spec.table as never))
      .map((spec) => `${spec.table}: a record kind's table, not distributed`),
  ];
}

describe('the declared placement of every table', () => {
  test('names every migrated table once: distributed by tenant_id, reference or local', async ({ testApp }) => {
    expect(await placementProblems(testApp.database.db)).toEqual([]);
  });

  test('fails on a table no list names', async ({ testApp }) => {
    const { db } = testApp.database;
    await db.sql.query('CREATE TABLE "load_remarks" ("id" uuid PRIMARY KEY)', []);
    expect(await placementProblems(db)).toEqual(['load_remarks: no list of src/db/distribution.ts names it (distributed, reference or local)']);
  });
});

describe('tenant-leading keys', () => {
  test('every key of a distributed table leads with tenant_id, and every table with tenant_id is classified', async ({ testApp }) => {
    expect(await tenantKeyProblems(testApp.database.db)).toEqual([]);
  });

  // Not on Citus: a coordinator refuses to create such keys on a distributed table at all (what the check stands in for elsewhere).
  test.skipIf(onCitus())(
    'the check finds an unclassified table, a key without tenant_id, a foreign key on id alone and a SET NULL of tenant_id (not on Citus)',
    async ({ testApp }) => {
      const { db } = testApp.database;
      await db.sql.query('CREATE TABLE "load_notes" ("tenant_id" uuid NOT NULL, "id" uuid NOT NULL, PRIMARY KEY ("tenant_id", "id"))', []);
      await db.sql.query('CREATE UNIQUE INDEX "loads_permalink_only" ON "loads" ("permalink")', []);
      await db.sql.query('CREATE UNIQUE INDEX "load_legs_id_only" ON "load_legs" ("id")', []);
      await db.sql.query('ALTER TABLE "stops" ADD CONSTRAINT "stops_leg_only_fkey" FOREIGN KEY ("leg_id") REFERENCES "load_legs" ("id")', []);
      await db.sql.query(
        'ALTER TABLE "load_updates" ADD CONSTRAINT "load_updates_leg_all_fkey" FOREIGN KEY ("tenant_id", "leg_id") REFERENCES "load_legs" ("tenant_id", "id") ON DELETE SET NULL',
        [],
      );
      expect((await tenantKeyProblems(db)).sort()).toEqual([
        'load_legs.load_legs_id_only (id): a unique key that does not lead with tenant_id',
        'load_notes: has tenant_id but is not classified (distributed or not, and why)',
        "load_updates.load_updates_leg_all_fkey (tenant_id, leg_id): ON DELETE SET NULL/DEFAULT reaches tenant_id (name the parent's column: SET NULL (<column>))",
        'loads.loads_permalink_only (permalink): a unique key that does not lead with tenant_id',
        'stops.stops_leg_only_fkey (leg_id) → load_legs (id): a foreign key without tenant_id leading on both sides',
      ]);
    },
  );
});

const migration = readMigrations().findIndex((m) => m.name.endsWith('_tenant_leading_keys'));

describe('the migration to tenant-leading keys', { timeout: 180_000 }, () => {
  // Not on Citus: the schema before this migration has keys without tenant_id, which Citus cannot place
  // (a partial history is placed at its end); no version older than citus_placement ran on Citus.
  test.skipIf(onCitus())('keeps the rows of a populated database, and a child can no longer name another tenant’s parent (not on Citus)', async () => {
    await withEmptyDatabase(async ({ db }) => {
      const all = readMigrations();
      await migrate(db.adapterFactory, { migrations: all.slice(0, migration) });
      const q = (sql: string, params: unknown[] = []) => db.sql.query<Record<string, unknown>>(sql, params);
      const now = "'2026-11-28T06:00:00Z'";
      const stamps = `${now}, ${now}, ${now}`;
      for (const slug of ['a', 'b']) {
        await q(`INSERT INTO tenants (slug, name) VALUES ($1, $1)`, [slug]);
        const t = `(SELECT id FROM tenants WHERE slug = '${slug}')`;
        const row = (table: string, permalink: string) => `(SELECT id FROM ${table} WHERE permalink = '${permalink}-${slug}')`;
        await q(`INSERT INTO carriers (tenant_id, permalink, fresh_at, changed_at, created_at) VALUES (${t}, 'C1-${slug}', ${stamps})`);
        await q(`INSERT INTO loads (tenant_id, permalink, status, fresh_at, changed_at, created_at) VALUES (${t}, 'L1-${slug}', 'open', ${stamps})`);
        await q(
          `INSERT INTO load_legs (tenant_id, permalink, load_id, carrier_id, fresh_at, changed_at, created_at) VALUES (${t}, 'G1-${slug}', ${row('loads', 'L1')}, ${row('carriers', 'C1')}, ${stamps})`,
        );
        await q(
          `INSERT INTO stops (tenant_id, permalink, leg_id, fresh_at, changed_at, created_at) VALUES (${t}, 'S1-${slug}', ${row('load_legs', 'G1')}, ${stamps})`,
        );
        await q(
          `INSERT INTO load_updates (tenant_id, permalink, load_id, leg_id, created_at) VALUES (${t}, 'U1-${slug}', ${row('loads', 'L1')}, ${row('load_legs', 'G1')}, ${now})`,
        );
      }
      // What the write statements record beside the records (the migrations before this one have no triggers left).
      for (const slug of ['a', 'b']) {
        const load = `(SELECT id FROM loads WHERE permalink = 'L1-${slug}')`;
        await q(`INSERT INTO phase_changes (tenant_id, load_id, to_phase, changed_at) SELECT tenant_id, id, 'PLANNED', ${now} FROM loads WHERE id = ${load}`);
        await q(`INSERT INTO load_activity (tenant_id, load_id, last_activity_at) SELECT tenant_id, id, ${now} FROM loads WHERE id = ${load}
                 ON CONFLICT (tenant_id, load_id) DO NOTHING`);
      }
      const tables = ['carriers', 'loads', 'load_legs', 'stops', 'load_updates', 'phase_changes', 'load_activity', 'load_events'];
      const snapshot = async () =>
        Object.fromEntries(
          await Promise.all(
            tables.map(async (table) => [table, (await q(`SELECT * FROM ${table} t ORDER BY t::text`)).map((r) => JSON.stringify(r))] as const),
          ),
        );
      const before = await snapshot();
      expect(before.phase_changes).toHaveLength(2);
      expect(before.load_activity).toHaveLength(2);

      await migrate(db.adapterFactory);
      expect(await snapshot()).toEqual(before);
      expect(await tenantKeyProblems(db)).toEqual([]);

      // Tenant b's stop naming tenant a's leg: the key (tenant_id, leg_id) has no such parent.
      await expect(q(`UPDATE stops SET leg_id = (SELECT id FROM load_legs WHERE permalink = 'G1-a') WHERE permalink = 'S1-b'`)).rejects.toThrow(
        /violates foreign key constraint "stops_tenant_id_leg_id_fkey"/,
      );
      // A carrier a leg names cannot go (NO ACTION since migration citus_placement: the tombstone purge clears
      // the leg's carrier first); RESTRICT still guards a load with legs.
      await expect(q(`DELETE FROM carriers WHERE permalink = 'C1-a'`)).rejects.toThrow(/violates foreign key constraint "load_legs_tenant_id_carrier_id_fkey"/);
      await expect(q(`DELETE FROM loads WHERE permalink = 'L1-a'`)).rejects.toThrow(
        /violates (RESTRICT setting of )?foreign key constraint "load_legs_tenant_id_load_id_fkey"/, // PostgreSQL 17 (PGlite) names RESTRICT
      );
    });
  });
});
