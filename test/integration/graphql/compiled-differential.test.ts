/**
 * The compiled reads (src/graphql/compiled-read.ts) and the resolvers over Prisma answer every query
 * with identical JSON. Generated queries (fast-check): `loads`, `carriers`, `load` and `carrier` with
 * random selections of every compiled field (nested legs, carriers, stops, updates, phase history,
 * activity fields, `tmsUrl`, `__typename`, aliases, inline fragments), every filter (phase, status,
 * search, city, carrier, changedSince, activitySince), both orders, page sizes (in and out of range),
 * cursors (of both tenants, of deleted loads, malformed), over two tenants whose data look alike
 * (the same cities, statuses, reference fragments) with deleted loads, legs, stops and carriers (deleted
 * through the API, with their cascades), revived legs and stops, stops that changed city or leg and a
 * leg that moved to another load (the compiled `city` filter reads the set of stop cities that those
 * writes keep, the resolvers read the stops).
 * One app answers with compiled reads, a second over the same database with the resolvers only; the
 * bodies must be equal, and most cases must really have been compiled (`X-GraphQL-Execution`).
 *
 * CI runs FUZZ_RUNS cases (default 2,000: three to four minutes on PGlite on a shared 2-core machine, in `npm test` on both databases; the bounded fuzz adds 2,000 on PostgreSQL); `npm run fuzz` runs 5,000. Replay: FUZZ_SEED=<seed> FUZZ_PATH=<path>.
 */
import fc from 'fast-check';
import { describe, expect, test } from '../../fixtures.js';
import { apiFor, resolversApp, type Api, type TestApp, type TestTenant } from '../../helpers/app.js';
import { carrierBody, loadBody, loadLegBody, loadUpdateBody, stopBody } from '../../factories/records.js';

const runs = Number(process.env.FUZZ_RUNS ?? 2000);
const seed = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : Math.floor(Math.random() * 2 ** 31);
const path = process.env.FUZZ_PATH || undefined;

type Body = Record<string, unknown>;

/** A deterministic choice from a list (the data are fixed; the queries are generated). */
const pick = <T>(list: readonly T[], n: number) => list[n % list.length]!;

const statuses = [' In Transit ', 'in transit', 'Booked', 'ÉTAPE', 'étape', null, 'Del_vered', 'BOOKED  '];
const cities = ['Chicago', 'chicago ', 'Dallas', null, 'Grand Rapids', 'CHICAGO'];

async function bulk(api: Api, path: string, records: Body[]) {
  if (!records.length) return;
  const res = await api.post(path, { records });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  for (const result of res.body.results) expect(result.error, JSON.stringify(result)).toBeUndefined();
}

