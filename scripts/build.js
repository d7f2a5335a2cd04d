// `npm run build` (also run by `npm install`): bundles src/ into dist/ with esbuild, with source maps.
// Entries keep their paths (dist/main.js, dist/cli/*.js, dist/db/migrate-worker.js, dist/db/migrate.js);
// the code they share goes to dist/chunks/. Pure-JavaScript packages (GraphQL Yoga, Pothos, zod,
// graphql-tools…, some 800 ES modules) are bundled in: Node then loads a few files instead of resolving
// and linking each of them at every start (decision 0020). Packages that find files of their own at run
// time (PGlite, Prisma's runtime and schema engine, Redoc, Chart.js, GraphiQL's assets) or must stay one
// copy (`graphql`, also required at run time) stay external, loaded from node_modules, as does the
// OpenTelemetry SDK: imported dynamically, only when tracing is on (decision 0027). Code finds the
// repository's files through src/paths.ts, whatever the depth of the chunk it ends up in.
// esbuild only strips the types; `npm run typecheck` (tsc --noEmit) is the type gate. The build goes to
// a new directory that then replaces dist/ (two renames), so nothing of a deleted source survives and
// a process started meanwhile (a test run) never finds dist/ half-built.
import { cpSync, existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Buffer } from 'node:buffer';
import { pid } from 'node:process';
import { build } from 'esbuild';

const root = join(import.meta.dirname, '..');
const src = join(root, 'src');
const dist = join(root, 'dist');
const next = `${dist}.next-${pid}`;
const previous = `${dist}.previous-${pid}`;

const entryPoints = ['main', 'cli/bin', 'cli/tenant', 'cli/seed', 'cli/db-migrate', 'db/migrate', 'db/migrate-worker'].map((entry) => join(src, `${entry}.ts`));

/** Loaded from node_modules at run time, not bundled (see above). */
const external = [
  'graphql',
  '@electric-sql/pglite',
  '@electric-sql/pglite/*',
  '@prisma/client',
  '@prisma/client/*',
  '@prisma/schema-engine-wasm',
  '@prisma/schema-engine-wasm/*',
  '@graphql-yoga/render-graphiql',
  '@graphql-yoga/render-graphiql/*',
  'pg',
  'pino',
  'prom-client',
  'ioredis',
  '@opentelemetry/*',
];

// The generated Prisma client imports its query compiler as a module holding the WebAssembly as a
// base64 string (4.4 MB), decoded at the first query: the module's source and the string would stay on
// the heap for the life of the process (about 9 MB). The bundle instead compiles a .wasm file written
// next to the output that holds the client (docs/guides/production-build.md, "Footprint").
const base64Import =
  /const \{ wasm \} = await import\("(@prisma\/client\/runtime\/query_compiler_\w+\.postgresql)\.wasm-base64\.mjs"\);?\n(\s*)return await decodeBase64AsWasm\(wasm\);?/;
let queryCompilerModule;
const queryCompilerFromFile = {
  name: 'query-compiler-from-file',
  setup(builder) {
    builder.onLoad({ filter: /[\\/]db[\\/]generated[\\/]prisma[\\/]internal[\\/]class\.ts$/ }, ({ path }) => {
      const source = readFileSync(path, 'utf8');
      const found = base64Import.exec(source);
      if (!found) throw new Error(`${path}: the query compiler's base64 import was not found (did Prisma change its generated client?)`);
      queryCompilerModule = found[1];
      // The compile starts as the module loads (in the main thread; a migration worker has no use for
      // it): V8 compiles WebAssembly off the main thread, so it overlaps the rest of the start instead of
      // delaying the first query by some 0.3 s.
      const contents = `${source.replace(base64Import, (_, _module, indent) => `${indent}return compileQueryCompiler();`)}
let queryCompilerWasm;
function compileQueryCompiler() {
  queryCompilerWasm ??= import("node:fs/promises")
    .then(({ readFile }) => readFile(new URL("./query_compiler.wasm", import.meta.url)))
    .then((bytes) => WebAssembly.compile(bytes));
  return queryCompilerWasm;
}
if ((await import("node:worker_threads")).isMainThread) compileQueryCompiler().catch(() => {});
`;
      return { contents, loader: 'ts' };
    });
  },
};

const result = await build({
  entryPoints,
  outdir: next,
  outbase: src,
  entryNames: '[dir]/[name]',
  chunkNames: 'chunks/[name]-[hash]',
  bundle: true,
  splitting: true,
  external,
  format: 'esm',
  platform: 'node',
  target: 'node20.19',
  sourcemap: true,
  sourcesContent: false,
  metafile: true,
  // CommonJS code inside the bundle calls require(); an ES module has none of its own.
  banner: { js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);" },
  plugins: [queryCompilerFromFile],
  logLevel: 'warning',
});

if (!queryCompilerModule) throw new Error('The bundle does not hold the Prisma client: src/db/generated/prisma/internal/class.ts was not loaded.');
const { wasm } = await import(`${queryCompilerModule}.wasm-base64.mjs`);
const holders = Object.keys(result.metafile.outputs).filter(
  (output) => output.endsWith('.js') && readFileSync(join(root, output), 'utf8').includes('new URL("./query_compiler.wasm", import.meta.url)'),
);
for (const holder of holders) writeFileSync(join(root, dirname(holder), 'query_compiler.wasm'), Buffer.from(wasm, 'base64'));

// The console's static page, script and styles (src/http/console.ts serves them from dist/console/).
cpSync(join(src, 'console'), join(next, 'console'), { recursive: true });

if (existsSync(dist)) renameSync(dist, previous);
renameSync(next, dist);
rmSync(previous, { recursive: true, force: true });
