/**
 * The PostgreSQL side of `Database` (db/database.ts): one `pg` pool serving Prisma (through adapter-pg)
 * and the raw runner, LISTEN on a dedicated connection, and the adapter subclass that runs a migration
 * script whole.
 */
import { PrismaPg } from '@prisma/adapter-pg';
import pg from 'pg';
import { PrismaClient } from './generated/prisma/client.js';
import { getDatamodel } from './generated/pothos-types.js';
import { isCitus } from './distribution.js';
import type { StatementTarget } from '../observability/tracing.js';
import type { Database, Sql } from './interface.js';
import { quote } from './sql-text.js';
import { listenerSet, observeAdapterFactory, savepointed, statementObserver, type RunStatement } from './statement-observation.js';
import { nodeUnreachable, tenantStatements, type NodeRun, type Run } from './tenant-statement.js';

/** A PostgreSQL URL's database, host and port for statement spans (never its credentials). */
function postgresTarget(url: string): StatementTarget {
  try {
    const { pathname, hostname, port } = new URL(url);
    return { engine: 'pg', database: decodeURIComponent(pathname.slice(1)) || undefined, host: hostname || undefined, port: Number(port) || 5432 };
  } catch {
    return { engine: 'pg' };
  }
}

/** How long a lost PostgreSQL listening connection waits before connecting again. */
const relistenDelayMs = 1000;

/**
 * LISTEN on a dedicated PostgreSQL connection (a pooled one would be handed to other work), kept up:
 * when it fails, it reconnects every `relistenDelayMs` until it listens again, then calls `onReconnect`.
 */
async function listenPostgres(url: string, channel: string, onNotify: (payload: string) => void, onReconnect?: () => void) {
  let client: pg.Client | null = null;
  let stopped = false;
  let retry: NodeJS.Timeout | undefined;
  const connect = async () => {
    const next = new pg.Client({ connectionString: url });
    next.on('notification', (message) => {
      if (message.channel === channel) onNotify(message.payload ?? '');
    });
    next.on('error', () => {
      if (client !== next) return;
      client = null;
      next.end().catch(() => {});
      schedule();
    });
    try {
      await next.connect();
      await next.query(`LISTEN ${quote(channel)}`);
    } catch (error) {
      await next.end().catch(() => {});
      throw error;
    }
    if (stopped) {
      await next.end().catch(() => {});
      return;
    }
    client = next;
  };
  const schedule = () => {
    if (stopped) return;
    retry = setTimeout(() => {
      connect().then(
        () => onReconnect?.(),
        () => schedule(),
      );
    }, relistenDelayMs);
    retry.unref();
  };
  await connect();
  return async () => {
    stopped = true;
    clearTimeout(retry);
    const current = client;
    client = null;
    await current?.end().catch(() => {});
  };
}

/**
 * Runs `work` on one connection of the pool inside BEGIN … COMMIT (ROLLBACK when it throws). A
 * connection that cannot roll back is dropped from the pool, not reused.
 */
export async function inPoolTransaction<T>(pool: pg.Pool, work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  let broken: Error | undefined;
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch((rollback: Error) => (broken = rollback));
    throw error;
  } finally {
    client.release(broken);
  }
}

/**
 * Session settings of every connection the service opens to PostgreSQL (the startup packet's `options`):
 * no parallel query. The service runs many small statements at once; a parallel plan's workers start per
 * execution and take the cores other requests wait for: on the 100,000-load seed, the search's plan ran its
 * three trigram index scans in two workers in 105–185 ms, serially in 2.5–3.9 ms (decision 0037). Counts are
 * bounded (decision 0022), so no answer needs a parallel scan.
 */
export const sessionOptions = '-c max_parallel_workers_per_gather=0';

/** Prisma's operations that read relations (`include`, or a relation in `select`). */
const relationReads = new Set(['findMany', 'findFirst', 'findFirstOrThrow', 'findUnique', 'findUniqueOrThrow']);

const { models } = getDatamodel().datamodel;
/**
 * Per model, its relation fields: the related model, and whether the relation is a to-one relation to a
 * table distributed by tenant (a model with `tenantId`; `tenants` has none: a reference table, which any
 * node joins locally).
 */
const relationsOf: Readonly<Record<string, Readonly<Record<string, { type: string; toOneDistributed: boolean }>>>> = Object.fromEntries(
  Object.entries(models).map(([model, { fields }]) => [
    model,
    Object.fromEntries(
      fields
        .filter((f) => f.kind === 'object')
        .map((f) => [f.name, { type: f.type, toOneDistributed: !f.isList && Boolean(models[f.type]?.fields.some((g) => g.name === 'tenantId')) }]),
    ),
  ]),
);