/** One tenant's records: carriers, loads with 0–3 legs, stops, updates; then status changes and tombstones. */
async function seedTenant(testApp: TestApp, tenant: TestTenant, salt: number) {
  const api = apiFor(testApp, tenant.apiKey);
  await api.graphql('mutation { setStatusMapping(status: "in transit", phase: IN_TRANSIT) { status } }');
  await api.graphql('mutation { setStatusMapping(status: "étape", phase: AT_PICKUP) { status } }');
  const carriers = [
    carrierBody(tenant, { carrier_name: 'Alpha' }),
    carrierBody(tenant, { carrier_name: null, scac: 'ZZ_%' }),
    carrierBody(tenant, { carrier_name: 'beta' }),
    carrierBody(tenant, { carrier_name: 'Alpha', mc_number: 'MC-shared' }),
  ];
  await bulk(api, '/api/v1/carriers/bulk_upsert', carriers);
  const loads = Array.from({ length: 10 }, (_, i) =>
    loadBody(tenant, {
      native_system_load_status: pick(statuses, i + salt),
      native_system_customer_reference_number: `CR-${i}-shared`,
      bol_number: i === 3 ? 'BOL%3' : i === 4 ? 'BOL_4' : `BOL-${i}`,
      extra_field: i % 3 ? { n: i, nested: [1.5, 'x'] } : undefined,
    }),
  );
  await bulk(api, '/api/v1/loads/bulk_upsert', loads);
  testApp.clock.advance(1000);
  const legs: Body[] = [];
  loads.forEach((load, i) => {
    const sequences = [[], [1], [2, null], [3, 1, 2]][(i + salt) % 4]!;
    for (const [j, sequence] of sequences.entries()) {
      legs.push(
        loadLegBody(tenant, load, {
          load_leg_sequence: sequence,
          native_system_carrier_permalink: (i + j) % 5 === 4 ? null : pick(carriers, i + j).native_system_carrier_permalink,
          native_system_load_unique_key: pick([null, `K ${i}/ü`, `K${i}`], i + j),
          driver_name: `Driver ${i}.${j}`,
          native_system_reference_number: `LR-${i}-${j}-shared`,
        }),
      );
    }
  });
  await bulk(api, '/api/v1/loadlegs/bulk_upsert', legs);
  testApp.clock.advance(1000);
  const stops: Body[] = [];
  legs.forEach((leg, i) => {
    for (let j = 0; j < (i + salt) % 3; j++) {
      stops.push(
        stopBody(tenant, leg, {
          stop_sequence: j + 1,
          stop_type: j ? 'delivery' : 'pickup',
          city: pick(cities, i + j + salt),
          departed_at: (i + j) % 2 ? '2026-11-20T08:00:00.123Z' : null,
          latitude: (i + j) % 3 ? 41.5 + i / 8 : null,
          longitude: (i + j) % 3 ? -87.25 : null,
          appointment_start: '2026-11-20T07:00:00Z',
          reference_number: `SR-${i}-${j}-shared`,
        }),
      );
    }
  });
  await bulk(api, '/api/v1/stops/bulk_upsert', stops);
  testApp.clock.advance(1000);
  const updates: Body[] = [];
  loads.forEach((load, i) => {
    for (let j = 0; j < (i + salt) % 4; j++) {
      const gps = (i + j) % 3 === 0;
      updates.push(
        loadUpdateBody(tenant, load, {
          update_type: gps ? 'gps_ping' : 'check_call',
          occurred_at: (i + j) % 4 === 3 ? null : `2026-11-2${j}T10:00:0${i % 10}.5Z`,
          latitude: gps ? 40 + j : null,
          longitude: gps ? -88.125 - i : null,
          native_system_load_status: gps ? null : 'In Transit',
          message: `m${i}.${j}`,
        }),
      );
    }
  });
  await bulk(api, '/api/v1/loadupdates/bulk_create', updates);
  testApp.clock.advance(1000);
  // Status changes (a second phase change for some loads) and a later write on others (activity).
  await bulk(
    api,
    '/api/v1/loads/bulk_upsert',
    loads.filter((_, i) => i % 3 === 0).map((load) => ({ ...load, native_system_load_status: 'in transit' })),
  );
  // Moves that the load-level city set must follow (the compiled `city` filter reads it, the resolvers
  // read the stops): stops change city or move to a leg of another load, a leg moves to another load.
  await bulk(
    api,
    '/api/v1/stops/bulk_upsert',
    stops.filter((_, i) => i % 4 === 0).map((stop, i) => ({ ...stop, city: pick(cities, i + salt + 3) })),
  );
  await bulk(
    api,
    '/api/v1/stops/bulk_upsert',
    stops
      .filter((_, i) => i % 5 === 2)
      .map((stop, i) => ({ ...stop, native_system_load_leg_permalink: pick(legs, i + salt + 1).native_system_load_leg_permalink })),
  );
  // Two more loads: a leg with stops in two of the asked cities moves from the first to the second.
  const [from, to] = [loadBody(tenant), loadBody(tenant)];
  await bulk(api, '/api/v1/loads/bulk_upsert', [from, to]);
  const mover = loadLegBody(tenant, from, { native_system_reference_number: `LR-moved-${salt}` });
  await bulk(api, '/api/v1/loadlegs/bulk_upsert', [mover]);
  await bulk(api, '/api/v1/stops/bulk_upsert', [
    stopBody(tenant, mover, { city: 'Grand Rapids', reference_number: 'SR-moved-shared' }),
    stopBody(tenant, mover, { city: 'Dallas', stop_sequence: 2, stop_type: 'delivery' }),
  ]);
  await bulk(api, '/api/v1/loadlegs/bulk_upsert', [
    { ...mover, native_system_load_permalink: to.native_system_load_permalink, native_system_load_id: to.native_system_load_id },
  ]);
  testApp.clock.advance(1000);
  // Tombstones of each kind, through the deletes (their cascades), and revivals (a revived record's children stay deleted).
  const remove = (collection: string, key: string, body: Body) => bulk(api, `/api/v1/${collection}/bulk_delete`, [{ [key]: body[key] }]);
  await remove('loads', 'native_system_load_permalink', loads[5]!);
  await remove('loadlegs', 'native_system_load_leg_permalink', legs[2]!);
  await remove('stops', 'native_system_stop_permalink', stops[1]!);
  await remove('stops', 'native_system_stop_permalink', stops[3]!);
  testApp.clock.advance(1000);
  await bulk(api, '/api/v1/loadlegs/bulk_upsert', [legs[2]!]);
  const live = legs.find((leg) => leg !== legs[2] && leg.native_system_load_permalink !== loads[5]!.native_system_load_permalink)!;
  await bulk(api, '/api/v1/stops/bulk_upsert', [{ ...stops[3]!, city: 'Chicago', native_system_load_leg_permalink: live.native_system_load_leg_permalink }]);
  await remove('carriers', 'native_system_carrier_permalink', carriers[2]!);
  const { sql } = testApp.database.db;
  const ids = async (table: string) =>
    (await sql.query<{ id: string }>(`SELECT id FROM ${table} WHERE tenant_id = $1`, [tenant.id])).map((row) =>
      Buffer.from(`GPC:S:${row.id}`).toString('base64'),
    );
  return {
    loads: loads.map((load) => load.native_system_load_permalink as string),
    carriers: carriers.map((carrier) => carrier.native_system_carrier_permalink as string),
    loadCursors: await ids('loads'),
    carrierCursors: await ids('carriers'),
  };
}

