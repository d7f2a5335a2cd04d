/**
 * One page-size rule for every paginated GraphQL field (docs/decisions/0017-page-sizes-and-hints.md):
 * `first` (or `last`) above the field's maximum, or below 0, is a `validation_failed` naming the
 * argument, never a silently clamped page. The fields are found by walking the schema, so a new
 * paginated field is tested here as soon as it exists (and needs a way to reach it in `reach`).
 */
import { schema } from '../../../src/graphql/schema.js';
import { paginatedFields } from '../../../src/graphql/page-sizes.js';
import { gqlData, gqlError } from '../../factories/graphql.js';
import { routes, seed, loadUpdateBody, seedLoadTree } from '../../factories/records.js';
import { testWith, describe, expect } from '../../fixtures.js';
import type { Api } from '../../helpers/app.js';
import { createEndpoint, webhookEnv } from '../webhooks/setup.js';

const test = testWith({ env: webhookEnv });

/** How to reach a field of each type that has paginated fields: the query around `{ field }`. */
const reach: Record<string, (field: string) => string> = {
  Query: (field) => `{ ${field} }`,
  Load: (field) => `query ($p: String!) { load(permalink: $p) { ${field} } }`,
  Carrier: (field) => `query ($c: String!) { carrier(permalink: $c) { ${field} } }`,
  LoadLeg: (field) => `query ($g: String!) { loadLeg(permalink: $g) { ${field} } }`,
  Stop: (field) => `query ($s: String!) { stop(permalink: $s) { ${field} } }`,
  LoadUpdate: (field) => `query ($p: String!) { load(permalink: $p) { updates { ${field} } } }`,
  WebhookEndpoint: (field) => `{ webhookEndpoints { ${field} } }`,
  FieldCoverage: (field) => `{ dataQuality { kinds { fields { ${field} } } } }`,
  QualityFinding: (field) => `{ dataQuality { findings { ${field} } } }`,
};

/** The types reached without the seeded records' permalinks. */
const unparameterised = new Set(['Query', 'WebhookEndpoint', 'FieldCoverage', 'QualityFinding']);

/** The selection a paginated field needs: a connection's edge cursors, a list item's id (its first field when it has none), nothing for a list of strings. */
function selection(type: string, field: string): string {
  const named = schema.getType(type) as import('graphql').GraphQLObjectType;
  const returned = String(named.getFields()[field]!.type).replace(/[[\]!]/g, '');
  if (returned.endsWith('Connection')) return '{ edges { cursor } }';
  if (returned === 'String') return '';
  const item = Object.keys((schema.getType(returned) as import('graphql').GraphQLObjectType).getFields());
  return item.includes('id') ? '{ id }' : `{ ${item[0]} }`;
}

/** Records every reachable paginated field has one of (a load with an update, a webhook endpoint). */
async function seedParents(api: Api, tenant: { slug: string }) {
  const { load, carrier, leg, stop } = await seedLoadTree(api, tenant);
  await seed(api, routes.load_update, loadUpdateBody(tenant, load));
  await createEndpoint(api, 'http://127.0.0.1:9/hook', ['load.created']);
  return {
    p: load.native_system_load_permalink as string,
    c: carrier.native_system_carrier_permalink as string,
    g: leg.native_system_load_leg_permalink as string,
    s: stop.native_system_stop_permalink as string,
  };
}

const fields = paginatedFields(schema);

describe('page sizes', () => {
  test('every paginated field declares its maximum, and every type holding one can be reached by this test', () => {
    expect(fields.length).toBeGreaterThanOrEqual(5);
    for (const { type } of fields) expect(Object.keys(reach), `add ${type} to reach`).toContain(type);
  });

  test('first (and last) above the maximum or below 0 is a validation_failed naming the argument, on every paginated field; the maximum itself is served', async ({
    api,
    tenant,
  }) => {
    const variables = await seedParents(api, tenant);
    for (const { type, field, arguments: sized, max } of fields) {
      for (const argument of sized) {
        for (const bad of [max + 1, 10_000, -1]) {
          const query = reach[type]!(`${field}(${argument}: ${bad}) ${selection(type, field)}`);
          const { error } = await gqlError(api, query, unparameterised.has(type) ? undefined : variables);
          expect(error.extensions, `${type}.${field}(${argument}: ${bad})`).toEqual({
            code: 'validation_failed',
            details: [{ field: argument, issue: `must be between 0 and ${max}` }],
          });
          expect(error.message).toBe(`${argument} must be between 0 and ${max} (${type}.${field}).`);
        }
      }
      const query = reach[type]!(`${field}(first: ${max}) ${selection(type, field)}`);
      await gqlData(api, query, unparameterised.has(type) ? undefined : variables);
    }
  });
});
