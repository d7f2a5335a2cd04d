/**
 * The data-quality guide's table of what each recommended field feeds stays true: one row per
 * recommended field of every kind, saying what its declaration says (`{ feeds }` in domain/<kind>/schema.ts).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { recordSpecs } from '../../src/domain/registry.js';
import { recommendedFields } from '../../src/domain/shared/record.js';

const guide = readFileSync(new URL('../../docs/guides/data-quality.md', import.meta.url), 'utf8');
const section = guide.slice(guide.indexOf('<!-- feeds:start -->'), guide.indexOf('<!-- feeds:end -->'));
/** The table rows as [field, feeds] (Markdown escapes undone, padding trimmed). */
const rows = [...section.matchAll(/^\| `([a-z0-9_]+)` +\| (.+?) +\|$/gm)].map((m) => [m[1]!, m[2]!.replaceAll('\\|', '|')]);

describe('docs/guides/data-quality.md', () => {
  test('lists every recommended field once, with what its declaration says it feeds', () => {
    const declared = recordSpecs.flatMap((spec) => recommendedFields(spec).map((f) => [f.field, f.feeds]));
    expect(rows.length).toBeGreaterThan(30);
    expect(rows).toEqual(declared);
  });
});