/** A selection: some of `fields` (at least one), with optional nested selections; sometimes aliased or in an inline fragment. */
const fieldsOf = (type: string, scalars: readonly string[], nested: Record<string, fc.Arbitrary<string>> = {}): fc.Arbitrary<string> =>
  fc
    .tuple(
      fc.subarray([...scalars, '__typename'], { minLength: 1 }),
      ...Object.entries(nested).map(([name, arb]) => fc.option(arb.map((inner) => `${name} ${inner}`))),
      fc.boolean(),
      fc.nat(3),
    )
    .map((parts) => {
      const [scalarList, ...rest] = parts as [string[], ...unknown[]];
      const [fragment, alias] = rest.splice(-2) as [boolean, number];
      const all = [...scalarList, ...(rest.filter(Boolean) as string[])];
      if (alias && all.length) all[0] = `x${alias}: ${all[0]}`;
      const body = all.join(' ');
      return fragment ? `{ ... on ${type} { ${body} } __typename }` : `{ ${body} }`;
    });

const carrierScalars = ['id', 'permalink', 'tmsId', 'name', 'mcNumber', 'dotNumber', 'scac', 'email', 'phone', 'extra', 'changedAt', 'deletedAt'];
const stopScalars = [
  'id',
  'permalink',
  'tmsId',
  'sequence',
  'type',
  'locationName',
  'city',
  'state',
  'latitude',
  'longitude',
  'appointmentStart',
  'arrivedAt',
  'departedAt',
  'referenceNumber',
  'status',
  'extra',
  'changedAt',
  'deletedAt',
];
const updateScalars = [
  'id',
  'permalink',
  'type',
  'occurredAt',
  'status',
  'phase',
  'latitude',
  'longitude',
  'city',
  'eta',
  'message',
  'source',
  'extra',
  'createdAt',
];
const legScalars = [
  'id',
  'permalink',
  'tmsId',
  'sequence',
  'loadUniqueKey',
  'driverName',
  'referenceNumber',
  'pickupReferenceNumber',
  'status',
  'extra',
  'changedAt',
  'deletedAt',
];
const loadScalars = [
  'id',
  'permalink',
  'tmsId',
  'status',
  'phase',
  'customerReferenceNumber',
  'bolNumber',
  'poNumber',
  'customerName',
  'tmsUrl',
  'extra',
  'changedAt',
  'createdAt',
  'deletedAt',
  'lastActivityAt',
];

