/**
 * The add-a-kind checklist (CONTRIBUTING.md, "Adding a record kind"), followed as a contributor would:
 * its numbered steps are read from the file, each step's files are checked, for every kind of the
 * registry, to exist and to handle that kind (the kind's folder, its Prisma model and the migration
 * creating its table, its registry line, its GraphQL object, its table's distribution, its test body, its reference docs). So the test fails
 * when a step names a file it cannot follow (a wrong or renamed step), when a step is missing (a check
 * below no step names, or a file of `src/` that lists every kind and no step names), and, naming the file
 * and the kind, when a kind misses a step.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { recordSpecs } from '../../src/domain/registry.js';
import { recommendedFields, type RecordSpec } from '../../src/domain/declaration/record.js';
import { distributedTables } from '../../src/db/distribution.js';
import { recordObjects } from '../../src/graphql/schema.js';
import { fullBodies } from '../factories/records.js';

const root = new URL('../../', import.meta.url);
const exists = (path: string) => existsSync(new URL(path, root));
const read = (path: string) => readFileSync(new URL(path, root), 'utf8');

type Spec = (typeof recordSpecs)[number] & RecordSpec;
const specs = recordSpecs as readonly Spec[];
/** The kind's folder: its name in kebab-case (`load_leg` → `load-leg`). */
const folderOf = (spec: Spec) => spec.kind.replaceAll('_', '-');
const appendOnly = (spec: Spec) => spec.freshness === 'append_only';
const camel = (kind: string) => kind.replace(/_(\w)/g, (_, c: string) => c.toUpperCase());
const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

const migrations = () =>
  readdirSync(new URL('prisma/migrations/', root), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => read(`prisma/migrations/${entry.name}/migration.sql`))
    .join('\n');

/**
 * What each file a step names must hold for a kind: a message saying what is missing, or null. A step's
 * file without an entry here is a step this test cannot follow (it fails, asking for one).
 */
