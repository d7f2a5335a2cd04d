// `npm run build` (also run by `npm install`): every src/**/*.ts → dist/**/*.js with a source map, file
// for file (no bundle), so dist/ keeps src/'s layout and paths the code resolves from its own file
// (prisma/, package.json, schema.graphql: two levels up) are the same from both. esbuild only strips the
// types (about a second); `npm run typecheck` (tsc --noEmit) is the type gate, in `npm run lint`'s
// company in CI. The build goes to a new directory that then replaces dist/ (two renames), so no file
// of a deleted source survives and a process started meanwhile (a test run) never finds dist/ half-built.
import { existsSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { pid } from 'node:process';
import { build } from 'esbuild';

const root = join(import.meta.dirname, '..');
const src = join(root, 'src');
const entryPoints = readdirSync(src, { recursive: true, encoding: 'utf8' })
  .filter((file) => file.endsWith('.ts'))
  .map((file) => join(src, file));
const dist = join(root, 'dist');
const next = `${dist}.next-${pid}`;
const previous = `${dist}.previous-${pid}`;
await build({
  entryPoints,
  outdir: next,
  outbase: src,
  format: 'esm',
  platform: 'node',
  target: 'node20.19',
  sourcemap: true,
  logLevel: 'warning',
});
if (existsSync(dist)) renameSync(dist, previous);
renameSync(next, dist);
rmSync(previous, { recursive: true, force: true });