const historySel = fieldsOf('PayloadRecord', ['receivedAt', 'source', 'requestId', 'outcome', 'changed', 'body']);
const carrierSel = fieldsOf('Carrier', carrierScalars, { 'history(first: 1)': historySel });
const stopSel = fieldsOf('Stop', stopScalars, { leg: fieldsOf('LoadLeg', ['permalink', 'sequence']) });
const updateSel = fieldsOf('LoadUpdate', updateScalars);
const legSel = fieldsOf('LoadLeg', legScalars, { carrier: carrierSel, stops: stopSel, load: fieldsOf('Load', ['permalink', 'status']) });
const loadSel = fieldsOf('Load', loadScalars, {
  legs: legSel,
  'u2: updates(first: 2)': updateSel,
  updates: updateSel,
  'u: updates(first: 0)': updateSel,
  phaseHistory: fieldsOf('PhaseChange', ['id', 'fromPhase', 'toPhase', 'status', 'changedAt']),
  lastUpdate: updateSel,
  lastLocation: fieldsOf('Location', ['latitude', 'longitude', 'occurredAt']),
  nextStop: stopSel,
  history: historySel,
});

const connectionSel = (node: fc.Arbitrary<string>) =>
  fc
    .tuple(
      fc.option(node.map((n) => `edges { ${'cursor '}node ${n} }`)),
      fc.option(
        fc.subarray(['hasNextPage', 'hasPreviousPage', 'startCursor', 'endCursor', '__typename'], { minLength: 1 }).map((f) => `pageInfo { ${f.join(' ')} }`),
      ),
      fc.boolean(),
      fc.boolean(),
    )
    .map(([edges, pageInfo, count, exact]) => [edges, pageInfo, count && 'totalCount', exact && 'totalCountExact'].filter(Boolean).join(' ') || 'totalCount');

const pageSize = fc.oneof(fc.integer({ min: 0, max: 12 }), fc.constantFrom(100, 101, -1, null));

