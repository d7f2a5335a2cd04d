/**
 * Clearer answers for common integrator mistakes (issue 19, item 4): unknown fields that look like a
 * contract field (camelCase, a near miss), a JSON array posted to a single or a bulk route, and zone
 * names that are legacy aliases. REST and GraphQL alike, derived from the kinds' zod bodies.
 */
import { recordSpecs } from '../../../src/domain/registry.js';
import { bulkRestPath, restPath } from '../../../src/domain/declaration/record.js';
import { describe, expect, test } from '../../fixtures.js';
import { carrierBody, loadBody, loadUpdateBody, routes, seedLoadTree, stopBody } from '../../factories/records.js';
import { openApiDocument, restRoutes } from '../../../src/routes.js';
import { gqlData, gqlError, toInput } from '../../factories/graphql.js';

/** A REST body with every key in camelCase, as a JavaScript client serialising its own objects sends it. */
const camelCased = (body: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(body).map(([key, value]) => [key.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase()), value]));

describe('unknown fields that look like a contract field', () => {
  test('a near miss is processed, kept in extra, and answered with "did you mean" in the message and in suggestions', async ({ api, tenant, testApp }) => {
    const body = loadBody(tenant, { bol_numbr: 'B-1', tms_private_note: 'kept' });
    const res = await api.post(routes.load, body);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      status: 'processed',
      unknown_fields: ['bol_numbr', 'tms_private_note'],
      suggestions: [{ field: 'bol_numbr', did_you_mean: 'bol_number' }],
    });
    expect(res.body.message).toContain('bol_numbr: did you mean `bol_number`?');
    expect(res.body.message).not.toContain('tms_private_note');
    const stored = await testApp.database.db.prisma.load.findFirstOrThrow({ where: { permalink: body.native_system_load_permalink as string } });
    expect(stored.extra).toEqual({ bol_numbr: 'B-1', tms_private_note: 'kept' });
  });

  test('an accepted body with camelCase fields says fields are snake_case and names each snake_case field', async ({ api, tenant }) => {
    const res = await api.post(routes.load, loadBody(tenant, { bolNumber: 'B-2', customerName: 'C-2' }));
    expect(res.body.suggestions).toEqual([
      { field: 'bolNumber', did_you_mean: 'bol_number' },
      { field: 'customerName', did_you_mean: 'customer_name' },
    ]);
    expect(res.body.message).toMatch(/bolNumber: did you mean `bol_number`\?.*Fields are snake_case\./);
  });

  test('a camelCase body is a 400 whose message and details say fields are snake_case (loads and stops)', async ({ api, tenant }) => {
    const { leg } = await seedLoadTree(api, tenant);
    const bodies: Record<string, Record<string, unknown>> = {
      load: loadBody(tenant),
      stop: stopBody(tenant, leg),
    };
    for (const spec of recordSpecs.filter((s) => bodies[s.kind])) {
      const res = await api.post(restPath(spec), camelCased(bodies[spec.kind]!));
      expect(res.status, spec.kind).toBe(400);
      expect(res.body.error.code).toBe('validation_failed');
      expect(res.body.error.message).toContain('Fields are snake_case.');
      const own = camelCased({ [spec.permalinkField]: 1 });
      const ownCamel = Object.keys(own)[0]!;
      expect(res.body.error.message).toContain(`${ownCamel}: did you mean \`${spec.permalinkField}\`?`);
      expect(res.body.error.details).toContainEqual({
        field: spec.permalinkField,
        issue: `is required (the body has ${ownCamel}: fields are snake_case, send it as ${spec.permalinkField})`,
      });
    }
  });

  test('a required field sent misspelt is named in its issue', async ({ api, tenant }) => {
    const { native_system_load_permalink: permalink, ...body } = loadBody(tenant);
    const res = await api.post(routes.load, { ...body, native_system_load_permalnk: permalink });
    expect(res.status).toBe(400);
    expect(res.body.error.details).toContainEqual({
      field: 'native_system_load_permalink',
      issue: 'is required (the body has native_system_load_permalnk: did you mean native_system_load_permalink?)',
    });
  });

  test('a field unlike any contract field gets no suggestion', async ({ api, tenant }) => {
    const res = await api.post(routes.load, loadBody(tenant, { dispatcher_phone_extension: '12', city: 'x' }));
    expect(res.body.unknown_fields).toEqual(['dispatcher_phone_extension', 'city']);
    expect(res.body.suggestions).toEqual([]);
  });

  test('bulk results carry suggestions per record', async ({ api, tenant }) => {
    const res = await api.post(bulkRestPath(recordSpecs.find((s) => s.kind === 'load')!), {
      records: [loadBody(tenant), loadBody(tenant, { bol_numbr: 'x' })],
    });
    expect(res.body.results.map((r: { suggestions: unknown }) => r.suggestions)).toEqual([[], [{ field: 'bol_numbr', did_you_mean: 'bol_number' }]]);
  });

  test('GraphQL: an extra key that looks like an input field is suggested by its input name, single and bulk', async ({ api, tenant }) => {
    const input = toInput(loadBody(tenant, { extra: { bol_numbr: 'x' } }));
    const data = await gqlData(
      api,
      `mutation ($input: LoadInput!) { upsertLoad(input: $input) { status message unknownFields suggestions { field didYouMean } } }`,
      {
        input,
      },
    );
    expect(data.upsertLoad).toMatchObject({
      status: 'PROCESSED',
      unknownFields: ['bol_numbr'],
      suggestions: [{ field: 'bol_numbr', didYouMean: 'bolNumber' }],
    });
    expect(data.upsertLoad.message).toContain('bol_numbr: did you mean `bolNumber`?');
    expect(data.upsertLoad.message).not.toContain('snake_case');
    const bulk = await gqlData(api, `mutation ($inputs: [LoadInput!]!) { bulkUpsertLoads(inputs: $inputs) { suggestions { field didYouMean } } }`, {
      inputs: [toInput(loadBody(tenant, { extra: { custmer_name: 'y' } }))],
    });
    expect(bulk.bulkUpsertLoads).toEqual([{ suggestions: [{ field: 'custmer_name', didYouMean: 'customerName' }] }]);
  });
});

