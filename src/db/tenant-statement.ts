/**
 * On a Citus coordinator, a statement of one tenant's rows as one call on the node that holds the tenant's
 * shards (docs/decisions/0054-one-call-on-the-tenants-node.md). The coordinator plans each CTE of a write
 * statement as a distributed subplan of its own and pulls the results of `INSERT … SELECT` through itself
 * (docs/explanation/performance/2026-12-02-citus.md); sent instead as `SELECT tenant_statement(tenant, shard,
 * sql, params)`, a function distributed by its tenant argument (src/db/distribution.ts), the statement crosses
 * once to that node and runs there as plain PostgreSQL over the tenant's shards, which it names: `loads`
 * becomes `loads_102011`. Every table a statement names is colocated (one shard group per tenant) or a
 * reference table (its one shard is on every node), so all of them are there. `shard` is the tenant's
 * shard of `loads` the names were read for: the call checks, under the lock Citus's own writes take, that it is
 * still the tenant's and on that node (after a split or a move the old tables stay a while, unread). Outside a
 * transaction the call is sent straight to that node, over the service's own pool there (decision 0055): the
 * node runs it itself, and the coordinator plans, delegates and relays nothing.
 *
 * The statement's parameters go as one `text[]` (`$4` of the call; `$n` in the statement becomes `($1[n])`):
 * each is cast where the statement uses it, as every statement built by src/db/record-statements.ts does.
 * Its rows come back as jsonb objects: booleans, numbers and text; a time comes back as its ISO text, which a
 * caller that reads one turns into a `Date` (the webhook claim's, a status mapping's).
 */
import { createRequire } from 'node:module';
import type { Sql } from './interface.js';

/** node-postgres's own serialisation of a parameter to text (dates, arrays, JSON), as it sends it. */
const { prepareValue } = createRequire(import.meta.url)('pg/lib/utils') as { prepareValue(value: unknown): string | null };

/** A run of one statement with its parameters (the coordinator's connection: the pool or a transaction's). */
export type Run = (text: string, params: readonly unknown[], name?: string) => Promise<Record<string, unknown>[]>;

