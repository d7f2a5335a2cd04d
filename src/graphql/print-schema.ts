/**
 * `npm run schema:print`: writes the schema, sorted, to `schema.graphql` at the repository root.
 * The committed file is what clients review; a test fails when it differs from the code.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { lexicographicSortSchema, printSchema } from 'graphql';
import { schema } from './schema.js';

export const schemaPath = fileURLToPath(new URL('../../schema.graphql', import.meta.url));

/** The schema as committed: SDL, types and fields in lexicographic order. */
export const printedSchema = () => `${printSchema(lexicographicSortSchema(schema))}\n`;

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  writeFileSync(schemaPath, printedSchema());
  console.log(`Wrote ${schemaPath}`);
}
