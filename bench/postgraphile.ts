/**
 * The load board's yardstick: PostGraphile 4 (what a team would pick instead of us for GraphQL reads over
 * PostgreSQL) serving the same board from the same database (`npm run bench -- --only
 * load-board-postgraphile`; docs/decisions/0031-postgraphile-in-the-bench.md).
 *
 * PostGraphile needs graphql 15 and the service keeps a single graphql 16, so it lives in
 * bench/postgraphile/ with its own lock file, installed on first use by scripts/bench-postgraphile.sh,
 * which then runs bench/postgraphile/server.js as a child process on a free loopback port.
 *
 * Scope: PostGraphile connects as the service does (the bench database's owner) and sees every tenant;
 * its board names the tenant in the query (`condition: { tenantId }`), which costs it no key check and no
 * extra SQL: the cheapest way it has to the same rows, so the yardstick is not slowed by our choice.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type pg from 'pg';
import { startServer, type Started } from './processes.js';

/** The version of PostGraphile installed in bench/postgraphile (after its start installed it). */
export function postgraphileVersion(root: string): string {
  return (JSON.parse(readFileSync(join(root, 'bench/postgraphile/node_modules/postgraphile/package.json'), 'utf8')) as { version: string }).version;
}

/**
 * The board's `tmsUrl` in PostGraphile's schema: a computed column (`loads_tms_url(loads)` becomes
 * `Load.tmsUrl`), the tenant's template with `{key}` replaced by the unique key of the load's first live
 * leg (by sequence) that has one, as the service computes it (src/domain/load/queries.ts `tmsUrlOf`;
 * the service also percent-encodes the key: the bench's keys, `K<n>.<seq>`, need none, and the answer
 * check below would tell).
 */
const tmsUrlFunction = `
CREATE OR REPLACE FUNCTION public.loads_tms_url(l public.loads) RETURNS text LANGUAGE sql STABLE AS $$
  SELECT replace(t.tms_url_template, '{key}', g.load_unique_key)
  FROM public.tenants t,
  LATERAL (SELECT load_unique_key FROM public.load_legs
           WHERE load_id = l.id AND deleted_at IS NULL AND load_unique_key <> ''
           ORDER BY sequence NULLS LAST, created_at LIMIT 1) g
  WHERE t.id = l.tenant_id
$$`;

/** Starts PostGraphile over the database of `url` (installing it first if needed); returns the tenant `slug`'s id for its board. */
export async function startPostgraphile(
  root: string,
  client: pg.Client,
  url: string,
  slug: string,
  logFile: string,
): Promise<{ server: Started; tenantId: string }> {
  await client.query(tmsUrlFunction);
  const { rows } = await client.query<{ id: string }>('SELECT id FROM tenants WHERE slug = $1', [slug]);
  const server = await startServer(
    join(root, 'scripts/bench-postgraphile.sh'),
    [],
    { ...process.env, DATABASE_URL: url, PORT: '0', NODE_ENV: 'production' },
    logFile,
    /listening (\d+)/,
  );
  return { server, tenantId: rows[0]!.id };
}

/**
 * The board's query in PostGraphile's schema (default inflection, lists beside connections): the same
 * 50 loads (the tenant's live loads, newest created first: the service's `CREATED_DESC`, created_at then
 * id, both descending), each with its live legs by sequence, their carrier and live stops by sequence,
 * and its latest update (occurredAt descending, NULLs last, then created_at and id), under the service's
 * field names (aliases), with or without `totalCount`.
 */
export function postgraphileBoard(tenantId: string, totalCount: boolean): string {
  const live = 'condition: { deletedAt: null }';
  return /* GraphQL */ `query LoadBoard {
  loads: allLoads(first: 50, condition: { tenantId: "${tenantId}", deletedAt: null }, orderBy: [CREATED_AT_DESC, ID_DESC]) {
    ${totalCount ? 'totalCount' : ''}
    pageInfo { hasNextPage endCursor }
    edges { node {
      permalink tmsId status phase customerName bolNumber poNumber tmsUrl changedAt
      legs: loadLegsByTenantIdAndLoadIdList(${live}, orderBy: [SEQUENCE_ASC, CREATED_AT_ASC]) {
        permalink sequence driverName driverPhone truckNumber trailerNumber
        carrier: carrierByTenantIdAndCarrierId { permalink name mcNumber scac }
        stops: stopsByTenantIdAndLegIdList(${live}, orderBy: [SEQUENCE_ASC, CREATED_AT_ASC]) {
          permalink sequence type locationName city state appointmentStart appointmentEnd arrivedAt departedAt
        }
      }
      updates: loadUpdatesByTenantIdAndLoadIdList(first: 1, orderBy: [OCCURRED_AT_NULLS_LAST_DESC, CREATED_AT_DESC, ID_DESC]) {
        type occurredAt status phase latitude longitude city state message
      }
    } }
  }
}`;
}

