/**
 * The bundled Prisma client (scripts/build.js) compiles its query compiler from a .wasm file written
 * next to the output that holds it, instead of importing the 4.4 MB base64 module, whose source and
 * string would stay on the heap for the life of the process (docs/guides/production-build.md,
 * "Footprint"). dist/ is built by the tests' global setup.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { expect, test } from 'vitest';

const dist = new URL('../../dist/', import.meta.url);
const outputs = readdirSync(dist, { recursive: true, encoding: 'utf8' }).filter((file) => file.endsWith('.js'));
const loader = 'new URL("./query_compiler.wasm", import.meta.url)';

test('the compiled client reads query_compiler.wasm beside it and never imports the base64 module', () => {
  const sources = new Map(outputs.map((file) => [file, readFileSync(new URL(file, dist), 'utf8')]));
  expect([...sources].filter(([, source]) => source.includes('wasm-base64')).map(([file]) => file)).toEqual([]);
  const holders = [...sources].filter(([, source]) => source.includes(loader)).map(([file]) => file);
  expect(holders).toHaveLength(1);
  const wasm = readFileSync(new URL(holders[0]!.replace(/[^/]+$/, 'query_compiler.wasm'), dist));
  expect(wasm.subarray(0, 4)).toEqual(Buffer.from([0, 0x61, 0x73, 0x6d])); // "\0asm"
  expect(WebAssembly.validate(wasm)).toBe(true);
});