/** A table's name after a keyword that names a table, quoted or not, not followed by a qualifier or call. */
const tableReference = /\b(FROM|JOIN|INTO|UPDATE)(\s+)"?([a-z_][a-z0-9_]*)"?(?![a-z0-9_".(])/gi;

/** The statement `text` over the shards `shards` names (table → shard), its parameters as `$1`'s elements. */
export function onShards(text: string, shards: ReadonlyMap<string, string>): string {
  return text
    .replace(tableReference, (match, keyword: string, space: string, table: string) => {
      const shard = shards.get(table);
      return shard ? `${keyword}${space}${shard}` : match;
    })
    .replace(/\$(\d+)/g, (_, n: string) => `($1[${n}])`);
}

/**
 * The shard of each distributed table that holds the tenant's rows (its id too), and each reference table's one
 * shard; with the node that holds the tenant's shard of `loads` (`host:port` as `pg_dist_node` names it), null
 * when that is the node asked (the coordinator holding shards itself).
 */
const shardsQuery = `SELECT p.logicalrelid::regclass::text AS "table", s.id::text AS id, shard_name(p.logicalrelid, s.id) AS shard,
    (SELECT n.nodename || ':' || n.nodeport FROM pg_dist_placement pl JOIN pg_dist_node n ON n.groupid = pl.groupid
     WHERE pl.shardid = s.id AND n.isactive AND n.noderole = 'primary' AND pl.groupid <> (SELECT groupid FROM pg_dist_local_group)
     LIMIT 1) AS node
  FROM pg_dist_partition p
  CROSS JOIN LATERAL (SELECT get_shard_id_for_distribution_column(p.logicalrelid, CASE WHEN p.partmethod = 'h' THEN $1::text END) AS id) s
  WHERE p.partmethod IN ('h', 'n')`;

/** The tenant's shards as a statement names them (by table), its shard of `loads`, which the call checks, and that shard's node. */
interface Shards {
  names: ReadonlyMap<string, string>;
  anchor: string;
  /** `host:port` of the node that holds the tenant's shards; null: the coordinator itself. */
  node: string | null;
}

/**
 * The call found the tenant's shards moved or split since their names were read (`tenant_statement`'s check,
 * SQLSTATE TS001), or a table they name gone (42P01): they are read again.
 */
const staleShards = new Set(['TS001', '42P01']);

/**
 * A row routed to the payload history's default partition while the partition of its day was being attached
 * (Citus attaches a new partition's shards with `ATTACH PARTITION`, which lets inserts into the parent go on):
 * the insert waited for the attach and then found the default's constraint changed. Run again, the statement
 * routes the row to the new partition. On a fresh database this happens at the first start, while the day's
 * partitions are made; afterwards each day's partition is made days before its rows come.
 */
const attachedMeanwhile = (error: unknown) =>
  (error as { code?: string }).code === '23514' && /violates partition constraint/.test(String((error as Error).message));

/**
 * A runner on the node `host:port` (the service's own pool there), or null to send the call through the
 * coordinator. A runner that could not connect throws with the code `nodeUnreachable` (nothing ran) and
 * answers null for that node from then on: the call is sent again, through the coordinator.
 */
export type NodeRun = (node: string) => Run | null;

/** PostgreSQL's code of a deadlock's victim (its transaction rolled back). */
const deadlockDetected = '40P01';

/** The code of a call that could not reach its node (see `NodeRun`). */
export const nodeUnreachable = 'node_unreachable';

/**
 * The runner of tenant statements on a Citus coordinator: `on(tenantId, run, direct)` is the `Sql` whose
 * statements run as calls on the tenant's node: sent there straight (`direct`, through `onNode`'s pool on that
 * node; a worker that holds the shards runs the call itself) or through the coordinator's connection `run` (a
 * transaction's, which must see its own writes). The tenants' shard names and node are read once each and kept;
 * a call that finds them stale (a split made new shards, a move put them on another node) reads them again and
 * runs once more.
 */
export function tenantStatements(run: Run, onNode: NodeRun = () => null) {
  const shardsOf = new Map<string, Promise<Shards>>();
  /** Per shard group (its shard of `loads`), each statement's text over its shards. */
  const texts = new Map<string, Map<string, string>>();

  const shards = (tenantId: string) => {
    let found = shardsOf.get(tenantId);
    if (!found) {
      found = run(shardsQuery, [tenantId]).then((rows) => {
        const loads = rows.find((row) => row.table === 'loads');
        if (loads === undefined) throw new Error('loads is not distributed: the database is not placed as src/db/distribution.ts declares');
        return {
          names: new Map(rows.map((row) => [String(row.table), String(row.shard)])),
          anchor: String(loads.id),
          node: (loads.node as string | null) ?? null,
        };
      });
      found.catch(() => shardsOf.delete(tenantId));
      shardsOf.set(tenantId, found);
    }
    return found;
  };

  const textOn = (text: string, { names, anchor }: Shards) => {
    let byText = texts.get(anchor);
    if (!byText) texts.set(anchor, (byText = new Map<string, string>()));
    let rewritten = byText.get(text);
    if (rewritten === undefined) {
      rewritten = onShards(text, names);
      // Statements are built once per shape; the bound only guards against a caller that builds texts per call.
      if (byText.size >= 1000) byText.clear();
      byText.set(text, rewritten);
    }
    return rewritten;
  };

  return {
    on(tenantId: string, over: Run, direct = false): Sql {
      return {
        async query<Row>(text: string, params: readonly unknown[]): Promise<Row[]> {
          const values = params.map((value) => prepareValue(value));
          const call = async () => {
            const found = await shards(tenantId);
            const via = (direct && found.node !== null && onNode(found.node)) || over;
            const rows = await via('SELECT r FROM tenant_statement($1::uuid, $2::bigint, $3::text, $4::text[]) r', [
              tenantId,
              found.anchor,
              textOn(text, found),
              values,
            ]);
            return rows.map((row) => row.r as Row);
          };
          try {
            return await call();
          } catch (error) {
            const code = (error as { code?: string }).code;
            if (attachedMeanwhile(error) || code === nodeUnreachable) return call();
            // Straight on the node a call is its own transaction, and a deadlock's victim is rolled back whole: run
            // again. Its locks there are the statement's own, not the coordinator's, so a DDL the coordinator sends
            // to the node meanwhile (a day's payload history partition attached) can close a cycle with it.
            if (direct && code === deadlockDetected) return call();
            if (!staleShards.has(code ?? '')) throw error;
            shardsOf.delete(tenantId);
            return call();
          }
        },
      };
    },
  };
}
