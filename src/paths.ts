/**
 * Where the repository's files are, found the same way from the TypeScript sources (tsx, vitest) and
 * from the bundled build (dist/, whose chunks sit at other depths than the sources they came from):
 * the project root is the nearest directory upward that holds package.json.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = fileURLToPath(import.meta.url);

function findRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir;
    if (dirname(dir) === dir) throw new Error(`No package.json in ${from} or above it`);
  }
}

/** The directory of package.json, prisma/ and schema.graphql. */
export const projectRoot = findRoot(dirname(here));

const compiled = !here.endsWith('.ts');

/** The running code's own files: `src/` under tsx and vitest, `dist/` in the build (`npm run build`). */
export const codeFile = (path: string) => join(projectRoot, compiled ? 'dist' : 'src', compiled ? path.replace(/\.ts$/, '.js') : path);
