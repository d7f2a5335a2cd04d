/**
 * Adding a record kind has no hidden tail: every place a kind of the registry must be wired into is
 * checked here, and a failure names the place. (The database triggers are checked against a migrated
 * database: test/integration/events/kind-triggers.test.ts.)
 */
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { isTenantModel } from '../../src/db/json-tree.js';
import { loadEventTypes } from '../../src/domain/events/catalog.js';
import { treeTables } from '../../src/domain/load/tree.js';
import { recordKinds, recordSpecs } from '../../src/domain/registry.js';
import { actionsOf, bulkMutationName, bulkRestPath, mutationName, restPath } from '../../src/domain/shared/record.js';
import { cacheableRootFields } from '../../src/graphql/response-cache.js';
import { recordObjects, schema } from '../../src/graphql/schema.js';
import { restRoutes } from '../../src/routes.js';
import { upsertMutations } from '../factories/graphql.js';
import { fullBodies, routes } from '../factories/records.js';

const prismaSchema = readFileSync(new URL('../../prisma/schema.prisma', import.meta.url), 'utf8');
const demoSeed = readFileSync(new URL('../../src/demo/seed.ts', import.meta.url), 'utf8');

/** The table each Prisma model is mapped to (`@@map`). */
const prismaTables = new Map(
  [...prismaSchema.matchAll(/^model (\w+) \{([\s\S]*?)^\}/gm)].map(([, model, body]) => [model!, /@@map\("([^"]+)"\)/.exec(body!)?.[1] ?? model!]),
);

const queryFields = schema.getQueryType()!.getFields();
const mutationFields = schema.getMutationType()!.getFields();

describe.each(recordSpecs.map((spec) => [spec.kind, spec] as const))('record kind %s is wired everywhere', (kind, spec) => {
  test('Prisma model (prisma/schema.prisma) and the SQL load page (domain/load/tree.ts → db/json-tree.ts)', () => {
    expect(prismaTables.get(spec.model), `prisma/schema.prisma: no model ${spec.model} mapped to ${spec.table}`).toBe(spec.table);
    expect(isTenantModel(spec.model), `db/json-tree.ts: model ${spec.model} has no tenantId in the Prisma datamodel`).toBe(true);
    expect(treeTables[spec.model], `domain/load/tree.ts: the json-tree table map lacks ${spec.model}`).toBe(spec.table);
  });

  test('GraphQL object type (domain/<kind>/graphql.ts, graphql/schema.ts recordObjects)', () => {
    const objects = recordObjects as Record<string, { name: string } | undefined>;
    expect(objects[kind]?.name, `graphql/schema.ts: recordObjects has no ${kind}`).toBe(spec.model);
    expect(schema.getType(spec.model), `domain/${kind}/graphql.ts: no GraphQL object type ${spec.model}`).toBeDefined();
  });

  test('response cache (graphql/response-cache.ts): every Query field reading the kind is cacheable', () => {
    for (const name of spec.graphql.rootFields) expect(queryFields[name], `${kind}: graphql.rootFields names ${name}, not a Query field`).toBeDefined();
    const reading = Object.values(queryFields).filter((field) => {
      // The named type, read structurally (the schema's `graphql` copy is not this file's: see cli/print-schema.ts).
      let type = field.type as { name?: string; ofType?: unknown };
      while (type.ofType) type = type.ofType;
      return type.name === spec.model || type.name === `${spec.model}Connection`;
    });
    for (const field of reading) {
      expect(
        cacheableRootFields.has(field.name),
        `graphql/response-cache.ts: Query.${field.name} reads ${spec.model} but is not cacheable (graphql.rootFields)`,
      ).toBe(true);
    }
  });

  test('event catalog (domain/events/catalog.ts)', () => {
    for (const type of spec.changeEvents) expect(loadEventTypes, `domain/events/catalog.ts: ${type} of ${kind} is not in the catalog`).toContain(type);
  });

  test('REST routes (routes.ts) and GraphQL mutations (graphql/ingest-mutation.ts)', () => {
    const paths = restRoutes.map((route) => route.path);
    expect(paths, `routes.ts: no single route for ${kind}`).toContain(restPath(spec));
    expect(paths, `routes.ts: no bulk route for ${kind}`).toContain(bulkRestPath(spec));
    expect(mutationFields[spec.graphql.mutation], `graphql/ingest-mutation.ts: no mutation ${spec.graphql.mutation}`).toBeDefined();
    expect(mutationFields[bulkMutationName(spec)], `graphql/ingest-mutation.ts: no mutation ${bulkMutationName(spec)}`).toBeDefined();
  });

  test('demo seed (demo/seed.ts) posts records of the kind', () => {
    expect(demoSeed, `demo/seed.ts: no record of ${kind} (restPath(recordSpecOf.${kind}))`).toContain(`restPath(recordSpecOf.${kind})`);
  });

  test('test factories (test/factories) are keyed by the registry', () => {
    expect(routes[kind], `test/factories/records.ts routes: no ${kind}`).toBe(restPath(spec));
    expect(upsertMutations[kind], `test/factories/graphql.ts upsertMutations: no ${kind}`).toContain(`${spec.graphql.mutation}(`);
    expect(Object.keys(fullBodies), `test/factories/records.ts fullBodies: no ${kind}`).toContain(kind);
  });
});

describe.each(recordSpecs.filter((spec) => actionsOf(spec).includes('delete')).map((spec) => [spec.kind, spec] as const))(
  'record kind %s has its delete operation (domain/shared/delete.ts)',
  (kind, spec) => {
    test('REST routes, GraphQL mutations and its tombstone event', () => {
      const paths = restRoutes.map((route) => route.path);
      expect(paths, `routes.ts: no delete route for ${kind}`).toContain(restPath(spec, 'delete'));
      expect(paths, `routes.ts: no bulk delete route for ${kind}`).toContain(bulkRestPath(spec, 'delete'));
      expect(mutationFields[mutationName(spec, 'delete')], `graphql/ingest-mutation.ts: no mutation ${mutationName(spec, 'delete')}`).toBeDefined();
      expect(mutationFields[bulkMutationName(spec, 'delete')], `graphql/ingest-mutation.ts: no mutation ${bulkMutationName(spec, 'delete')}`).toBeDefined();
      expect(
        spec.changeEvents.filter((type) => type.endsWith('.deleted')),
        `domain/${kind}/schema.ts: a deletable kind declares its <kind>.deleted event`,
      ).toHaveLength(1);
    });
  },
);

test('the catalog holds the kinds’ events and ingest health’s, nothing else', () => {
  expect(loadEventTypes).toEqual([...recordSpecs.flatMap((spec) => spec.changeEvents), 'ingest_health.state_changed']);
  expect(Object.keys(fullBodies).sort()).toEqual([...recordKinds].sort());
});
