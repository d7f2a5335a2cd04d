/**
 * GraphQL for client libraries (issue #11 point 4): every record a client caches has `id: ID!`,
 * stable per record; every enum value is UPPER_CASE with a description (REST keeps its wire values);
 * an omitted required-but-nullable input field counts as null (REST keeps the presence rule).
 */
import { describe, expect, test } from '../../fixtures.js';
import { carrierBody, fullBodies, loadBody, routes, seed } from '../../factories/records.js';
import { gqlData, toInput, upsertMutations } from '../../factories/graphql.js';

const typeQuery = /* GraphQL */ `
  query {
    __schema {
      types {
        name kind
        fields { name type { kind ofType { name kind } } }
        inputFields { name description type { kind name ofType { name } } }
        enumValues { name description }
      }
    }
  }
`;

const cachedTypes = ['Carrier', 'Load', 'LoadLeg', 'Stop', 'LoadUpdate', 'PhaseChange', 'StatusMapping', 'Tenant'];

describe('GraphQL for client libraries', () => {
  test('every cached object type has id: ID!', async ({ api }) => {
    const { __schema } = await gqlData(api, typeQuery);
    const types = new Map((__schema.types as any[]).map((t) => [t.name, t]));
    for (const name of cachedTypes) {
      const id = types.get(name).fields.find((f: { name: string }) => f.name === 'id');
      expect(id?.type, name).toEqual({ kind: 'NON_NULL', ofType: { name: 'ID', kind: 'SCALAR' } });
    }
  });

  test("ids are stable across upserts, distinct between records, and the tenant's is its slug", async ({ api, tenant }) => {
    const { load, leg, stop, carrier } = await seedTree(api, tenant);
    await gqlData(api, 'mutation { setStatusMapping(status: "Booked", phase: COVERED) { id } }');
    const query = `query ($p: String!) {
      viewer { id slug }
      statusMappings { id status }
      load(permalink: $p) { id phaseHistory { id } legs { id carrier { id } stops { id } } updates { id } }
    }`;
    const first = await gqlData(api, query, { p: load.native_system_load_permalink });
    await seed(api, routes.load, { ...load, bol_number: 'CHANGED', native_system_load_status: 'Booked' });
    await seed(api, routes.load_leg, { ...leg, driver_name: 'Someone else' });
    await seed(api, routes.stop, { ...stop, city: 'Elsewhere' });
    await seed(api, routes.carrier, { ...carrier, carrier_name: 'Renamed' });
    const second = await gqlData(api, query, { p: load.native_system_load_permalink });

    expect(first.viewer.id).toBe(tenant.slug);
    const ids = (data: any) => [
      data.load.id,
      data.load.legs[0].id,
      data.load.legs[0].carrier.id,
      data.load.legs[0].stops[0].id,
      data.load.updates[0].id,
      data.statusMappings[0].id,
    ];
    expect(ids(second)).toEqual(ids(first));
    expect(new Set(ids(first)).size).toBe(6);
    for (const id of ids(first)) expect(id).toMatch(/^[0-9a-f-]{36}$/);
    expect(second.load.phaseHistory.slice(0, first.load.phaseHistory.length)).toEqual(first.load.phaseHistory);
    expect(first.load.phaseHistory.length).toBeGreaterThanOrEqual(2); // created, then re-phased by the mapping
  });

  test('every enum value is UPPER_CASE and described', async ({ api }) => {
    const { __schema } = await gqlData(api, typeQuery);
    const enums = (__schema.types as any[]).filter((t) => t.kind === 'ENUM' && !t.name.startsWith('__'));
    expect(enums.map((e) => e.name)).toEqual(expect.arrayContaining(['StopType', 'LoadUpdateType', 'Phase', 'UpsertStatus']));
    for (const e of enums) {
      for (const value of e.enumValues) {
        expect(value.name, e.name).toMatch(/^[A-Z][A-Z0-9_]*$/);
        expect(value.description, `${e.name}.${value.name}`).toBeTruthy();
      }
    }
  });

  test('enum values map to the REST wire values both ways (PICKUP ↔ pickup)', async ({ api, tenant }) => {
    const { load, leg } = await seedTree(api, tenant);
    const viaGraphql = fullBodies.stop(tenant, leg, { stop_type: 'delivery', stop_sequence: 2 });
    const upsert = await gqlData(api, upsertMutations.stop, { input: toInput(viaGraphql) });
    expect(toInput(viaGraphql).stopType).toBe('DELIVERY');
    expect(upsert.upsertStop.status).toBe('PROCESSED');
    const data = await gqlData(api, 'query ($p: String!) { load(permalink: $p) { legs { stops { type } } updates { type } } }', {
      p: load.native_system_load_permalink,
    });
    expect(data.load.legs[0].stops.map((s: { type: string }) => s.type)).toEqual(['PICKUP', 'DELIVERY']);
    expect(data.load.updates.map((u: { type: string }) => u.type)).toEqual(['CHECK_CALL']);
    // REST's wire format is unchanged: lowercase in, lowercase enum in the OpenAPI document.
    const rest = await api.post(routes.stop, { ...viaGraphql, stop_type: 'DELIVERY' });
    expect(rest.status).toBe(400);
  });

  test('an omitted required-but-nullable input field counts as null; REST still requires it present', async ({ api, tenant }) => {
    const load = loadBody(tenant);
    const { native_system_load_id: _id, native_system_load_status: _status, ...partial } = load;
    const result = await gqlData(api, upsertMutations.load, { input: toInput(partial) });
    expect(result.upsertLoad.status).toBe('PROCESSED');
    const stored = await gqlData(api, 'query ($p: String!) { load(permalink: $p) { tmsId status phase } }', { p: load.native_system_load_permalink });
    expect(stored.load).toEqual({ tmsId: null, status: null, phase: 'UNMAPPED' });

    const rest = await api.post(routes.load, partial);
    expect(rest.status).toBe(400);
    expect(rest.body.error.details.map((d: { field: string }) => d.field).sort()).toEqual(['native_system_load_id', 'native_system_load_status']);

    // A leg's parent permalink left out is built from the load id, as an explicit null is on REST.
    const carrier = carrierBody(tenant);
    await seed(api, routes.carrier, carrier);
    await seed(api, routes.load, load);
    const leg = fullBodies.load_leg(tenant, load, carrier);
    const { native_system_load_permalink: _parent, ...legWithoutParent } = leg;
    expect((await gqlData(api, upsertMutations.load_leg, { input: toInput(legWithoutParent) })).upsertLoadLeg.status).toBe('PROCESSED');
  });

  test('the schema says so: such input fields are nullable and described; own permalinks stay non-null', async ({ api }) => {
    const { __schema } = await gqlData(api, typeQuery);
    const input = (name: string) => (__schema.types as any[]).find((t) => t.name === name).inputFields as any[];
    const field = (type: string, name: string) => input(type).find((f) => f.name === name);
    for (const [type, name] of <[string, string][]>[
      ['LoadInput', 'nativeSystemLoadId'],
      ['LoadInput', 'nativeSystemLoadStatus'],
      ['StopInput', 'stopType'],
      ['LoadLegInput', 'nativeSystemLoadPermalink'],
    ]) {
      expect(field(type, name).type.kind, `${type}.${name}`).not.toBe('NON_NULL');
      expect(field(type, name).description, `${type}.${name}`).toContain('Leaving it out counts as null');
    }
    for (const [type, name] of <[string, string][]>[
      ['LoadInput', 'nativeSystemLoadPermalink'],
      ['StopInput', 'nativeSystemStopPermalink'],
    ]) {
      expect(field(type, name).type.kind, `${type}.${name}`).toBe('NON_NULL');
    }
    expect(field('LoadInput', 'bolNumber').description).not.toContain('Leaving it out');
    expect(field('LoadPatch', 'nativeSystemLoadStatus')?.description ?? '').not.toContain('Leaving it out');
  });
});

async function seedTree(api: Parameters<typeof seed>[0], tenant: Parameters<typeof fullBodies.carrier>[0]) {
  const carrier = await seed(api, routes.carrier, fullBodies.carrier(tenant));
  const load = await seed(api, routes.load, fullBodies.load(tenant));
  const leg = await seed(api, routes.load_leg, fullBodies.load_leg(tenant, load, carrier));
  const stop = await seed(api, routes.stop, fullBodies.stop(tenant, leg));
  const update = await seed(api, routes.load_update, fullBodies.load_update(tenant, load, leg));
  return { carrier, load, leg, stop, update };
}
