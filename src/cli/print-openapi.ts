/**
 * `npm run openapi:print -- <file>`: writes the OpenAPI document the service serves at
 * GET /api/v1/openapi.json to a file (or to stdout without one), for linters and client generators.
 */
import { writeFileSync } from 'node:fs';
import { openApiDocument } from '../routes.js';

const [target] = process.argv.slice(2);
const text = `${JSON.stringify(openApiDocument, null, 2)}\n`;
if (target) writeFileSync(target, text);
else process.stdout.write(text);
