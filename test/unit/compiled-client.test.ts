/**
 * The compiled Prisma client (scripts/build.js) compiles its query compiler from the .wasm file written
 * next to it instead of importing the 4.4 MB base64 module, whose source and string would stay on the
 * heap for the life of the process (docs/guides/production-build.md, "Footprint"). dist/ is built by
 * the tests' global setup.
 */
import { readFileSync } from 'node:fs';
import { expect, test } from 'vitest';

const internal = new URL('../../dist/db/generated/prisma/internal/', import.meta.url);

test('the compiled client reads query_compiler.wasm and never imports the base64 module', () => {
  const source = readFileSync(new URL('class.js', internal), 'utf8');
  expect(source).not.toContain('wasm-base64');
  expect(source).toContain('new URL("./query_compiler.wasm", import.meta.url)');
  const wasm = readFileSync(new URL('query_compiler.wasm', internal));
  expect(wasm.subarray(0, 4)).toEqual(Buffer.from([0, 0x61, 0x73, 0x6d])); // "\0asm"
  expect(WebAssembly.validate(wasm)).toBe(true);
});