describe('a JSON array where a route wants an object', () => {
  test('posted to a single route: 400 naming the bulk route and its envelope, for every kind', async ({ api }) => {
    for (const spec of recordSpecs) {
      const res = await api.post(restPath(spec), [{}]);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('invalid_json');
      expect(res.body.error.message).toBe(
        `The body is a JSON array; this route takes one record as a JSON object: send several records to POST ${bulkRestPath(spec)} as {"records": [...]}.`,
      );
    }
  });

  test('posted to a bulk route: 400 saying to wrap the records as {"records": [...]}', async ({ api, tenant }) => {
    for (const spec of recordSpecs) {
      const res = await api.post(bulkRestPath(spec), [loadBody(tenant)]);
      expect(res.status).toBe(400);
      expect(res.body.error).toEqual({ code: 'invalid_json', message: 'The body is a JSON array; wrap the records as {"records": [...]}.' });
    }
  });
});

describe('timezone takes IANA Area/Location names (or UTC) only', () => {
  test('REST: canonical names pass; abbreviations, POSIX rules and aliases are a 400 naming timezone', async ({ api, tenant }) => {
    const { leg } = await seedLoadTree(api, tenant);
    for (const zone of ['America/Chicago', 'America/Argentina/Buenos_Aires', 'Asia/Kolkata', 'UTC']) {
      const res = await api.post(routes.stop, stopBody(tenant, leg, { timezone: zone }));
      expect(res.status, zone).toBe(200);
    }
    for (const zone of ['CST', 'EST', 'EST5EDT', 'CST6CDT', 'US/Central', 'Etc/GMT+6', 'GMT', 'Zulu', 'utc']) {
      const res = await api.post(routes.stop, stopBody(tenant, leg, { timezone: zone }));
      expect(res.status, zone).toBe(400);
      expect(res.body.error.details).toEqual([{ field: 'timezone', issue: expect.stringContaining('Area/Location') }]);
    }
  });

  test('GraphQL: the same rule, the error naming the input field', async ({ api, tenant }) => {
    const { leg } = await seedLoadTree(api, tenant);
    const { error } = await gqlError(api, `mutation ($input: StopInput!) { upsertStop(input: $input) { status } }`, {
      input: toInput(stopBody(tenant, leg, { timezone: 'EST' })),
    });
    expect(error.extensions).toMatchObject({ code: 'validation_failed', details: [{ field: 'timezone' }] });
  });
});

