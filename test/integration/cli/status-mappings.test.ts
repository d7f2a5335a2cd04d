/**
 * `npm run tenant -- list-status-mappings <slug> [--json]` (a tenant's status mapping, as the CLI and
 * GraphQL set it), and `npm run tenant -- … --json` through real npm: stdout carries JSON only (the
 * project's .npmrc sends npm's banner to stderr), so `| jq` works.
 */
import { execFile } from 'node:child_process';
import { afterAll, beforeAll } from 'vitest';
import { describe, expect, test } from '../../fixtures.js';
import { migrate } from '../../../src/db/migrate.js';
import { setStatusMapping } from '../../../src/domain/status-mapping/service.js';
import { createTenant } from '../../../src/domain/tenant/service.js';
import { uniqueSlug } from '../../helpers/app.js';
import { childEnv, repoRoot, runTenantCli, targets, type Target } from './targets.js';

describe.each(targets)('tenant CLI status mappings on $name', { timeout: 300_000 }, ({ create }) => {
  let target: Target;
  beforeAll(async () => {
    target = await create();
    await target.withDatabase((db) => migrate(db.adapterFactory)); // a fresh PGlite folder has no tables yet
  });
  afterAll(() => target.cleanup());

  const cli = (...args: string[]) => runTenantCli(args, target.env);

  test('list-status-mappings shows each TMS status and its phase, as a table and as JSON', async () => {
    const slug = uniqueSlug('map');
    const tenantId = await target.withDatabase(async (db) => (await createTenant(db, { slug, name: 'Mapper' })).tenant.id);

    const empty = await cli('list-status-mappings', slug);
    expect(empty.code, empty.stderr).toBe(0);
    expect(empty.stdout).toContain(`${slug} maps no status yet`);

    await target.withDatabase(async (db) => {
      await setStatusMapping(db, tenantId, 'Booked', 'COVERED');
      await setStatusMapping(db, tenantId, 'In Transit', 'IN_TRANSIT');
      await setStatusMapping(db, tenantId, 'booked ', 'DISPATCHED'); // the same status: replaced
    });

    const table = await cli('list-status-mappings', slug);
    expect(table.code, table.stderr).toBe(0);
    expect(table.stdout.trim().split('\n')).toEqual([
      expect.stringMatching(/^TMS STATUS\s+PHASE$/),
      expect.stringMatching(/^"booked"\s+DISPATCHED$/),
      expect.stringMatching(/^"In Transit"\s+IN_TRANSIT$/),
    ]);

    const json = await cli('list-status-mappings', slug, '--json');
    expect(json.stdout.trim().split('\n')).toHaveLength(1);
    expect(JSON.parse(json.stdout)).toEqual([
      { status: 'booked', phase: 'DISPATCHED', updatedAt: expect.stringMatching(/Z$/) },
      { status: 'In Transit', phase: 'IN_TRANSIT', updatedAt: expect.stringMatching(/Z$/) },
    ]);
  });

  test('an unknown tenant exits 3, a bad slug or a missing one exits 2', async () => {
    expect((await cli('list-status-mappings', uniqueSlug('nobody'))).code).toBe(3);
    expect((await cli('list-status-mappings', 'Not A Slug')).code).toBe(2);
    expect((await cli('list-status-mappings')).code).toBe(2);
  });

  const run = (command: string, args: string[]) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((done) => {
      execFile(command, args, { cwd: repoRoot, env: childEnv(target.env) }, (error, out, err) =>
        done({ code: error ? Number(error.code ?? 1) : 0, stdout: out, stderr: err }),
      );
    });

  test.each([
    ['npx tms-ingest tenant list --json', 'npx', ['tms-ingest', 'tenant', 'list', '--json']],
    ['npm run -s tenant -- list --json', 'npm', ['run', '-s', 'tenant', '--', 'list', '--json']],
  ])('%s prints JSON only on stdout (pipe it to jq)', async (_, command, args) => {
    const slug = uniqueSlug('npm');
    await target.withDatabase((db) => createTenant(db, { slug, name: 'Through npm' }));
    const { code, stdout, stderr } = await run(command, args);
    expect(code, stderr).toBe(0);
    expect(JSON.parse(stdout)).toContainEqual(expect.objectContaining({ slug, name: 'Through npm' }));
  });

  test("npm prints plain text, not JSON: a failing command ends with its own message and npm's plain lines", async () => {
    const { code, stdout, stderr } = await run('npm', ['run', 'tenant', '--', 'list-status-mappings', uniqueSlug('nobody')]);
    expect(code).toBe(3);
    expect(stdout).toContain('> tms-ingest@'); // npm's banner, as npm prints it by default
    expect(stderr).toMatch(/^No tenant "/m);
    expect(stderr).not.toMatch(/^\s*[{"]/m); // no npm JSON error object after the message
  });
});