describe('compiled reads and resolvers give identical JSON', () => {
  test(`generated queries (${runs} cases, seed ${seed})`, { timeout: 120_000 + runs * 1_000 }, async ({ testApp }) => {
    const a = await testApp.createTenant({ tmsUrlTemplate: 'https://tms.example/{key}?from={key}' });
    const b = await testApp.createTenant();
    const dataA = await seedTenant(testApp, a, 0);
    const dataB = await seedTenant(testApp, b, 1);
    const compiled = apiFor(testApp, a.apiKey);
    const resolvers = apiFor(await resolversApp(testApp), a.apiKey);
    const since = [
      '2000-01-01T00:00:00Z',
      '2100-01-01T00:00:00Z',
      testApp.clock.now().toISOString(),
      new Date(testApp.clock.now().getTime() - 2500).toISOString(),
    ];
    const askedCities = ['chicago', ' CHICAGO ', 'dallas', 'grand rapids', 'nowhere'];
    // Each city alone first, every load of it (the generated filters below rarely ask a city alone): the
    // compiled filter reads the load-level city set that the writes above kept, the resolvers the stops.
    for (const city of askedCities) {
      const query = 'query ($city: String) { loads(first: 100, filter: { city: $city }) { totalCount edges { node { permalink } } } }';
      const headers = { 'cache-control': 'no-cache' };
      const [left, right] = [
        await compiled.post('/graphql', { query, variables: { city } }, headers),
        await resolvers.post('/graphql', { query, variables: { city } }, headers),
      ];
      expect(left.headers.get('x-graphql-execution')).toBe('compiled');
      expect(left.body, city).toEqual(right.body);
    }
    const filter = fc.record(
      {
        phase: fc.subarray(['PLANNED', 'IN_TRANSIT', 'AT_PICKUP', 'UNMAPPED']),
        status: fc.constantFrom(...statuses.filter(Boolean), '  ', 'IN TRANSIT', 'b%', 'nope'),
        search: fc.constantFrom('shared', 'CR-1', '%', '_', 'bol%', 'LR-2-1', 'SR-3', '   ', 'zzz'),
        changedSince: fc.constantFrom(...since),
        activitySince: fc.constantFrom(...since),
        carrier: fc.constantFrom(...dataA.carriers, dataB.carriers[0]!, 'nope'),
        city: fc.constantFrom(...askedCities),
      },
      { requiredKeys: [] },
    );
    const cursor = fc.option(fc.constantFrom(...dataA.loadCursors, dataB.loadCursors[0]!, 'Z2FyYmFnZQ=='), { freq: 2 });
    const loadsField = fc
      .tuple(fc.option(filter), fc.option(fc.constantFrom('CREATED_DESC', 'ACTIVITY_DESC')), pageSize, cursor, connectionSel(loadSel))
      .map(([f, orderBy, first, after, sel]) => ({
        text: `loads(first: $lf, after: $la, filter: $filter, orderBy: $order) { ${sel} }`,
        vars: { lf: first, la: after, filter: f, order: orderBy },
      }));
    const carriersField = fc
      .tuple(
        fc.option(fc.constantFrom('alpha', 'MC', '%', '_', 'ZZ_', '  ', 'beta')),
        pageSize,
        fc.option(fc.constantFrom(...dataA.carrierCursors, dataB.carrierCursors[0]!), { freq: 2 }),
        connectionSel(carrierSel),
      )
      .map(([search, first, after, sel]) => ({ text: `carriers(first: $cf, after: $ca, search: $search) { ${sel} }`, vars: { cf: first, ca: after, search } }));
    const loadField = fc
      .tuple(fc.constantFrom(...dataA.loads, dataB.loads[0]!), fc.boolean(), loadSel)
      .map(([permalink, includeDeleted, sel]) => ({ text: `load(permalink: $lp, includeDeleted: $ld) ${sel}`, vars: { lp: permalink, ld: includeDeleted } }));
    const carrierField = fc.tuple(fc.constantFrom(...dataA.carriers, dataB.carriers[0]!), fc.boolean(), carrierSel).map(([permalink, includeDeleted, sel]) => ({
      text: `carrier(permalink: $cp, includeDeleted: $cd) ${sel}`,
      vars: { cp: permalink, cd: includeDeleted },
    }));
    const operation = fc.tuple(
      fc.option(loadsField, { freq: 1 }),
      fc.option(carriersField, { freq: 2 }),
      fc.option(loadField, { freq: 3 }),
      fc.option(carrierField, { freq: 4 }),
    );
    const declarations =
      '$lf: Int, $la: String, $filter: LoadFilter, $order: LoadOrder, $cf: Int, $ca: String, $search: String, $lp: String!, $ld: Boolean, $cp: String!, $cd: Boolean';
    const paths = { compiled: 0, resolvers: 0, unexecuted: 0 };
    await fc.assert(
      fc.asyncProperty(operation, async (fields) => {
        const chosen = (fields as ({ text: string; vars: Record<string, unknown> } | null)[]).filter((f) => f !== null);
        if (!chosen.length) return;
        const variables: Record<string, unknown> = { lp: '', cp: '', ...Object.assign({}, ...chosen.map((f) => f.vars)) };
        const used = declarations
          .split(', ')
          .filter((d) => chosen.some((f) => f.text.includes(d.split(':')[0]! + ')') || f.text.includes(d.split(':')[0]! + ',')));
        const query = `query Q(${used.join(', ')}) { ${chosen.map((f) => f.text).join(' ')} }`;
        const headers = { 'cache-control': 'no-cache' };
        const [left, right] = [await compiled.post('/graphql', { query, variables }, headers), await resolvers.post('/graphql', { query, variables }, headers)];
        const path = left.headers.get('x-graphql-execution') as 'compiled' | 'resolvers' | null;
        paths[path ?? 'unexecuted'] += 1;
        expect({ status: left.status, body: left.body }, query).toEqual({ status: right.status, body: right.body });
        // Every answer without an error is the compiler's (the generated queries use only compiled fields and
        // arguments): a statement that failed and fell back to the resolvers would pass the comparison unseen.
        if (!left.body.errors) expect(path, query).toBe('compiled');
      }),
      { numRuns: runs, seed, path, endOnFailure: true },
    );
    // The comparison is worth something only if the compiled path really answered most cases.
    expect(paths.compiled, JSON.stringify(paths)).toBeGreaterThan(runs / 2);
  });
});
