/**
 * Adding a record kind has no hidden tail: every place a kind must be wired into is checked here
 * against `expectedKinds`, a statement of the five kinds and what each must have written in this file
 * (not read from the registry the code derives them from), and a failure names the place. (The
 * database triggers are checked against a migrated database: test/integration/events/kind-triggers.test.ts;
 * that the demo seed posts every kind, by seeding: test/integration/demo/seed.test.ts.)
 */
import { describe, expect, test } from 'vitest';
import { loadEventTypes } from '../../src/domain/events/catalog.js';
import { recordKinds, recordSpecOf, type RecordKind } from '../../src/domain/registry.js';
import { actionsOf, bulkMutationName, bulkRestPath, mutationName, restPath } from '../../src/domain/declaration/record.js';
import { cacheableRootFields } from '../../src/graphql/response-cache.js';
import { recordObjects, schema } from '../../src/graphql/schema.js';
import { restRoutes } from '../../src/routes.js';
import { upsertMutations } from '../factories/graphql.js';
import { fullBodies, routes } from '../factories/records.js';
import { prismaModel, tableOf } from '../helpers/prisma-schema.js';

interface Operation {
  rest: string;
  bulkRest: string;
  mutation: string;
  bulkMutation: string;
}

interface ExpectedKind {
  model: string;
  table: string;
  upsert: Operation;
  /** Null for an append-only kind (no delete). */
  delete: Operation | null;
  /** The Query fields that read records of the kind (each must be cacheable). */
  queryFields: string[];
  changeEvents: string[];
}

const operation = (rest: string, bulkRest: string, mutation: string, bulkMutation: string): Operation => ({ rest, bulkRest, mutation, bulkMutation });

/** The contract's record kinds (api-contract.md A, C, E), in the order a TMS posts them. */
const expectedKinds: Record<RecordKind, ExpectedKind> = {
  carrier: {
    model: 'Carrier',
    table: 'carriers',
    upsert: operation('/api/v1/carriers/upsert', '/api/v1/carriers/bulk_upsert', 'upsertCarrier', 'bulkUpsertCarriers'),
    delete: operation('/api/v1/carriers/delete', '/api/v1/carriers/bulk_delete', 'deleteCarrier', 'bulkDeleteCarriers'),
    queryFields: ['carrier', 'carriers'],
    changeEvents: ['carrier.deleted'],
  },
  load: {
    model: 'Load',
    table: 'loads',
    upsert: operation('/api/v1/loads/upsert', '/api/v1/loads/bulk_upsert', 'upsertLoad', 'bulkUpsertLoads'),
    delete: operation('/api/v1/loads/delete', '/api/v1/loads/bulk_delete', 'deleteLoad', 'bulkDeleteLoads'),
    queryFields: ['load', 'loads'],
    changeEvents: ['load.created', 'load.changed', 'load.phase_changed', 'load.deleted'],
  },
  load_leg: {
    model: 'LoadLeg',
    table: 'load_legs',
    upsert: operation('/api/v1/loadlegs/upsert', '/api/v1/loadlegs/bulk_upsert', 'upsertLoadLeg', 'bulkUpsertLoadLegs'),
    delete: operation('/api/v1/loadlegs/delete', '/api/v1/loadlegs/bulk_delete', 'deleteLoadLeg', 'bulkDeleteLoadLegs'),
    queryFields: ['loadLeg'],
    changeEvents: ['leg.changed', 'leg.deleted'],
  },
  stop: {
    model: 'Stop',
    table: 'stops',
    upsert: operation('/api/v1/stops/upsert', '/api/v1/stops/bulk_upsert', 'upsertStop', 'bulkUpsertStops'),
    delete: operation('/api/v1/stops/delete', '/api/v1/stops/bulk_delete', 'deleteStop', 'bulkDeleteStops'),
    queryFields: ['stop'],
    changeEvents: ['stop.arrived', 'stop.departed', 'stop.changed', 'stop.deleted'],
  },
  load_update: {
    model: 'LoadUpdate',
    table: 'load_updates',
    upsert: operation('/api/v1/loadupdates/create', '/api/v1/loadupdates/bulk_create', 'createLoadUpdate', 'bulkCreateLoadUpdates'),
    delete: null,
    // Read only through its load (`Load.updates`): no Query field of its own.
    queryFields: [],
    changeEvents: ['load_update.received'],
  },
};

const queryFields = schema.getQueryType()!.getFields();
const mutationFields = schema.getMutationType()!.getFields();
const restPaths = restRoutes.map((route) => route.path);

test('the registry holds exactly the expected kinds, in posting order', () => {
  expect(recordKinds).toEqual(Object.keys(expectedKinds));
});