/** Whether a read of `model` loads a to-one relation of a distributed table anywhere in its `include` / `select` tree. */
function readsToOne(model: string, args: unknown): boolean {
  const tree = args as { include?: Record<string, unknown>; select?: Record<string, unknown> } | undefined;
  for (const part of [tree?.include, tree?.select]) {
    for (const [name, value] of Object.entries(part ?? {})) {
      const relation = relationsOf[model]?.[name];
      if (!relation || !value) continue;
      if (relation.toOneDistributed || readsToOne(relation.type, value)) return true;
    }
  }
  return false;
}

/**
 * On a Citus coordinator, a Prisma read that loads a to-one relation (a stop's `leg`, a leg's `load` and
 * `carrier`, a load's `activity`) loads its relations with queries of their own (`relationLoadStrategy:
 * 'query'`: `… WHERE (tenant_id, id) IN (…)`, the parents' tenant as a value) instead of `LATERAL` joins:
 * Citus cannot route such a join to one shard, and Prisma takes no `where` on a to-one relation to name
 * the tenant (docs/explanation/scaling.md). List relations name the tenant (`ofTenant`) and stay joins, so
 * `updates(first: n)` keeps its `LIMIT` where no to-one relation is read beside it. The rows are the same; on
 * plain PostgreSQL every read stays one statement. Whether the database is Citus is asked once, at the
 * first read (not at open: the service starts while its database is down).
 */
function toOneReadsByQueryOnCitus(prisma: PrismaClient, onCitus: () => Promise<boolean>): PrismaClient {
  // The extended client has PrismaClient's methods and types; only its reads' options change.
  return prisma.$extends({
    query: {
      $allModels: {
        async $allOperations({ model, operation, args, query }) {
          // Citus first (asked once, then a settled promise): plain PostgreSQL walks no read's tree.
          const byQuery = relationReads.has(operation) && (await onCitus()) && readsToOne(model, args);
          return query(byQuery ? { relationLoadStrategy: 'query', ...args } : args);
        },
      },
    },
  }) as unknown as PrismaClient;
}

/**
 * Errors of a connection that could not be opened (nothing ran): the node is unreachable for this service. Not
 * a connection lost during a call (`ECONNRESET`, `ETIMEDOUT`): the call may have run, and is not sent again.
 */
const unreachable = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', '28P01', '28000', '3D000']);

/**
 * On a Citus cluster, a pool per node that holds tenants' shards (docs/decisions/0055-calls-straight-to-the-node.md):
 * the coordinator's URL with the node's host and port, as Citus itself connects to its nodes (the same user,
 * password and database). A call sent straight to a tenant's node saves the coordinator's planning, delegation
 * and relay of every write. A node the service cannot reach (a network that lets only the coordinator in, other
 * credentials) is left to the coordinator from then on: the call that found it so is sent there, once, and a
 * warning says why.
 */
export function nodePools(url: string, max: number, onPoolError: (error: Error) => void) {
  const pools = new Map<string, pg.Pool>();
  const refused = new Set<string>();
  const runners = new Map<string, Run>();
  const on: NodeRun = (node) => {
    if (refused.has(node)) return null;
    let runner = runners.get(node);
    if (!runner) {
      const at = new URL(url);
      const colon = node.lastIndexOf(':');
      at.hostname = node.slice(0, colon);
      at.port = node.slice(colon + 1);
      const nodePool = new pg.Pool({ connectionString: at.toString(), max, options: sessionOptions });
      nodePool.on('error', onPoolError);
      pools.set(node, nodePool);
      runner = async (text, params, name) => {
        try {
          return (await nodePool.query({ text, values: params as unknown[], name })).rows as Record<string, unknown>[];
        } catch (error) {
          if (!unreachable.has((error as { code?: string }).code ?? '')) throw error;
          refused.add(node);
          console.warn(`Citus node ${node} refused the service's connection (${(error as Error).message}); its tenants' writes go through the coordinator`);
          throw Object.assign(new Error(`node ${node} unreachable`), { code: nodeUnreachable });
        }
      };
      runners.set(node, runner);
    }
    return runner;
  };
  return {
    on,
    /** The node pools' connections, summed (the service's pool statistics count them beside the coordinator's). */
    stats() {
      let total = 0;
      let idle = 0;
      let waiting = 0;
      for (const p of pools.values()) {
        total += p.totalCount;
        idle += p.idleCount;
        waiting += p.waitingCount;
      }
      return { total, idle, waiting };
    },
    async close() {
      await Promise.all([...pools.values()].map((p) => p.end()));
    },
  };
}

