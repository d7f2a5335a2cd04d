/**
 * `npm start` as a real child process (node + tsx, as the npm script runs it) on a free port, with
 * helpers to wait for what it prints and for its exit.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { childEnv, repoRoot } from '../cli/targets.js';

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
}

/** `args` are what `npm start -- <args>` passes (for example `--demo-data`). */
export function startServer(env: Record<string, string>, args: string[] = []): ServerProcess {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts', ...args], {
    cwd: repoRoot,
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
    started: async () => `http://127.0.0.1:${(await waitFor(/listening on http:\/\/localhost:(\d+)/))[1]}`,
    async stop() {
      if (exitCode === undefined) child.kill('SIGTERM');
      return exited;
    },
  };
}
