/**
 * What the `tms-ingest push` process tests need: a generated TMS export of the five kinds (CSV and
 * NDJSON files, as an integrator's export would be), the push CLI as a child process (the compiled
 * `dist/cli/push.js`, what `npm run push` runs), an integrator's project that installs this repository
 * with npm, tenants made over the admin key, and GraphQL reads.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { childEnv, compiled, repoRoot } from '../cli/targets.js';

type Row = Record<string, string | number | null>;

const csvCell = (value: string | number | null) => {
  if (value === null) return '';
  const text = String(value);
  return /[",\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
};

export const toCsv = (rows: Row[], columns = Object.keys(rows[0]!)) =>
  `${[columns.join(','), ...rows.map((row) => columns.map((c) => csvCell(row[c] ?? null)).join(','))].join('\n')}\n`;

export const toNdjson = (rows: unknown[]) => rows.map((row) => `${JSON.stringify(row)}\n`).join('');

/** A first sync of `loads` loads for tenant `slug`: carriers (1 per 20 loads), loads, one leg each, two stops each, one update each. */
export function firstSync(slug: string, loads: number) {
  const carriers = Math.max(1, Math.floor(loads / 20));
  const p = (id: string) => `${id}-${slug}`;
  const at = (hours: number) => new Date(Date.UTC(2026, 10, 1) + hours * 3_600_000).toISOString();
  return {
    carriers: Array.from({ length: carriers }, (_, i) => ({
      native_system_carrier_permalink: p(`C${i}`),
      native_system_carrier_id: `C${i}`,
      carrier_name: `Carrier ${i}, Inc.`,
      mc_number: `MC${1000 + i}`,
      dot_number: null,
    })),
    loads: Array.from({ length: loads }, (_, i) => ({
      native_system_load_permalink: p(`L${i}`),
      native_system_load_id: `L${i}`,
      native_system_load_status: i % 2 ? 'Booked' : 'In Transit',
      native_system_customer_reference_number: `CR-${i}`,
      bol_number: `BOL-${i}`,
      po_number: null,
    })),
    legs: Array.from({ length: loads }, (_, i) => ({
      native_system_load_leg_permalink: p(`G${i}`),
      native_system_load_leg_id: `G${i}`,
      load_leg_sequence: 1,
      native_system_load_id: `L${i}`,
      native_system_load_permalink: p(`L${i}`),
      native_system_carrier_permalink: p(`C${i % carriers}`),
      driver_name: `Driver "${i % 7}"`,
    })),
    stops: Array.from({ length: loads * 2 }, (_, i) => ({
      native_system_stop_permalink: p(`S${i}`),
      native_system_stop_id: `S${i}`,
      native_system_load_leg_permalink: p(`G${i >> 1}`),
      stop_sequence: (i & 1) + 1,
      stop_type: i & 1 ? 'delivery' : 'pickup',
      city: i & 1 ? 'Dallas' : 'Chicago',
      latitude: i & 1 ? 32.78 : 41.88,
      longitude: i & 1 ? -96.8 : -87.63,
      appointment_start: at(i),
      appointment_end: at(i + 2),
    })),
    updates: Array.from({ length: loads }, (_, i) => ({
      native_system_load_update_permalink: p(`U${i}`),
      native_system_load_permalink: p(`L${i}`),
      update_type: 'gps_ping',
      occurred_at: at(i),
      latitude: 40.1,
      longitude: -90.2,
      source: 'ELD',
    })),
  };
}

const tempDir = () => mkdtempSync(join(tmpdir(), 'tms-ingest-push-'));

/** Writes files into a new directory (name → content); returns the directory. */
export function writeDirectory(files: Record<string, string>) {
  const dir = tempDir();
  for (const [name, content] of Object.entries(files)) writeFileSync(join(dir, name), content);
  return dir;
}

