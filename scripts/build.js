// `npm run build` (also run by `npm install`): every src/**/*.ts → dist/**/*.js with a source map, file
// for file (no bundle), so dist/ keeps src/'s layout and paths the code resolves from its own file
// (prisma/, package.json, schema.graphql: two levels up) are the same from both. esbuild only strips the
// types (about a second); `npm run typecheck` (tsc --noEmit) is the type gate, in `npm run lint`'s
// company in CI. The build goes to a new directory that then replaces dist/ (two renames), so no file
// of a deleted source survives and a process started meanwhile (a test run) never finds dist/ half-built.
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Buffer } from 'node:buffer';
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

// The generated Prisma client imports its query compiler as a module holding the WebAssembly as a
// base64 string (4.4 MB), decoded at the first query: the module's source and the string stay on the
// heap for the life of the process (about 9 MB). The compiled client instead compiles the .wasm file
// written next to it (docs/guides/production-build.md, "Footprint"). Same line count: source maps hold.
const clientClass = join(next, 'db/generated/prisma/internal/class.js');
const base64Import =
  /const \{ wasm \} = await import\("(@prisma\/client\/runtime\/query_compiler_\w+\.postgresql)\.wasm-base64\.mjs"\);\n(\s*)return await decodeBase64AsWasm\(wasm\);/;
const clientSource = readFileSync(clientClass, 'utf8');
const found = base64Import.exec(clientSource);
if (!found) throw new Error(`${clientClass}: the query compiler's base64 import was not found (did Prisma change its generated client?)`);
const { wasm } = await import(`${found[1]}.wasm-base64.mjs`);
writeFileSync(join(next, 'db/generated/prisma/internal/query_compiler.wasm'), Buffer.from(wasm, 'base64'));
writeFileSync(
  clientClass,
  clientSource.replace(
    base64Import,
    (_, _module, indent) =>
      `const { readFile } = await import("node:fs/promises");\n${indent}return WebAssembly.compile(await readFile(new URL("./query_compiler.wasm", import.meta.url)));`,
  ),
);

if (existsSync(dist)) renameSync(dist, previous);
renameSync(next, dist);
rmSync(previous, { recursive: true, force: true });
