/**
 * `npm run schema:print`: writes the schema, sorted, to `schema.graphql` at the repository root.
 * The committed file is what clients review; a test fails when it differs from the code.
 */
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { schema } from '../graphql/schema.js';
import { projectRoot } from '../paths.js';

// The `graphql` copy Pothos built the schema with: Node loads it as CommonJS, while a bundler-style
// resolver (vitest) would hand an ESM `import` the .mjs copy, a second realm the schema is foreign to.
const { lexicographicSortSchema, printSchema } = createRequire(import.meta.url)('graphql') as typeof import('graphql');

export const schemaPath = join(projectRoot, 'schema.graphql');

/** The schema as committed: SDL, types and fields in lexicographic order. */
export const printedSchema = () => `${printSchema(lexicographicSortSchema(schema))}\n`;

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(schemaPath, printedSchema());
  console.log(`Wrote ${schemaPath}`);
}