const checks: Record<string, (spec: Spec) => string | null> = {
  'src/domain/<folder>/schema.ts': (spec) => {
    const path = `src/domain/${folderOf(spec)}/schema.ts`;
    if (!exists(path)) return `${path} does not exist`;
    return /defineRecord\(/.test(read(path)) && read(path).includes(`'${spec.kind}'`) ? null : `${path} does not declare kind '${spec.kind}' with defineRecord`;
  },
  'src/domain/<folder>/graphql.ts': (spec) => {
    const path = `src/domain/${folderOf(spec)}/graphql.ts`;
    if (!exists(path)) return `${path} does not exist`;
    const text = read(path);
    if (!text.includes(`'${spec.model}'`)) return `${path} defines no object type of model ${spec.model}`;
    return /\.\.\.storedFields\(t, \w+Record/.test(text)
      ? null
      : `${path}: the ${spec.model} object does not take its stored fields from the declaration (storedFields)`;
  },
  'prisma/schema.prisma': (spec) => {
    const model = new RegExp(`^model ${spec.model} \\{([\\s\\S]*?)^\\}`, 'm').exec(read('prisma/schema.prisma'))?.[1];
    if (!model?.includes(`@@map("${spec.table}")`)) return `prisma/schema.prisma has no model ${spec.model} mapped to ${spec.table}`;
    if (/^\s+tenant\s+Tenant\b/m.test(model)) return `prisma/schema.prisma: model ${spec.model} has a tenant relation (a foreign key to tenants)`;
    return appendOnly(spec) || model.includes('@map("deleted_at")') ? null : `prisma/schema.prisma: model ${spec.model} has no deleted_at column`;
  },
  'prisma/migrations/': (spec) =>
    migrations().includes(`CREATE TABLE "${spec.table}"`) ? null : `no migration under prisma/migrations/ creates ${spec.table}`,
  'src/db/distribution.ts': (spec) =>
    (distributedTables.record as readonly string[]).includes(spec.table) ? null : `src/db/distribution.ts: ${spec.table} is not in distributedTables.record`,
  'src/domain/registry.ts': (spec) =>
    read('src/domain/registry.ts').includes(`from './${folderOf(spec)}/schema.js'`)
      ? null
      : `src/domain/registry.ts does not import ./${folderOf(spec)}/schema.js`,
  'src/graphql/schema.ts': (spec) =>
    (recordObjects as Record<string, { name: string } | undefined>)[spec.kind]?.name === spec.model
      ? null
      : `src/graphql/schema.ts: recordObjects.${spec.kind} is not the ${spec.model} object`,
  'test/factories/records.ts': (spec) => (spec.kind in fullBodies ? null : `test/factories/records.ts: fullBodies has no ${spec.kind}`),
  'docs/reference/rest.md': (spec) =>
    new RegExp(`/api/v1/(${escape(spec.rest.collection)}|\\{[^}]*\\b${escape(spec.rest.collection)}\\b[^}]*\\})/`).test(read('docs/reference/rest.md'))
      ? null
      : `docs/reference/rest.md names no /api/v1/${spec.rest.collection}/ route`,
  'docs/reference/graphql.md': (spec) =>
    read('docs/reference/graphql.md').includes(spec.graphql.mutation) ? null : `docs/reference/graphql.md does not name ${spec.graphql.mutation}`,
  'docs/guides/data-quality.md': (spec) => {
    const guide = read('docs/guides/data-quality.md');
    const missing = recommendedFields(spec).filter(({ field }) => !guide.includes(`| \`${field}\``));
    return missing.length ? `docs/guides/data-quality.md does not list ${missing.map((f) => f.field).join(', ')}` : null;
  },
  'docs/reference/events.md': (spec) => {
    const missing = spec.changeEvents.filter((type) => !read('docs/reference/events.md').includes(`\`${type}\``));
    return missing.length ? `docs/reference/events.md does not describe ${missing.join(', ')}` : null;
  },
};

/** The checklist's steps: number, text, and the files (backquoted) before the colon that ends their head. */
function steps(): { number: number; text: string; files: string[] }[] {
  const contributing = read('CONTRIBUTING.md');
  const start = contributing.indexOf('## Adding a record kind');
  const section = contributing.slice(start, contributing.indexOf('\n## ', start + 1));
  return [...section.matchAll(/^(\d+)\. ([\s\S]*?)(?=^\d+\. |^\S|(?![\s\S]))/gm)].map((m) => {
    const text = m[2]!;
    const head = text.slice(0, text.search(/`: /) + 1);
    return { number: Number(m[1]), text, files: [...head.matchAll(/`([^`]+)`/g)].map((f) => f[1]!) };
  });
}

test("CONTRIBUTING.md's checklist is numbered steps, each naming its files before a colon", () => {
  const list = steps();
  expect(list.length).toBeGreaterThan(5);
  expect(list.map((step) => step.number)).toEqual(list.map((_, i) => i + 1));
  for (const step of list) expect(step.files, `step ${step.number} names no file: ${step.text.slice(0, 80)}`).not.toEqual([]);
});

test('every file a step names is one this test can follow, and every check is a step', () => {
  const named = steps().flatMap((step) => step.files.map((file) => ({ step: step.number, file })));
  for (const { step, file } of named) expect(Object.keys(checks), `step ${step} names ${file}, which this test cannot follow: add its check`).toContain(file);
  for (const file of Object.keys(checks))
    expect(
      named.map((n) => n.file),
      `no step names ${file}: a missing step`,
    ).toContain(file);
});

/**
 * Files of src/ that name every kind in rules of their own, not in a list a new kind must join (each with
 * why): the checklist has no step for them. A new kind appears in them only with a rule of its own.
 */
const namesKindsInItsRules: Record<string, string> = {
  'src/domain/data-quality/service.ts': "its findings, each beside its rule, read the kinds' tables and name them (its windows are derived)",
  'src/demo/seed.ts':
    "its story of carriers, loads, legs, stops and updates names them; a kind it does not tell of is seeded from its declaration's body example (`exampleRequest`, test/integration/demo/seed.test.ts)",
};

test('a file of src/ (outside the kinds’ own folders) that names every kind is a step of the checklist', () => {
  const named = new Set(steps().flatMap((step) => step.files));
  const kindFolders = new Set(specs.map((spec) => `domain/${folderOf(spec)}/`));
  const words = (spec: Spec) =>
    new RegExp(`\\b(${[spec.kind, spec.table, spec.model, spec.label, camel(spec.kind), spec.kind.toUpperCase(), folderOf(spec)].map(escape).join('|')})\\b`);
  const listers = readdirSync(new URL('src/', root), { recursive: true, encoding: 'utf8' })
    .filter((path) => /\.(ts|js|html)$/.test(path) && !path.startsWith('db/generated/') && ![...kindFolders].some((folder) => path.startsWith(folder)))
    .filter((path) => specs.every((spec) => words(spec).test(read(`src/${path}`))));
  expect(listers.length).toBeGreaterThan(0);
  for (const path of listers.filter((path) => !(`src/${path}` in namesKindsInItsRules)))
    expect([...named], `src/${path} names every kind but no step of the checklist names it`).toContain(`src/${path}`);
});

describe.each(specs.map((spec) => [spec.kind, spec] as const))('record kind %s, as the checklist wires it', (_kind, spec) => {
  test.each(steps().map((step) => [step.number, step] as const))('step %i', (_number, step) => {
    for (const file of step.files) {
      const check = checks[file];
      expect(check, `step ${step.number}: ${file}`).toBeDefined();
      expect(check!(spec), `step ${step.number} (${file}), kind ${spec.kind}`).toBeNull();
    }
  });
});
