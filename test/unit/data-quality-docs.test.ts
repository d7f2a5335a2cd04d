/**
 * What each recommended field feeds, said once in its declaration (`{ feeds }` in domain/<kind>/schema.ts),
 * is what the OpenAPI document says of the field, and what the data-quality guide's table says.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { recordSpecs } from '../../src/domain/registry.js';
import { recommendedFields } from '../../src/domain/declaration/record.js';
import { openApiDocument } from '../../src/routes.js';
import { dateTime, text } from '../../src/domain/declaration/fields.js';

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

  test('the OpenAPI description of every recommended field ends with what it feeds, and only theirs say Feeds', () => {
    const schemas = (openApiDocument as unknown as { components: { schemas: Record<string, { properties?: Record<string, { description?: string }> }> } })
      .components.schemas;
    for (const spec of recordSpecs) {
      const id = (spec.body.meta() as { id: string }).id;
      const properties = schemas[id]!.properties!;
      const feeding = new Map(recommendedFields(spec).map((f) => [f.field, f.feeds]));
      for (const [field, property] of Object.entries(properties)) {
        const feeds = feeding.get(field);
        if (feeds === undefined) expect(property.description ?? '', `${id}.${field}`).not.toContain('Feeds:');
        else expect(property.description, `${id}.${field}`).toMatch(new RegExp(`^Recommended\\. .* Feeds: ${feeds.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`));
      }
    }
  });

  test('a recommended field without what it feeds, or another field with it, is refused when declared', () => {
    expect(() => text(10, 'recommended', 'A code.')).toThrow(/names the feature it feeds/);
    expect(() => dateTime('recommended', 'A time.')).toThrow(/names the feature it feeds/);
    expect(() => text(10, 'optional', 'A code.', { feeds: 'search' })).toThrow(/only a recommended one/);
    expect(() => text(10, 'recommended', 'A code.', { feeds: 'search' })).not.toThrow();
  });
});