/** A command's exit code and output. */
export interface PushResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `file` with `args` in `cwd` (a child process of the test's environment plus `env`). */
export function runIn(cwd: string, file: string, args: string[], env: Record<string, string> = {}): Promise<PushResult> {
  return new Promise((done) => {
    execFile(file, args, { cwd, env: childEnv(env), maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) =>
      done({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** `npm run push -- <args>` as a child process (the compiled CLI). */
export const runPush = (args: string[], env: Record<string, string> = {}) => runIn(repoRoot, process.execPath, [...compiled('cli/push'), ...args], env);

/**
 * A new TypeScript project (`files`: name → content) that installs this repository as an integrator
 * does (`npm install <path of the repository>`): npm links the package into `node_modules/tms-ingest`
 * and its `bin` into `node_modules/.bin/tms-ingest`. Offline (the link needs nothing from the
 * registry), and without running the package's postinstall (it builds dist/, which
 * test/setup/build.ts has built already: a second build would replace it under the other tests).
 */
export async function integratorProject(files: Record<string, string>) {
  const project = writeDirectory({ 'package.json': JSON.stringify({ name: 'integrator', type: 'module', private: true }), ...files });
  const installed = await runIn(project, 'npm', ['install', '--offline', '--ignore-scripts', '--no-audit', '--no-fund', repoRoot]);
  if (installed.code !== 0) throw new Error(`npm install ${repoRoot} failed (${installed.code}):\n${installed.stderr}`);
  return project;
}

/** The push CLI started (not awaited): its stderr as it comes, for tests that act in the middle of a push. */
export function startPush(args: string[]) {
  const child: ChildProcess = spawn(process.execPath, [...compiled('cli/push'), ...args], { cwd: repoRoot, env: childEnv({}) });
  let stderr = '';
  let stdout = '';
  const waiters = new Set<() => void>();
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
    for (const check of waiters) check();
  });
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return {
    child,
    exited,
    output: () => ({ stdout, stderr }),
    /** Resolves once a progress line says at least `records` records of `file` are done. */
    progressed(file: string, records: number) {
      const line = new RegExp(`push ${file.replace('.', '\\.')}: ([\\d,]+)`, 'g');
      return new Promise<void>((resolve, reject) => {
        const check = () => {
          const reached = [...stderr.matchAll(line)].some((m) => Number(m[1]!.replace(/,/g, '')) >= records);
          if (reached) {
            waiters.delete(check);
            resolve();
          }
        };
        waiters.add(check);
        void exited.then(() => {
          if (waiters.delete(check)) reject(new Error(`push exited before ${records} records of ${file}:\n${stderr}`));
        });
        check();
      });
    },
  };
}

/** A free TCP port on 127.0.0.1 (for a server restarted on the same address). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

/** A GraphQL request; throws on errors. */
export async function graphql<Data>(
  base: string,
  key: string,
  query: string,
  variables: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Promise<Data> {
  const res = await fetch(`${base}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': key, ...headers },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await res.json()) as { data?: Data; errors?: unknown[] };
  if (body.errors?.length || !body.data) throw new Error(`GraphQL answered ${res.status}: ${JSON.stringify(body)}`);
  return body.data;
}

/** Every load of the tenant with its legs' and stops' permalinks and its updates', page by page. */
export async function storedLoads(base: string, key: string) {
  type Node = {
    permalink: string;
    legs: { permalink: string; carrier: { permalink: string } | null; stops: { permalink: string }[] }[];
    updates: { permalink: string }[];
  };
  const loads: Node[] = [];
  let after: string | null = null;
  for (;;) {
    const page: { loads: { edges: { node: Node }[]; pageInfo: { hasNextPage: boolean; endCursor: string | null } } } = await graphql(
      base,
      key,
      `query Page($after: String) { loads(first: 100, after: $after) { pageInfo { hasNextPage endCursor }
        edges { node { permalink legs { permalink carrier { permalink } stops { permalink } } updates(first: 100) { permalink } } } } }`,
      { after },
    );
    loads.push(...page.loads.edges.map((e) => e.node));
    if (!page.loads.pageInfo.hasNextPage) return loads;
    after = page.loads.pageInfo.endCursor;
  }
}

/** Every carrier permalink of the tenant. */
export async function storedCarriers(base: string, key: string) {
  const carriers: string[] = [];
  let after: string | null = null;
  for (;;) {
    const page: { carriers: { edges: { node: { permalink: string } }[]; pageInfo: { hasNextPage: boolean; endCursor: string | null } } } = await graphql(
      base,
      key,
      'query Page($after: String) { carriers(first: 100, after: $after) { pageInfo { hasNextPage endCursor } edges { node { permalink } } } }',
      { after },
    );
    carriers.push(...page.carriers.edges.map((e) => e.node.permalink));
    if (!page.carriers.pageInfo.hasNextPage) return carriers;
    after = page.carriers.pageInfo.endCursor;
  }
}

/** A new tenant over the admin key (`createTenant`); `rateLimit` sets its bucket (`setTenantRateLimit`). */
export async function adminTenant(base: string, adminKey: string, slug: string, rateLimit?: { recordsPerSecond: number; burst: number }) {
  const { createTenant } = await graphql<{ createTenant: { apiKey: string; tenant: { slug: string } } }>(
    base,
    adminKey,
    'mutation New($slug: String!) { createTenant(slug: $slug, name: $slug) { apiKey tenant { slug } } }',
    { slug },
  );
  if (rateLimit) {
    await graphql(
      base,
      adminKey,
      'mutation Limit($slug: String!, $rate: Int, $burst: Int) { setTenantRateLimit(slug: $slug, recordsPerSecond: $rate, burst: $burst) { slug } }',
      {
        slug,
        rate: rateLimit.recordsPerSecond,
        burst: rateLimit.burst,
      },
    );
  }
  return { slug: createTenant.tenant.slug, apiKey: createTenant.apiKey };
}
