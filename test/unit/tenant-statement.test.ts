/**
 * A statement carried to the tenant's node on Citus (src/db/tenant-statement.ts, decision 0054) names the
 * tenant's shards instead of the tables, and reads its parameters from one array. Every statement the
 * service sends that way (each kind's upserts and deletes in every variant, the load's edit) must name each
 * table in a place the rewriting finds: one named anywhere else would run against a table the worker plans as
 * distributed, or fail. The whole suite on a Citus cluster runs them; this test tells which text is wrong.
 */
import { describe, expect, test } from 'vitest';
import { nodeUnreachable, onShards, tenantStatements, type Run } from '../../src/db/tenant-statement.js';
import { nodePools } from '../../src/db/postgres.js';
import { passStatement } from '../../src/domain/events/sequencer.js';
import { pruneTenantStatement, writeStatement } from '../../src/domain/ingest-health/recorder.js';
import { claimSql, recordSql } from '../../src/domain/webhook/worker.js';
import { recordStatesSql } from '../../src/domain/events/ingest-health-states.js';
import { removeMappingSql, rephasing, upsertMappingSql } from '../../src/domain/status-mapping/service.js';
import { allDistributed, referenceTables } from '../../src/db/distribution.js';
import { buildDeleteStatement, buildEditStatement, buildUpsertStatement } from '../../src/db/record-statements.js';
import { recordSpecs } from '../../src/domain/registry.js';
import { recordTableOf } from '../../src/domain/ingestion/record-tables.js';
import { countedFields } from '../../src/domain/declaration/record.js';

const tables = [...allDistributed, ...Object.keys(referenceTables)];
const shards = new Map(tables.map((table, i) => [table, `${table}_${102008 + i}`]));

describe('onShards', () => {
  test('renames a table after FROM, JOIN, INTO and UPDATE, quoted or not, with its alias kept', () => {
    expect(onShards('SELECT 1 FROM "loads" l JOIN stops s ON true', shards)).toBe(
      `SELECT 1 FROM ${shards.get('loads')} l JOIN ${shards.get('stops')} s ON true`,
    );
    expect(onShards('INSERT INTO load_events AS e (id) VALUES (1)', shards)).toBe(`INSERT INTO ${shards.get('load_events')} AS e (id) VALUES (1)`);
    expect(onShards('UPDATE "load_activity" a SET x = 1', shards)).toBe(`UPDATE ${shards.get('load_activity')} a SET x = 1`);
    expect(onShards('DELETE FROM\n  payload_history h', shards)).toBe(`DELETE FROM\n  ${shards.get('payload_history')} h`);
  });

  test('leaves CTE names, functions, qualified names and ON CONFLICT … DO UPDATE SET alone', () => {
    const text = 'WITH loads_written AS (SELECT 1) SELECT * FROM loads_written, unnest($1) JOIN loads.x ON true ON CONFLICT (id) DO UPDATE SET a = 1';
    expect(onShards(text, shards)).toBe(text.replace('unnest($1)', 'unnest(($1[1]))'));
  });

  test('reads $n as the nth element of $1, $10 as the tenth', () => {
    expect(onShards('SELECT $1::uuid, $2::timestamptz, $10::text[]', shards)).toBe('SELECT ($1[1])::uuid, ($1[2])::timestamptz, ($1[10])::text[]');
  });
});

/** Every statement text the service sends as a tenant statement, by a name that says which. */
function carriedStatements(): [string, string][] {
  const texts: [string, string][] = [];
  for (const spec of recordSpecs) {
    const table = recordTableOf(spec);
    const counted = countedFields(spec);
    for (const one of [true, false]) {
      for (const history of [false, true]) {
        texts.push([`${spec.kind} upsert${history ? ' history' : ''}${one ? ' one' : ''}`, buildUpsertStatement(table, { history, one }).text]);
        if (counted.length)
          texts.push([
            `${spec.kind} upsert coverage${history ? ' history' : ''}${one ? ' one' : ''}`,
            buildUpsertStatement(table, { history, one, coverage: counted }).text,
          ]);
        if (table.freshness !== 'append_only') {
          const remove = buildDeleteStatement(table, { history, one });
          texts.push([`${spec.kind} delete${history ? ' history' : ''}${one ? ' one' : ''}`, remove.text]);
          if (remove.lock) texts.push([`${spec.kind} delete lock`, remove.lock.text]);
        }
      }
    }
    if (spec.kind === 'load') texts.push(['load edit', buildEditStatement(table, Object.values(spec.columns)).text]);
  }
  texts.push(["the tenant's pass", passStatement]);
  texts.push(["the ingest accounting's flush of a tenant", writeStatement]);
  texts.push(["the ingest accounting's prune of a tenant", pruneTenantStatement]);
  texts.push(["the webhook worker's claim of a tenant's deliveries", claimSql]);
  texts.push(["the webhook worker's record of an attempt", recordSql]);
  texts.push(["a tenant's ingest health states and their events", recordStatesSql]);
  texts.push(['a status mapping set', upsertMappingSql], ['a status mapping removed', removeMappingSql]);
  for (const statement of rephasing) texts.push([statement.name, statement.text]);
  return texts;
}

/**
 * Columns named as a table is: a load-level set's count (`load_cities.stops`). Such a name is a column
 * wherever it is not where a table is named.
 */
