/**
 * How every table is placed on a Citus cluster (docs/explanation/scaling.md, docs/guides/citus.md,
 * docs/decisions/0044-the-service-distributes-itself.md): distributed by `tenant_id` (every such table in
 * one colocation group, so a tenant's rows of every table are on one shard's node), a reference table (a
 * copy on every node), or local (on the coordinator only). The one declared list: `distribute` applies it
 * after the migrations when the database has the `citus` extension, and
 * test/integration/database/tenant-keys.test.ts fails on a migrated table it does not name (on every
 * database), so a new table is classified before it ships.
 */
/** One statement on the connection the placement runs on (a migration's transaction). */
export type Run = (text: string, params?: unknown[]) => Promise<Record<string, unknown>[]>;

/** The tables distributed by `tenant_id`, colocated, by what they hold. */
export const distributedTables = {
  record: ['carriers', 'loads', 'load_legs', 'stops', 'load_updates', 'load_activity', 'load_cities'],
  event: ['load_events', 'load_event_cursors', 'phase_changes'],
  history: ['payload_history'],
  'ingest health': ['ingest_counts', 'ingest_sources', 'ingest_rejections', 'ingest_health_states', 'field_coverage'],
  'tenant setting': ['status_mappings'],
  webhook: ['webhook_endpoints', 'webhook_deliveries', 'webhook_attempts'],
} as const satisfies Record<string, readonly string[]>;

/** Reference tables, and why each cannot be distributed by tenant. */
export const referenceTables: Record<string, string> = {
  tenants: 'every distributed table references it; a request finds its tenant by slug',
  api_keys: "a request's key is found by its hash before its tenant is known, so the lookup cannot name a shard",
};

/** Tables kept on the coordinator only, and why. */
export const localTables: Record<string, string> = {
  _prisma_migrations: 'the migration history: read and written by the migrations alone, on the coordinator',
};

export const allDistributed: readonly string[] = Object.values(distributedTables).flat();

/**
 * Functions distributed by their tenant argument, colocated with `loads` (`create_distributed_function`, with
 * `force_delegation`: in a transaction block too): a bare `SELECT f(tenant, …)` on the coordinator runs as one
 * call on the node that holds the tenant's shards (docs/decisions/0054-one-call-on-the-tenants-node.md), and a
 * call sent straight to that node runs there itself (docs/decisions/0055-calls-straight-to-the-node.md).
 */
export const distributedFunctions: Record<string, { signature: string; why: string }> = {
  tenant_statement: {
    signature: 'tenant_statement(uuid, bigint, text, text[])',
    why: "a write of the tenant's records: one round trip, its statement planned there as plain PostgreSQL",
  },
  load_events_sequence: {
    signature: 'load_events_sequence(uuid, jsonb)',
    why: "the tenant's pass: its snapshot is the same node's as the transaction ids of the log entries the writes left there",
  },
};

/** The table every distributed table is colocated with. */
const colocationAnchor = 'loads';

/** True when the database is a Citus node (the extension is installed in it). */
export async function isCitus(run: Run): Promise<boolean> {
  return (await run(`SELECT 1 FROM pg_extension WHERE extname = 'citus'`)).length > 0;
}

/** The tables of the declared list that Citus does not yet place as declared (on a Citus database). */
export async function undistributed(run: Run): Promise<string[]> {
  const placed = new Map(
    (await run(`SELECT logicalrelid::text AS name, partmethod::text AS method FROM pg_dist_partition`)).map((row) => [
      String(row.name).replaceAll('"', ''),
      String(row.method),
    ]),
  );
  const existing = new Set(
    (await run(`SELECT relname AS name FROM pg_class WHERE relnamespace = 'public'::regnamespace AND relkind IN ('r', 'p') AND NOT relispartition`)).map((r) =>
      String(r.name),
    ),
  );
  const want = [...Object.keys(referenceTables).map((t) => [t, 'n'] as const), ...allDistributed.map((t) => [t, 'h'] as const)];
  return want.filter(([table, method]) => existing.has(table) && placed.get(table) !== method).map(([table]) => table);
}

/** The functions of the declared list that exist and are not yet distributed by their tenant argument. */
export async function undistributedFunctions(run: Run): Promise<string[]> {
  const rows = await run(
    `SELECT f.name FROM unnest($1::text[], $2::text[]) AS f(name, signature)
     WHERE to_regprocedure(f.signature) IS NOT NULL
       AND NOT EXISTS (SELECT 1 FROM pg_dist_object o WHERE o.classid = 'pg_proc'::regclass AND o.objid = to_regprocedure(f.signature)
                       AND o.distribution_argument_index IS NOT NULL)`,
    [Object.keys(distributedFunctions), Object.values(distributedFunctions).map((f) => f.signature)],
  );
  return rows.map((row) => String(row.name));
}

/**
 * Places every table of the declared list that is not placed yet (idempotent: a placed table is left as
 * it is): reference tables first, then the distributed ones, each colocated with `loads`. Citus refuses a
 * foreign key between a local table and a distributed one in either direction, so the foreign keys that
 * touch a table placed now are dropped first and made again (and checked) once every table is placed.
 * Then the declared functions are distributed. Returns the tables and functions placed now. Run in one
 * transaction after the migrations (src/db/migrate.ts).
 */
export async function distribute(run: Run): Promise<string[]> {
  const placed = await placeTables(run);
  // After the tables: a function is colocated with `loads`, distributed by then.
  const functions = await undistributedFunctions(run);
  for (const name of functions) {
    await run(`SELECT create_distributed_function($1::regprocedure, 'p_tenant'::text, colocate_with => $2::text, force_delegation => true)`, [
      distributedFunctions[name]!.signature,
      colocationAnchor,
    ]);
  }
  return [...placed, ...functions];
}

async function placeTables(run: Run): Promise<string[]> {
  const todo = await undistributed(run);
  if (!todo.length) return [];
  const keys = await run(
    `SELECT c.conrelid::regclass::text AS "table", c.conname AS name, pg_get_constraintdef(c.oid) AS definition FROM pg_constraint c
     WHERE c.contype = 'f' AND (c.conrelid::regclass::text = ANY($1::text[]) OR c.confrelid::regclass::text = ANY($1::text[]))
       AND NOT EXISTS (SELECT 1 FROM pg_inherits i WHERE i.inhrelid = c.conrelid)
     ORDER BY 1, 2`,
    [todo.map((table) => `"${table}"`).concat(todo)],
  );
  // Foreign keys to a reference table need one connection per node in the transaction that makes them.
  await run(`SET LOCAL citus.multi_shard_modify_mode TO 'sequential'`);
  for (const key of keys) await run(`ALTER TABLE ${String(key.table)} DROP CONSTRAINT "${String(key.name)}"`);
  const references = todo.filter((table) => table in referenceTables);
  const tables = todo.filter((table) => !(table in referenceTables));
  // The anchor first (it starts the colocation group, or is in it already), then the rest with it.
  tables.sort((a, b) => Number(b === colocationAnchor) - Number(a === colocationAnchor));
  for (const table of references) await run(`SELECT create_reference_table($1::regclass)`, [table]);
  for (const table of tables) {
    await run(`SELECT create_distributed_table($1::regclass, 'tenant_id', colocate_with => $2::text)`, [
      table,
      table === colocationAnchor ? 'default' : colocationAnchor,
    ]);
  }
  for (const key of keys) await run(`ALTER TABLE ${String(key.table)} ADD CONSTRAINT "${String(key.name)}" ${String(key.definition)}`);
  return todo;
}