describe('unknown query parameters (issue 37, item 2)', () => {
  const ingestionRoutes = restRoutes.filter((route) => route.ingestion);

  test('a typo of sync_run_time is a 400 naming it with did-you-mean, and the fresher stored load is kept', async ({ api, tenant, testApp }) => {
    const body = loadBody(tenant, { customer_name: 'fresh' });
    expect((await api.post(`${routes.load}?sync_run_time=2026-01-02T00:00:00Z`, body)).body.status).toBe('processed');
    const res = await api.post(`${routes.load}?sync_runtime=2026-01-01T00:00:00Z`, { ...body, customer_name: 'stale' });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('validation_failed');
    expect(res.body.error.details).toEqual([{ field: 'sync_runtime', issue: 'is not a query parameter of this route (did you mean sync_run_time?)' }]);
    expect(res.body.error.message).toContain('sync_runtime: did you mean `sync_run_time`?');
    expect(res.body.error.message).toContain('This route takes sync_run_time, dry_run.');
    const stored = await testApp.database.db.prisma.load.findFirstOrThrow({ where: { permalink: body.native_system_load_permalink as string } });
    expect(stored.customerName).toBe('fresh');
  });

  test('every ingestion route, single and bulk, refuses a parameter it does not list (camelCase and near misses get a suggestion)', async ({ api }) => {
    expect(ingestionRoutes.length).toBeGreaterThanOrEqual(18);
    for (const route of ingestionRoutes) {
      const res = await api.post(`${route.path}?dryRun=true&tenant=x&dry_run=true`, {});
      expect(res.status, route.path).toBe(400);
      expect(res.body.error.details, route.path).toEqual([
        { field: 'dryRun', issue: 'is not a query parameter of this route (did you mean dry_run?)' },
        { field: 'tenant', issue: 'is not a query parameter of this route' },
      ]);
      expect(res.body.error.message, route.path).toContain('Unknown query parameters: dryRun: did you mean `dry_run`?');
    }
  });

  test('the OpenAPI document states the rule', () => {
    expect(openApiDocument.info.description).toContain('Each operation takes the query parameters it lists and no other');
  });

  test('the parameters a route lists pass: sync_run_time on carriers and load updates is accepted and ignored', async ({ api, tenant }) => {
    const { load } = await seedLoadTree(api, tenant);
    const carrier = await api.post(`${routes.carrier}?sync_run_time=not-a-date&dry_run=false`, carrierBody(tenant));
    expect(carrier.body).toMatchObject({ status: 'processed' });
    const update = await api.post(`${routes.load_update}?sync_run_time=2026-01-01T00:00:00Z`, loadUpdateBody(tenant, load));
    expect(update.body).toMatchObject({ status: 'processed' });
  });

  test('an unknown parameter is counted as a rejected request in ingest health', async ({ api }) => {
    await api.post(`${routes.stop}?syncruntime=2026-01-01T00:00:00Z`, {});
    const health = await gqlData(api, '{ ingestHealth { recentRejections { code field message } } }');
    expect(health.ingestHealth.recentRejections).toEqual([
      { code: 'validation_failed', field: 'syncruntime', message: expect.stringContaining('syncruntime: did you mean `sync_run_time`?') },
    ]);
  });
});