export async function openPostgres(url: string, max: number, onPoolError: (error: Error) => void): Promise<Database> {
  const pool = new pg.Pool({ connectionString: url, max, options: sessionOptions });
  const listeners = listenerSet();
  // An idle client that loses its connection emits 'error'; without a listener the process would exit.
  pool.on('error', onPoolError);
  const statements = statementObserver(postgresTarget(url));
  const adapterFactory = observeAdapterFactory(new ScriptSafePg(pool), statements.observe);
  // Whether the database is Citus is asked once, at the first call (not at open: the service starts while
  // its database is down); a failed question is asked again.
  let citus: Promise<boolean> | undefined;
  const onCitus = () =>
    (citus ??= isCitus(async (text, params) => (await pool.query<Record<string, unknown>>(text, params)).rows).catch(() => {
      citus = undefined;
      return false;
    }));
  const prisma = toOneReadsByQueryOnCitus(new PrismaClient({ adapter: adapterFactory }), onCitus);
  /**
   * Each runner's own connection, unobserved: a tenant statement on Citus is observed as the statement it
   * carries (traces and statement counts show `INSERT INTO "loads" …`, not the call that carries it).
   */
  const rawOf = new WeakMap<Sql, Run>();
  const observed = (on: pg.Pool | pg.PoolClient): Sql => {
    const raw: Run = async (text, params, name) => (await on.query({ text, values: params as unknown[], name })).rows as Record<string, unknown>[];
    const runner: Sql = {
      query: <Row>(text: string, params: readonly unknown[], name?: string) =>
        statements.observe(text, async () => (await raw(text, params, name)) as Row[], name),
    };
    rawOf.set(runner, raw);
    return runner;
  };
  const sql = observed(pool);
  const nodes = nodePools(url, max, onPoolError);
  // The tenants' shard names are read on the pool, unobserved (as the Citus question is): once per tenant.
  const tenants = tenantStatements(rawOf.get(sql)!, nodes.on);
  return {
    kind: 'postgres',
    prisma,
    adapterFactory,
    onStatement: statements.add,
    sql,
    tenantSql: (tenantId, on = sql) => ({
      query: async <Row>(text: string, params: readonly unknown[], name?: string): Promise<Row[]> => {
        const raw = rawOf.get(on);
        if (!raw || !(await onCitus())) return on.query<Row>(text, params, name);
        // Outside a transaction the call goes to the tenant's node straight; a transaction's stays on its connection.
        return statements.observe(text, () => tenants.on(tenantId, raw, on === sql).query<Row>(text, params), name);
      },
    }),
    citus: onCitus,
    async rehearse(work) {
      const client = await pool.connect();
      const run: RunStatement = async (text, params = [], name) =>
        (await client.query<Record<string, unknown>>({ text, values: params as unknown[], name })).rows;
      try {
        await client.query('BEGIN');
        const rehearsal = savepointed(run, statements.observe);
        // Its tenant statements are carried on Citus as a write's are (`tenantSql(tenant, rehearsal)`), each call
        // under its savepoint too; the rollback at the end undoes them on every node.
        const unobserved = savepointed(run, (_text, execute) => execute());
        rawOf.set(rehearsal, (text, params, name) => unobserved.query(text, params, name));
        return await work(rehearsal);
      } finally {
        // A connection that cannot roll back is dropped from the pool, not reused.
        await client.query('ROLLBACK').then(
          () => client.release(),
          (error: Error) => client.release(error),
        );
      }
    },
    transaction: (work) => inPoolTransaction(pool, (client) => work(observed(client))),
    listen: async (channel, onNotify, onReconnect) => listeners.add(await listenPostgres(url, channel, onNotify, onReconnect)),
    poolStats: () => {
      // On Citus, the connections to the tenants' nodes too (decision 0055).
      const onNodes = nodes.stats();
      const waiting = pool.waitingCount + onNodes.waiting;
      return { total: pool.totalCount + onNodes.total, idle: pool.idleCount + onNodes.idle, waiting, waitingRequests: waiting };
    },
    embeddedBusyMs: () => null,
    async close() {
      await listeners.closeAll();
      await prisma.$disconnect();
      await Promise.all([pool.end(), nodes.close()]);
    },
  };
}

/**
 * adapter-pg runs a migration script by splitting it on ';', which breaks function bodies
 * (`$$ … ; … $$`) and is not atomic. Send the whole script at once instead: PostgreSQL runs a
 * multi-statement simple query as one implicit transaction.
 */
export class ScriptSafePg extends PrismaPg {
  /** The pool, also for migrations' transactions (src/db/migrate.ts). */
  constructor(readonly pool: pg.Pool) {
    super(pool);
  }
  override async connect() {
    const adapter = await super.connect();
    adapter.executeScript = async (script: string) => {
      await this.pool.query(script);
    };
    return adapter;
  }
}
