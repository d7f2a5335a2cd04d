/**
 * What the hostile-input tests hold every answer to, and the tenants they run with: a fuzzing tenant
 * with a stored load tree (so generated permalinks hit real rows) and a victim tenant whose rows must
 * come out of every run unchanged.
 */
import { expect } from 'vitest';
import { errorStatus } from '../../src/errors.js';
import { recordSpecs } from '../../src/domain/registry.js';
import { loadUpdateBody, routes, seed, seedLoadTree } from '../factories/records.js';
import { apiFor, type TestApp, type TestTenant } from '../helpers/app.js';
import type { Pool } from './surface.js';

/** Seed and replay: `FUZZ_SEED=<seed> [FUZZ_PATH=<path>] npm run fuzz`. */
export const fuzzSeed = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : Math.floor(Math.random() * 2 ** 31);
export const fuzzPath = process.env.FUZZ_PATH || undefined;
/** Generated cases per operation: a few in `npm test`, 5,000 in `npm run fuzz`. */
export const fuzzRuns = Number(process.env.FUZZ_RUNS ?? 25);
/** Generated cases per GraphQL root field (each query's arguments, each mutation's input). */
export const graphqlRuns = Number(process.env.FUZZ_GRAPHQL_RUNS ?? fuzzRuns);

export const adminKey = 'fuzz-admin-key-0123456789abcdef0123456789';

/** Rate limits high enough never to mask an answer (the fuzzer measures correctness, not pacing). */
export const fuzzEnv: Record<string, string> = { ADMIN_API_KEY: adminKey };

/** A tenant with one stored load tree (carrier, load, leg, stop, update); its permalinks and ids by field. */
export async function seededTenant(testApp: TestApp): Promise<{ tenant: TestTenant; pool: Pool }> {
  const tenant = await testApp.createTenant();
  const api = apiFor(testApp, tenant.apiKey);
  const tree = await seedLoadTree(api, tenant);
  const update = await seed(api, routes.load_update, loadUpdateBody(tenant, tree.load));
  const pool: Pool = new Map();
  for (const body of [tree.carrier, tree.load, tree.leg, tree.stop, update]) {
    for (const [field, value] of Object.entries(body)) {
      if (typeof value === 'string' && (field.endsWith('_permalink') || field.endsWith('_id')))
        pool.set(field, [...new Set([...(pool.get(field) ?? []), value])]);
    }
  }
  return { tenant, pool };
}

const tables = recordSpecs.map((spec) => spec.table);

/** Every row a tenant owns (records, status mappings, the tenant itself), for before/after comparison. */
export async function snapshot(testApp: TestApp, tenantId: string): Promise<unknown[]> {
  const { sql } = testApp.database.db;
  const rows: unknown[] = [];
  for (const table of [...tables, 'status_mappings', 'phase_changes', 'api_keys']) {
    const found = await sql.query<{ row: unknown }>(`SELECT to_jsonb(t) AS row FROM ${table} t WHERE tenant_id = $1 ORDER BY t.id`, [tenantId]);
    rows.push(...found.map((r) => ({ table, row: r.row })));
  }
  rows.push(...(await sql.query<{ row: unknown }>('SELECT to_jsonb(t) AS row FROM tenants t WHERE id = $1', [tenantId])));
  return rows;
}

/** Which of `permalinks` are stored as a record of the tenant. */
async function storedPermalinks(testApp: TestApp, tenantId: string, permalinks: string[]): Promise<string[]> {
  if (!permalinks.length) return [];
  const union = tables.map((table) => `SELECT permalink FROM ${table} WHERE tenant_id = $1 AND permalink = ANY($2::text[])`).join(' UNION ');
  const rows = await testApp.database.db.sql.query<{ permalink: string }>(union, [tenantId, permalinks]);
  return rows.map((r) => r.permalink);
}

/** String values under permalink-named keys (`*_permalink`, `*Permalink`; not the company's), anywhere in a value. */
function permalinksIn(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) for (const v of value) permalinksIn(v, out);
  else if (value && typeof value === 'object') {
    for (const [key, v] of Object.entries(value)) {
      if (typeof v === 'string' && /(_p|P)ermalink$/.test(key) && !/^company_?[pP]ermalink$/.test(key)) out.push(v);
      else permalinksIn(v, out);
    }
  }
  return out;
}

