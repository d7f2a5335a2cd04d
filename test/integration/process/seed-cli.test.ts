/**
 * `npm run seed` as a real child process against a running server: it fills the demo tenant through
 * the public API, and a wrong key fails with exit 1 and one plain line. `npm start -- --demo-data`
 * does the same on the first run, with the demo key it has just created (and with every core busy:
 * demo-data-under-load.test.ts).
 */
import { execFile } from 'node:child_process';
import { afterAll, beforeAll } from 'vitest';
import { describe, expect, test } from '../../fixtures.js';
import { childEnv, compiled, pgliteTarget, repoRoot, type Target } from '../cli/targets.js';
import { startServer } from './server-process.js';

const runSeed = (args: string[]) =>
  new Promise<{ code: number; output: string }>((resolve) => {
    execFile(process.execPath, [...compiled('cli/seed'), ...args], { cwd: repoRoot, env: childEnv({}) }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, output: stdout + stderr }),
    );
  });

describe('npm run seed', { timeout: 180_000 }, () => {
  let target: Target;
  beforeAll(() => {
    target = pgliteTarget();
  });
  afterAll(() => target.cleanup());

  test('fills the demo tenant of a running server; an unknown key exits 1 with a plain message', async () => {
    const server = startServer(target.env);
    try {
      const base = await server.started();
      const apiKey = (await server.waitFor(/First run: created tenant "demo"[\s\S]*?(tms_[A-Za-z0-9_-]{43})/))[1]!;

      const seeded = await runSeed(['--key', apiKey, '--url', base]);
      expect(seeded.code).toBe(0);
      expect(seeded.output).toMatch(/^Seeded http:\/\/127\.0\.0\.1:\d+: 10 status mappings; records \d+ processed\./);

      const res = await fetch(`${base}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
        body: JSON.stringify({ query: '{ loads { totalCount } carriers { totalCount } statusMappings { status } }' }),
      });
      const { data } = await res.json();
      expect(data).toEqual({ loads: { totalCount: 11 }, carriers: { totalCount: 3 }, statusMappings: expect.arrayContaining([{ status: 'Delivered' }]) });

      const refused = await runSeed(['--key', 'tms_not_a_key', '--url', base]);
      expect(refused.code).toBe(1);
      expect(refused.output).toMatch(/^Seeding failed: GraphQL answered 401/);
      expect(refused.output).not.toMatch(/\n\s+at /);
    } finally {
      await server.stop();
    }
  });
});

describe('npm start -- --demo-data', { timeout: 180_000 }, () => {
  const targets: Target[] = [];
  afterAll(() => Promise.all(targets.map((target) => target.cleanup())));

  test('fills the demo tenant it creates on first run, after listening, with the same data set', async () => {
    const target = pgliteTarget();
    targets.push(target);
    const server = startServer(target.env, ['--demo-data']);
    try {
      const base = await server.started();
      const apiKey = (await server.waitFor(/First run: created tenant "demo"[\s\S]*?(tms_[A-Za-z0-9_-]{43})/))[1]!;
      await server.waitFor(/Demo data: 10 status mappings; records \d+ processed\. Open http:\/\/127\.0\.0\.1:\d+\/graphql/);

      const res = await fetch(`${base}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
        body: JSON.stringify({ query: '{ loads { totalCount } carriers { totalCount } }' }),
      });
      expect((await res.json()).data).toEqual({ loads: { totalCount: 11 }, carriers: { totalCount: 3 } });
    } finally {
      await server.stop();
    }
  });

  test('an unknown option exits 1 with the usage line', async () => {
    const target = pgliteTarget();
    targets.push(target);
    const server = startServer(target.env, ['--demo']);
    expect(await server.exited).toBe(1);
    expect(server.output()).toMatch(/Unknown option '--demo'[\s\S]*Usage: npm start \[-- --demo-data\]/);
    expect(server.output()).not.toMatch(/\n\s+at /);
  });
});
