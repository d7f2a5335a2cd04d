// `npm run build` (also run by `npm install`): bundles src/ into dist/ with esbuild, with source maps.
// Entries keep their paths (dist/main.js, dist/cli/*.js, dist/db/migrate-worker.js, dist/db/migrate.js);
// the code they share goes to dist/chunks/. Pure-JavaScript packages (GraphQL Yoga, Pothos, zod,
// graphql-tools…, some 800 ES modules) are bundled in: Node then loads a few files instead of resolving
// and linking each of them at every start (decision 0020). Packages that find files of their own at run
// time (PGlite, Prisma's runtime and schema engine, Redoc, Chart.js, GraphiQL's assets) or must stay one
// copy (`graphql`, also required at run time) stay external, loaded from node_modules, as does the
// OpenTelemetry SDK: imported dynamically, only when tracing is on (decision 0027). Code finds the
// repository's files through src/paths.ts, whatever the depth of the chunk it ends up in.
// esbuild only strips the types; `npm run typecheck` (tsc --noEmit) is the type gate. The typed client
// (`tms-ingest/client`, src/client/) also gets its declarations, one file dist/types/client.d.ts (see
// `clientTypes` below). The build goes to
// a new directory that then replaces dist/ (two renames), so nothing of a deleted source survives and
// a process started meanwhile (a test run) never finds dist/ half-built.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { Buffer } from 'node:buffer';
import { execPath, pid } from 'node:process';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const root = join(import.meta.dirname, '..');
const src = join(root, 'src');
const dist = join(root, 'dist');
const next = `${dist}.next-${pid}`;
const previous = `${dist}.previous-${pid}`;

const entryPoints = ['main', 'cli/bin', 'cli/tenant', 'cli/seed', 'cli/push', 'cli/db-migrate', 'db/migrate', 'db/migrate-worker', 'client/index'].map(
  (entry) => join(src, `${entry}.ts`),
);

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

/**
 * The client's declarations as one file that imports nothing but zod: tsc writes the declarations of
 * src/client/index.ts and of what it imports (into a temporary directory; files the client's types do
 * not reach may fail to declare, as src/db/database.ts does, and are not used), then
 * dts-bundle-generator keeps only the declarations the client's exports reach. The record and answer
 * types stay what the server's zod declarations infer. It takes some 15 s, so the result is kept with
 * the hash of the sources it was made from (dist/types/client.json: src/client/index.ts and every
 * source it imports, and this script) and made again only when one of them changed.
 */
function clientTypes(into) {
  const previous = join(dist, 'types');
  // Every source the client's declarations are made from: src/client/index.ts and what it imports, transitively.
  const sources = new Set();
  const follow = (file) => {
    if (sources.has(file) || !existsSync(file)) return;
    sources.add(file);
    for (const [, spec] of readFileSync(file, 'utf8').matchAll(/(?:from\s+|import\()['"](\.{1,2}\/[^'"]+)\.js['"]/g)) follow(join(dirname(file), `${spec}.ts`));
  };
  follow(join(src, 'client', 'index.ts'));
  const hash = createHash('sha256');
  for (const file of [...sources, fileURLToPath(import.meta.url)].sort()) hash.update(relative(root, file)).update(readFileSync(file));
  const digest = hash.digest('hex');
  const stamp = join(previous, 'client.json');
  if (existsSync(stamp) && JSON.parse(readFileSync(stamp, 'utf8')).hash === digest) return cpSync(previous, into, { recursive: true });

  // Inside the repository, so that the declarations' `zod` resolves to node_modules, and outside
  // node_modules, whose files dts-bundle-generator would take for a library's and leave as imports.
  const work = mkdtempSync(join(dirname(into), '.client-types-'));
  try {
    const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc');
    const args = ['--declaration', '--emitDeclarationOnly', '--noEmit', 'false', '--skipLibCheck', '--rootDir', src, '--outDir', work];
    const options = ['--target', 'ES2023', '--module', 'NodeNext', '--moduleResolution', 'NodeNext', '--strict', '--types', 'node'];
    try {
      execFileSync(execPath, [tsc, ...args, ...options, join(src, 'client', 'index.ts')], { cwd: root, stdio: 'pipe' });
    } catch {
      // Declaration errors of files the client's types do not reach; a missing entry is caught below.
    }
    if (!existsSync(join(work, 'client', 'index.d.ts'))) throw new Error('tsc wrote no declarations for src/client/index.ts');
    const project = {
      compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, skipLibCheck: true, types: [] },
      files: ['client/index.d.ts'],
    };
    writeFileSync(join(work, 'tsconfig.json'), JSON.stringify(project));
    mkdirSync(into, { recursive: true });
    const generator = join(root, 'node_modules', 'dts-bundle-generator', 'dist', 'bin', 'dts-bundle-generator.js');
    const output = join(into, 'client.d.ts');
    execFileSync(execPath, [generator, '--silent', '--no-check', '--project', join(work, 'tsconfig.json'), '-o', output, join(work, 'client', 'index.d.ts')], {
      cwd: root,
      stdio: 'pipe',
    });
    if (!/export declare function createClient\b/.test(readFileSync(output, 'utf8'))) throw new Error(`${output} declares no createClient`);
    writeFileSync(join(into, 'client.json'), JSON.stringify({ hash: digest, sources: [...sources].map((file) => relative(root, file)).sort() }, null, 2));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
clientTypes(join(next, 'types'));

// The console's static page, script and styles (src/http/console.ts serves them from dist/console/).
cpSync(join(src, 'console'), join(next, 'console'), { recursive: true });

if (existsSync(dist)) renameSync(dist, previous);
renameSync(next, dist);
rmSync(previous, { recursive: true, force: true });
