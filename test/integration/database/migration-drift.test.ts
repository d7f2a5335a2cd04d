/**
 * `npm run db:migrate -- --create <name>` on an unchanged tree writes nothing: prisma/schema.prisma says
 * what prisma/migrations build, so the next migration anyone creates carries only what they changed (a
 * relation or key the schema keeps and a migration dropped would come back in it). Run as a contributor
 * runs it, the compiled CLI, on a copy of the tree in a temporary folder (package.json, prisma/, dist/;
 * node_modules linked), so a drift never writes into the repository.
 */
import { execFile } from 'node:child_process';
import { appendFileSync, cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, expect, test } from 'vitest';
import { projectRoot } from '../../../src/paths.js';

const run = promisify(execFile);
const copies: string[] = [];
afterEach(() => {
  for (const dir of copies.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A copy of what `db:migrate -- --create` reads and writes, and the compiled CLI. */
function copyOfTree(): string {
  const dir = mkdtempSync(join(tmpdir(), 'tms-migration-drift-'));
  copies.push(dir);
  writeFileSync(join(dir, 'package.json'), readFileSync(join(projectRoot, 'package.json')));
  for (const folder of ['prisma', 'dist']) cpSync(join(projectRoot, folder), join(dir, folder), { recursive: true });
  symlinkSync(join(projectRoot, 'node_modules'), join(dir, 'node_modules'), 'dir');
  return dir;
}

async function createMigration(dir: string): Promise<{ stdout: string; created: string[] }> {
  const before = new Set(readdirSync(join(dir, 'prisma/migrations')));
  const { stdout } = await run(process.execPath, ['dist/cli/db-migrate.js', '--create', 'probe'], { cwd: dir, env: { ...process.env, NODE_ENV: 'test' } });
  return { stdout, created: readdirSync(join(dir, 'prisma/migrations')).filter((name) => !before.has(name)) };
}

test('on an unchanged tree it writes nothing: the schema matches the migrations', async () => {
  const dir = copyOfTree();
  const { stdout, created } = await createMigration(dir);
  const written = created.map((name) => readFileSync(join(dir, 'prisma/migrations', name, 'migration.sql'), 'utf8')).join('\n');
  expect(written, 'prisma/schema.prisma differs from prisma/migrations: this is what the next migration would carry').toBe('');
  expect(stdout).toContain('The schema matches the migrations: nothing to create.');
}, 180_000);

test('a change to the schema is written as a migration (the check above can fail)', async () => {
  const dir = copyOfTree();
  appendFileSync(join(dir, 'prisma/schema.prisma'), '\nmodel DriftProbe {\n  id Int @id\n\n  @@map("drift_probe")\n}\n');
  const { created } = await createMigration(dir);
  expect(created).toEqual([expect.stringMatching(/^\d{14}_probe$/)]);
  expect(readFileSync(join(dir, 'prisma/migrations', created[0]!, 'migration.sql'), 'utf8')).toContain('CREATE TABLE "drift_probe"');
}, 180_000);
