/**
 * The add-a-kind checklist (CONTRIBUTING.md, "Adding a record kind"), checked for each of the five
 * kinds as this file states them, not as the registry derives them: a kind whose folder, Prisma model,
 * migration, registry line, GraphQL object, demo records, test body, routes, mutations, OpenAPI
 * schemas or reference docs are forgotten fails here, naming the file. The checklist itself must name
 * every file checked.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { recordKinds } from '../../src/domain/registry.js';
import { recordObjects, schema } from '../../src/graphql/schema.js';
import { openApiDocument, restRoutes } from '../../src/routes.js';
import { fullBodies } from '../factories/records.js';

const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');

/** The five kinds, as the contract names them (api-contract.md B and C). */
const kinds = [
  {
    kind: 'carrier',
    folder: 'carrier',
    model: 'Carrier',
    table: 'carriers',
    collection: 'carriers',
    write: 'upsert',
    body: 'CarrierUpsert',
    input: 'CarrierInput',
  },
  { kind: 'load', folder: 'load', model: 'Load', table: 'loads', collection: 'loads', write: 'upsert', body: 'LoadUpsert', input: 'LoadInput' },
  {
    kind: 'load_leg',
    folder: 'load-leg',
    model: 'LoadLeg',
    table: 'load_legs',
    collection: 'loadlegs',
    write: 'upsert',
    body: 'LoadLegUpsert',
    input: 'LoadLegInput',
  },
  { kind: 'stop', folder: 'stop', model: 'Stop', table: 'stops', collection: 'stops', write: 'upsert', body: 'StopUpsert', input: 'StopInput' },
  {
    kind: 'load_update',
    folder: 'load-update',
    model: 'LoadUpdate',
    table: 'load_updates',
    collection: 'loadupdates',
    write: 'create',
    body: 'LoadUpdateCreate',
    input: 'LoadUpdateInput',
  },
] as const;

/** Every file the checklist makes a contributor touch (`<folder>`: the kind's folder). */
const checklistFiles = [
  'src/domain/<folder>/schema.ts',
  'src/domain/<folder>/graphql.ts',
  'prisma/schema.prisma',
  'prisma/migrations/',
  'src/domain/registry.ts',
  'src/graphql/schema.ts',
  'src/demo/seed.ts',
  'test/factories/records.ts',
  'docs/reference/rest.md',
  'docs/reference/graphql.md',
];

const prismaSchema = read('prisma/schema.prisma');
const migrations = readdirSync(new URL('../../prisma/migrations/', import.meta.url), { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => read(`prisma/migrations/${entry.name}/migration.sql`))
  .join('\n');
const mutationFields = schema.getMutationType()!.getFields();
const components = Object.keys((openApiDocument as { components: { schemas: Record<string, unknown> } }).components.schemas);
const paths = restRoutes.map((route) => route.path);
const capital = (word: string) => `${word[0]!.toUpperCase()}${word.slice(1)}`;

test('the registry holds exactly the five kinds, in the order a TMS posts them (src/domain/registry.ts)', () => {
  expect(recordKinds).toEqual(kinds.map((k) => k.kind));
});

describe.each(kinds.map((k) => [k.kind, k] as const))('record kind %s, as the checklist wires it', (_kind, k) => {
  const deletes = k.write === 'upsert';

  test('its folder: src/domain/<kind>/schema.ts and graphql.ts', () => {
    for (const file of ['schema.ts', 'graphql.ts']) {
      expect(existsSync(new URL(`../../src/domain/${k.folder}/${file}`, import.meta.url)), `src/domain/${k.folder}/${file}`).toBe(true);
    }
  });

  test('its table: the Prisma model (prisma/schema.prisma) and a migration creating it (prisma/migrations/)', () => {
    const model = new RegExp(`^model ${k.model} \\{[\\s\\S]*?@@map\\("${k.table}"\\)[\\s\\S]*?^\\}`, 'm');
    expect(prismaSchema, `prisma/schema.prisma: no model ${k.model} mapped to ${k.table}`).toMatch(model);
    expect(migrations, `prisma/migrations: no migration creates ${k.table}`).toContain(`CREATE TABLE "${k.table}"`);
  });

  test('its GraphQL object type (src/graphql/schema.ts recordObjects) and input', () => {
    expect((recordObjects as Record<string, { name: string }>)[k.kind]?.name, `src/graphql/schema.ts: recordObjects.${k.kind}`).toBe(k.model);
    expect(schema.getType(k.input), `no GraphQL input ${k.input}`).toBeDefined();
  });

  test('its REST routes: single and bulk write, and delete unless append-only', () => {
    const write = [`/api/v1/${k.collection}/${k.write}`, `/api/v1/${k.collection}/bulk_${k.write}`];
    const remove = [`/api/v1/${k.collection}/delete`, `/api/v1/${k.collection}/bulk_delete`];
    for (const path of write) expect(paths, path).toContain(path);
    for (const path of remove) expect(paths.includes(path), path).toBe(deletes);
  });

  test('its GraphQL mutations: single and bulk write, and delete unless append-only', () => {
    for (const name of [`${k.write}${k.model}`, `bulk${capital(k.write)}${k.model}s`]) expect(mutationFields[name], name).toBeDefined();
    for (const name of [`delete${k.model}`, `bulkDelete${k.model}s`]) expect(name in mutationFields, name).toBe(deletes);
  });

  test('its OpenAPI schemas: the body, its bulk envelope, and the delete bodies unless append-only', () => {
    for (const id of [k.body, `${k.body}Bulk`]) expect(components, id).toContain(id);
    for (const id of [`${k.model}Delete`, `${k.model}DeleteBulk`]) expect(components.includes(id), id).toBe(deletes);
  });

  test('its records in the demo seed (src/demo/seed.ts) and its full body in test/factories/records.ts', () => {
    expect(read('src/demo/seed.ts'), `src/demo/seed.ts: no restPath(recordSpecOf.${k.kind})`).toContain(`restPath(recordSpecOf.${k.kind})`);
    expect(Object.keys(fullBodies), 'test/factories/records.ts fullBodies').toContain(k.kind);
  });

  test('its routes and mutations in the reference (docs/reference/rest.md, docs/reference/graphql.md)', () => {
    expect(read('docs/reference/rest.md'), `docs/reference/rest.md: no /${k.collection}/ route`).toMatch(new RegExp(`\\b${k.collection}\\b`));
    expect(read('docs/reference/graphql.md'), `docs/reference/graphql.md: no ${k.write}${k.model}`).toContain(`${k.write}${k.model}`);
  });
});

test("CONTRIBUTING.md's checklist names every file a new kind touches", () => {
  const contributing = read('CONTRIBUTING.md');
  const section = contributing.slice(
    contributing.indexOf('## Adding a record kind'),
    contributing.indexOf('\n## ', contributing.indexOf('## Adding a record kind') + 1),
  );
  for (const file of checklistFiles) expect(section, `CONTRIBUTING.md "Adding a record kind" does not name ${file}`).toContain(file);
});