interface Page {
  totalCount?: number;
  pageInfo: { hasNextPage: boolean; endCursor: string };
  edges: { node: Record<string, unknown> }[];
}

/** The page of a board answer (the service's `loads`, PostGraphile's `allLoads` aliased `loads`), or an error naming what came back. */
function pageOf(who: string, text: string): Page {
  const body = JSON.parse(text) as { errors?: unknown[]; data?: { loads?: Page } };
  if (body.errors?.length || !body.data?.loads?.edges.length) throw new Error(`${who}'s board answered no page: ${text.slice(0, 500)}`);
  return body.data.loads;
}

/** Instants compared as instants (the service answers `…Z` with milliseconds, PostGraphile PostgreSQL's `…+00:00`). */
const instant = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/;

/** A value in one form for both schemas: instants as epoch milliseconds, enum values (`phase`, `type`) in lower case. */
function normalise(value: unknown, key = ''): unknown {
  if (Array.isArray(value)) return value.map((v) => normalise(v));
  if (value && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, normalise(v, k)]));
  if (typeof value === 'string' && instant.test(value)) return Date.parse(value);
  if (typeof value === 'string' && (key === 'phase' || key === 'type')) return value.toLowerCase();
  return value;
}

/**
 * Where the two answers differ, or null: the same loads in the same order with the same legs, carriers,
 * stops and latest update, the same `hasNextPage`, and counts that agree (the service's `totalCount` is
 * exact up to 1,000 and says 1,000 beyond: decision 0022). Cursors are each schema's own.
 */
export function boardDifference(serviceAnswer: string, postgraphileAnswer: string): string | null {
  const ours = pageOf('the service', serviceAnswer);
  const theirs = pageOf('PostGraphile', postgraphileAnswer);
  if (ours.totalCount !== undefined && theirs.totalCount !== undefined) {
    const agree = ours.totalCount < 1_000 ? ours.totalCount === theirs.totalCount : theirs.totalCount >= 1_000;
    if (!agree) return `totalCount: the service ${ours.totalCount}, PostGraphile ${theirs.totalCount}`;
  }
  if (ours.pageInfo.hasNextPage !== theirs.pageInfo.hasNextPage)
    return `hasNextPage: the service ${ours.pageInfo.hasNextPage}, PostGraphile ${theirs.pageInfo.hasNextPage}`;
  if (ours.edges.length !== theirs.edges.length) return `loads: the service ${ours.edges.length}, PostGraphile ${theirs.edges.length}`;
  for (const [i, edge] of ours.edges.entries()) {
    const a = JSON.stringify(normalise(edge.node));
    const b = JSON.stringify(normalise(theirs.edges[i]!.node));
    if (a !== b) return `load ${i + 1}:\n  the service  ${a}\n  PostGraphile ${b}`;
  }
  return null;
}

/** Errors in a PostGraphile board answer (GraphQL errors, or no loads), as run.ts counts the service's. */
export function postgraphileErrors(text: string): number {
  const body = JSON.parse(text) as { errors?: unknown[]; data?: { loads?: { edges?: unknown[] } } };
  return body.errors?.length || !body.data?.loads?.edges?.length ? 1 : 0;
}

/** The figures of a measured row the comparison reads. */
interface Measured {
  requestsPerSecond: number;
  p99Ms: number;
  cpuMsPerRequest: number;
  dbCpuMsPerRequest?: number;
}

/** The service's ratios to PostGraphile for one board (answers/s, p99, service and database CPU per answer). */
export function postgraphileRatios(label: string, ours: Measured, theirs: Measured): Record<string, number> {
  const ratios: Record<string, number> = {
    [`service / PostGraphile answers/s, ${label}`]: ours.requestsPerSecond / theirs.requestsPerSecond,
    [`service / PostGraphile p99, ${label}`]: ours.p99Ms / theirs.p99Ms,
    [`service / PostGraphile CPU ms per answer, ${label}`]: ours.cpuMsPerRequest / theirs.cpuMsPerRequest,
  };
  if (ours.dbCpuMsPerRequest && theirs.dbCpuMsPerRequest)
    ratios[`service / PostGraphile database CPU ms per answer, ${label}`] = ours.dbCpuMsPerRequest / theirs.dbCpuMsPerRequest;
  return ratios;
}
