/**
 * `npm start` as a real child process on a free port: the compiled server (`node --enable-source-maps
 * dist/main.js`, what the npm script runs), or `npm start` itself in a process group of its own (as in a
 * terminal) with `viaNpm`; helpers to wait for what it prints and for its exit.
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { request, type IncomingHttpHeaders } from 'node:http';
import { availableParallelism } from 'node:os';
import { createTenant } from '../../../src/domain/tenant/service.js';
import { migrate } from '../../../src/db/migrate.js';
import { uniqueSlug } from '../../helpers/app.js';
import { childEnv, compiled, repoRoot, type Target } from '../cli/targets.js';

export interface ServerProcess {
  child: ChildProcess;
  /** Everything printed so far (stdout and stderr). */
  output(): string;
  /** Resolves with the first match of `pattern` in the output; rejects if the process exits first. */
  waitFor(pattern: RegExp): Promise<RegExpMatchArray>;
  /** Resolves with the exit code once the process has exited. */
  exited: Promise<number | null>;
  /** The base URL, once listening. */
  started(): Promise<string>;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
  /** The server's pid: the child's own, or under `npm start` npm's child process. */
  serverPid(): number;
}

/**
 * `args` are what `npm start -- <args>` passes (for example `--demo-data`). With `viaNpm`, the child is
 * `npm start`, the leader of a new process group (a terminal's Ctrl-C signals the whole group).
 */
export function startServer(env: Record<string, string>, args: string[] = [], { viaNpm = false } = {}): ServerProcess {
  const [command, commandArgs] = viaNpm ? ['npm', ['start', '--', ...args]] : [process.execPath, [...compiled('main'), ...args]];
  const child = spawn(command, commandArgs, {
    cwd: repoRoot,
    detached: viaNpm,
    // No overload shedding by default: a loaded test machine lags, and these tests are not about load.
    env: childEnv({ PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', INGEST_FLUSH_INTERVAL_MS: '60000', OVERLOAD_EVENT_LOOP_LAG_MS: '0', ...env }),
  });
  let output = '';
  const waiters = new Set<() => void>();
  const onData = (chunk: Buffer) => {
    output += chunk.toString();
    for (const check of waiters) check();
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  let exitCode: number | null | undefined;
  const exited = new Promise<number | null>((resolve) =>
    child.on('exit', (code) => {
      exitCode = code;
      for (const check of waiters) check();
      resolve(code);
    }),
  );

  function waitFor(pattern: RegExp) {
    return new Promise<RegExpMatchArray>((resolve, reject) => {
      const check = () => {
        const match = output.match(pattern);
        if (match) {
          waiters.delete(check);
          resolve(match);
        } else if (exitCode !== undefined) {
          waiters.delete(check);
          reject(new Error(`The server exited (${exitCode}) before printing ${pattern}:\n${output}`));
        }
      };
      waiters.add(check);
      check();
    });
  }

  return {
    child,
    output: () => output,
    waitFor,
    exited,
    started: async () => `http://127.0.0.1:${(await waitFor(/listening on http:\/\/127\.0\.0\.1:(\d+)/))[1]}`,
    async stop() {
      if (exitCode === undefined) child.kill('SIGTERM');
      return exited;
    },
    serverPid() {
      if (!viaNpm) return child.pid!;
      const children = execFileSync('ps', ['-o', 'pid=', '--ppid', String(child.pid)], { encoding: 'utf8' })
        .trim()
        .split(/\s+/);
      if (children.length !== 1) throw new Error(`npm start has ${children.length} child processes, expected the server alone: ${children.join(' ')}`);
      return Number(children[0]);
    },
  };
}

/**
 * The compiled server with `env` on a fresh database of the target (`create`), migrated, holding one
 * tenant (`slug`: a unique slug's prefix); `close()` stops the server and drops the database.
 */
export async function serveTenant(create: () => Promise<Target>, slug: string, env: Record<string, string>) {
  const target = await create();
  const tenant = await target.withDatabase(async (db) => {
    await migrate(db.adapterFactory);
    const { tenant: created, apiKey } = await createTenant(db, { slug: uniqueSlug(slug), name: `${slug} test` });
    return { slug: created.slug, apiKey };
  });
  const server = startServer({ ...target.env, ...env });
  const close = async () => {
    await server.stop();
    await target.cleanup();
  };
  const base = await server.started().catch(async (error: unknown) => {
    await close();
    throw error;
  });
  return { tenant, server, base, close, target };
}

/**
 * A POST that is provably in flight: sent with `Expect: 100-continue`, it resolves once the server has
 * answered 100 (it has taken the request); `send(body)` then sends the body and resolves with the answer.
 */
export async function inFlightPost(base: string, path: string, headers: Record<string, string>) {
  const { hostname, port } = new URL(base);
  const req = request({ host: hostname, port, method: 'POST', path, headers: { 'content-type': 'application/json', ...headers, expect: '100-continue' } });
  const response = new Promise<{ status: number; body: string; headers: IncomingHttpHeaders }>((resolve, reject) => {
    req.on('response', (res) => {
      let body = '';
      res.on('data', (chunk) => (body += chunk));
      res.on('end', () => resolve({ status: res.statusCode!, body, headers: res.headers }));
    });
    req.on('error', reject);
  });
  await new Promise((resolve) => req.once('continue', resolve));
  return {
    send(body: string) {
      req.write(body.slice(0, 20));
      req.end(body.slice(20));
      return response;
    },
  };
}

/**
 * One busy loop per core (at most four), in sibling processes: the machine is as loaded as it gets.
 * Each ends by itself after `maxMs` (kill them sooner when done). The test files that use them run
 * alone, after every other file (vitest.config.ts, `cpuBurners`).
 */
export function busySiblings(maxMs = 60_000): ChildProcess[] {
  const loop = `const end = Date.now() + ${maxMs}; while (Date.now() < end);`;
  return Array.from({ length: Math.min(availableParallelism(), 4) }, () => spawn(process.execPath, ['-e', loop], { stdio: 'ignore' }));
}