const columnsNamedAsTables = new Set(
  recordSpecs.flatMap((spec) => {
    const table = recordTableOf(spec);
    return [table.loadSet, ...table.carried.map((c) => c.set)].filter((set) => set !== null && set !== undefined).map((set) => set.count);
  }),
);

describe.each(carriedStatements())('%s', (_name, text) => {
  // String literals (a sequence's name, an event type) are not table references.
  const carried = onShards(text, shards).replace(/'(?:[^']|'')*'/g, "''");

  test('names no table but through its shard', () => {
    const named = (table: string) =>
      columnsNamedAsTables.has(table)
        ? new RegExp(`\\b(FROM|JOIN|INTO|UPDATE|USING)\\s+"?${table}"?(?![\\w"])`, 'i')
        : new RegExp(`(?<![\\w."])"?${table}"?(?![\\w"])`);
    expect(tables.filter((table) => named(table).test(carried))).toEqual([]);
  });

  test('reads every parameter from the array', () => {
    expect(carried.match(/\$\d+(?!\[)/g) ?? []).toEqual([]);
  });

  // Carried, every parameter is text: a use without a cast (`LIMIT $2`) is refused on the node.
  test('casts every parameter where it uses it', () => {
    expect(text.replace(/'(?:[^']|'')*'/g, "''").match(/\$\d+(?![\d]|::)/g) ?? []).toEqual([]);
  });
});

describe('where a tenant statement is sent', () => {
  /** A coordinator's answers: the tenant's shards (on `node`), and each call it is sent, recorded. */
  const coordinator = (node: string | null) => {
    const calls: string[] = [];
    const run: Run = async (text) => {
      if (text.includes('pg_dist_partition')) return [{ table: 'loads', id: '102008', shard: 'loads_102008', node }];
      calls.push(text);
      return [{ r: { via: 'coordinator' } }];
    };
    return { calls, run };
  };
  const worker: Run = async () => [{ r: { via: 'worker' } }];

  test("straight to the node that holds the tenant's shards, outside a transaction", async () => {
    const { calls, run } = coordinator('10.0.0.2:5432');
    const asked: string[] = [];
    const tenants = tenantStatements(run, (node) => (asked.push(node), worker));
    expect(await tenants.on('t1', run, true).query('SELECT 1 FROM loads', [])).toEqual([{ via: 'worker' }]);
    expect(asked).toEqual(['10.0.0.2:5432']);
    expect(calls).toEqual([]);
  });

  test("through the coordinator's connection in a transaction, when the coordinator holds the shards, or when the node is not reached", async () => {
    const { calls, run } = coordinator('10.0.0.2:5432');
    expect(
      await tenantStatements(run, () => worker)
        .on('t1', run, false)
        .query('SELECT 1 FROM loads', []),
    ).toEqual([{ via: 'coordinator' }]);
    const local = coordinator(null);
    expect(
      await tenantStatements(local.run, () => worker)
        .on('t1', local.run, true)
        .query('SELECT 1 FROM loads', []),
    ).toEqual([{ via: 'coordinator' }]);
    // A node that refused the connection: the call is sent again, through the coordinator (the runner answers null from then on).
    let refused = false;
    const refusing: Run = async () => {
      refused = true;
      throw Object.assign(new Error('node 10.0.0.2:5432 unreachable'), { code: nodeUnreachable });
    };
    const tenants = tenantStatements(run, () => (refused ? null : refusing));
    expect(await tenants.on('t1', run, true).query('SELECT 1 FROM loads', [])).toEqual([{ via: 'coordinator' }]);
    expect(calls).toHaveLength(2);
    expect(calls.every((call) => call.startsWith('SELECT r FROM tenant_statement('))).toBe(true);
  });

  test("a deadlock's victim outside a transaction is run again (it was rolled back whole); inside a transaction it is thrown", async () => {
    const { run } = coordinator('10.0.0.2:5432');
    let calls = 0;
    const deadlocking: Run = async () => {
      calls += 1;
      if (calls === 1) throw Object.assign(new Error('deadlock detected'), { code: '40P01' });
      return [{ r: { via: 'worker' } }];
    };
    expect(
      await tenantStatements(run, () => deadlocking)
        .on('t1', run, true)
        .query('SELECT 1 FROM loads', []),
    ).toEqual([{ via: 'worker' }]);
    expect(calls).toBe(2);
    const inTransaction: Run = async (text) => {
      if (text.includes('pg_dist_partition')) return run(text, []);
      throw Object.assign(new Error('deadlock detected'), { code: '40P01' });
    };
    await expect(tenantStatements(run).on('t1', inTransaction, false).query('SELECT 1 FROM loads', [])).rejects.toMatchObject({ code: '40P01' });
  });

  test('a node that refuses the connection is reported once and not asked again', async () => {
    // A port nothing listens on: a real connection, refused.
    const nodes = nodePools('postgresql://postgres@127.0.0.1:5432/none', 1, () => {});
    try {
      const run = nodes.on('127.0.0.1:1')!;
      await expect(run('SELECT 1', [])).rejects.toMatchObject({ code: nodeUnreachable });
      expect(nodes.on('127.0.0.1:1')).toBeNull();
    } finally {
      await nodes.close();
    }
  });
});
