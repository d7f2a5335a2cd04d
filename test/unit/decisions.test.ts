/**
 * The decision records (docs/decisions/): every one says where it stands on a `Status:` line before its
 * first section, and docs/README.md's index links every one, marking those superseded as their Status
 * line says. A record added without either fails here, naming the file.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

const records = readdirSync(new URL('../../docs/decisions/', import.meta.url)).filter((name) => /^\d{4}-.+\.md$/.test(name));
const index = read('docs/README.md');
const decisionsSection = index.slice(index.indexOf('## Decisions'), index.indexOf('\n## ', index.indexOf('## Decisions') + 1));

/** The Status line of a record: the first line starting with `Status:` before its first `##` heading. */
function statusOf(name: string): string | undefined {
  const text = read(`docs/decisions/${name}`);
  const head = text.slice(0, text.search(/^## /m) === -1 ? undefined : text.search(/^## /m));
  return head.split('\n').find((line) => line.startsWith('Status:'));
}

test('docs/decisions holds the records (NNNN-<slug>.md)', () => {
  expect(records.length).toBeGreaterThanOrEqual(34);
});

describe.each(records)('docs/decisions/%s', (name) => {
  const number = name.slice(0, 4);
  const status = statusOf(name);

  test('has a Status line (accepted, amended or superseded) before its first section', () => {
    expect(status, `docs/decisions/${name}: no "Status:" line before the first "##" heading`).toBeDefined();
    expect(status!, `docs/decisions/${name}: ${status}`).toMatch(/^Status: (accepted|amended|superseded)\b/i);
  });

  test("is listed in docs/README.md's decision index, marked superseded when it is", () => {
    const entry = decisionsSection.split('\n').find((line) => line.includes(`](decisions/${name})`));
    expect(entry, `docs/README.md "Decisions" does not link decisions/${name}`).toBeDefined();
    expect(entry!, `docs/README.md: the entry of decisions/${name} does not start with its number`).toContain(`- [${number} `);
    const supersededBy = /^Status: superseded by \[?(\d{4})/i.exec(status ?? '')?.[1];
    if (supersededBy) expect(entry!, `docs/README.md: the entry of decisions/${name}`).toContain(`(superseded by ${supersededBy})`);
    else expect(entry!, `docs/README.md: decisions/${name} is not superseded`).not.toContain('(superseded by');
  });
});