describe.each(Object.entries(expectedKinds) as [RecordKind, ExpectedKind][])('record kind %s is wired everywhere', (kind, expected) => {
  const spec = recordSpecOf[kind];

  test('domain declaration (domain/<kind>/schema.ts)', () => {
    expect(spec, `domain/registry.ts: no kind ${kind}`).toBeDefined();
    expect([spec.model, spec.table, spec.graphql.mutation]).toEqual([expected.model, expected.table, expected.upsert.mutation]);
    expect(actionsOf(spec).includes('delete'), `domain/${kind}/schema.ts: deletable`).toBe(expected.delete !== null);
  });

  test('Prisma model (prisma/schema.prisma)', () => {
    const model = prismaModel(expected.model);
    expect(model && tableOf(model), `prisma/schema.prisma: no model ${expected.model} mapped to ${expected.table}`).toBe(expected.table);
  });

  test('GraphQL object type (domain/<kind>/graphql.ts, graphql/schema.ts recordObjects)', () => {
    const objects = recordObjects as Record<string, { name: string } | undefined>;
    expect(objects[kind]?.name, `graphql/schema.ts: recordObjects has no ${kind}`).toBe(expected.model);
    expect(schema.getType(expected.model)?.constructor.name, `domain/${kind}/graphql.ts: no GraphQL object type ${expected.model}`).toBe('GraphQLObjectType');
  });

  test('response cache (graphql/response-cache.ts): the Query fields reading the kind are the expected ones, each cacheable', () => {
    const reading = Object.values(queryFields).filter((field) => {
      // The named type, read structurally (the schema's `graphql` copy is not this file's: see cli/print-schema.ts).
      let type = field.type as { name?: string; ofType?: unknown };
      while (type.ofType) type = type.ofType;
      return type.name === expected.model || type.name === `${expected.model}Connection`;
    });
    expect(reading.map((field) => field.name).sort(), `Query fields returning ${expected.model}`).toEqual([...expected.queryFields].sort());
    expect(
      expected.queryFields.filter((name) => !cacheableRootFields.has(name)),
      `graphql/response-cache.ts: not cacheable (domain/${kind}/schema.ts graphql.rootFields)`,
    ).toEqual([]);
  });

  test('event catalog (domain/events/catalog.ts)', () => {
    expect(spec.changeEvents, `domain/${kind}/schema.ts changeEvents`).toEqual(expected.changeEvents);
    expect(loadEventTypes.filter((type) => expected.changeEvents.includes(type))).toEqual(expected.changeEvents);
  });

  test('REST routes (routes.ts) and GraphQL mutations (graphql/ingest-mutation.ts)', () => {
    const operations = [expected.upsert, ...(expected.delete ? [expected.delete] : [])];
    for (const { rest, bulkRest, mutation, bulkMutation } of operations) {
      expect(restPaths, `routes.ts: no route ${rest}`).toContain(rest);
      expect(restPaths, `routes.ts: no route ${bulkRest}`).toContain(bulkRest);
      expect(mutationFields[mutation], `graphql/ingest-mutation.ts: no mutation ${mutation}`).toBeDefined();
      expect(mutationFields[bulkMutation], `graphql/ingest-mutation.ts: no mutation ${bulkMutation}`).toBeDefined();
    }
    expect([restPath(spec), bulkRestPath(spec), bulkMutationName(spec)]).toEqual([
      expected.upsert.rest,
      expected.upsert.bulkRest,
      expected.upsert.bulkMutation,
    ]);
    if (expected.delete) {
      expect([restPath(spec, 'delete'), bulkRestPath(spec, 'delete'), mutationName(spec, 'delete'), bulkMutationName(spec, 'delete')]).toEqual(
        Object.values(expected.delete),
      );
    } else {
      expect(actionsOf(spec), `${kind} is append-only`).not.toContain('delete');
    }
  });

  test('test factories (test/factories) cover the kind', () => {
    expect(routes[kind], `test/factories/records.ts routes: no ${kind}`).toBe(expected.upsert.rest);
    expect(upsertMutations[kind], `test/factories/graphql.ts upsertMutations: no ${kind}`).toContain(`${expected.upsert.mutation}(`);
    expect(Object.keys(fullBodies), `test/factories/records.ts fullBodies: no ${kind}`).toContain(kind);
  });
});

test('the catalog holds the kinds’ events and ingest health’s, nothing else', () => {
  expect(loadEventTypes).toEqual([...Object.values(expectedKinds).flatMap((kind) => kind.changeEvents), 'ingest_health.state_changed']);
});