/** Permalinks an answer says were written or already there (REST results, GraphQL data). */
export function acceptedIn(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) for (const v of value) acceptedIn(v, out);
  else if (value && typeof value === 'object') {
    const o = value as Record<string, unknown>;
    if (typeof o.permalink === 'string' && !o.error) out.push(o.permalink);
    for (const v of Object.values(o)) acceptedIn(v, out);
  }
  return out;
}

/**
 * "Nothing is stored for a rejected record", checked in one query per fuzzed operation: every
 * permalink a request named that was not stored before must be absent at the end unless some answer
 * accepted it. `note` keeps the first request naming each permalink, for the report.
 */
export class StoredCheck {
  private readonly accepted = new Set<string>();
  private readonly named = new Map<string, string>();

  constructor(private readonly known: Set<string>) {}

  note(sent: unknown, answer: unknown, describe: () => string) {
    for (const p of acceptedIn(answer)) {
      this.accepted.add(p);
      this.known.add(p); // at once: a later operation may name it even if this one fails before verify()
    }
    for (const p of permalinksIn(sent)) {
      // A permalink holding NUL cannot be stored (nor looked up) in PostgreSQL: nothing to check.
      if (!this.known.has(p) && !p.includes('\u0000') && !this.named.has(p)) this.named.set(p, describe());
    }
  }

  async verify(testApp: TestApp, tenantId: string) {
    const stored = await storedPermalinks(testApp, tenantId, [...this.named.keys()]);
    const leaked = stored.filter((p) => !this.accepted.has(p)).map((p) => ({ permalink: p, request: this.named.get(p) }));
    expect(leaked, 'stored although every answer naming it rejected it').toEqual([]);
  }
}

export interface Answer {
  status: number;
  contentType: string;
  text: string;
  body: any;
}

/** Sends a request; a hang (no answer within `ms`) fails like a 500 would. */
export async function send(testApp: TestApp, path: string, init: RequestInit, ms = 20_000): Promise<Answer> {
  let timer: NodeJS.Timeout | undefined;
  const hang = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms: a hang`)), ms);
  });
  try {
    const res = await Promise.race([testApp.fetch(path, init), hang]);
    const text = await Promise.race([res.text(), hang]);
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
    return { status: res.status, contentType: res.headers.get('content-type') ?? '', text, body };
  } finally {
    clearTimeout(timer);
  }
}

/** A REST answer: 200, or a 4xx in the contract's error shape whose code matches its status; JSON either way. */
export function expectRestContract(answer: Answer) {
  const where = `${answer.status} ${answer.text.slice(0, 300)}`;
  expect(answer.status, where).toBeLessThan(500);
  expect(answer.status === 200 || answer.status >= 400, where).toBe(true);
  expect(answer.contentType, where).toMatch(/^application\/json/);
  expect(answer.body, where).toBeTypeOf('object');
  if (answer.status >= 400) {
    const code = answer.body?.error?.code as keyof typeof errorStatus;
    expect(errorStatus[code], where).toBe(answer.status);
    expect(answer.body.error.message, where).toBeTypeOf('string');
  }
}

/** A GraphQL answer: JSON, no 5xx, and no error that is a fault (masked INTERNAL_SERVER_ERROR, internal, unavailable). */
export function expectGraphQLContract(answer: Answer) {
  const where = `${answer.status} ${answer.text.slice(0, 500)}`;
  expect(answer.status, where).toBeLessThan(500);
  expect(answer.contentType, where).toMatch(/^application\/(graphql-response\+)?json/);
  expect(answer.body, where).toBeTypeOf('object');
  for (const error of answer.body.errors ?? []) {
    expect(['INTERNAL_SERVER_ERROR', 'internal', 'unavailable'], where).not.toContain(error.extensions?.code);
    expect(error.message, where).not.toBe('Unexpected error.');
  }
}
