/**
 * Issue 37, item 8: one rule per input, whichever transport carries it. A GraphQL request's JSON body is
 * read by REST's rules (UTF-8, at most 64 levels, an object: 400 invalid_json), and a document graphql-js
 * gives up validating is `validation_failed` naming `query` (a documented code), not GRAPHQL_VALIDATION_FAILED.
 */
import { describe, expect, test } from '../../fixtures.js';
import { loadBody, routes } from '../../factories/records.js';
import { toInput } from '../../factories/graphql.js';

const upsertLoad = 'mutation ($input: LoadInput!) { upsertLoad(input: $input) { status permalink } }';

/** A value nested `levels` deep (`{"n": {"n": … "x"}}`). */
const nested = (levels: number) => {
  let value: unknown = 'x';
  for (let i = 0; i < levels; i++) value = { n: value };
  return value;
};

describe('a GraphQL body is read by the REST rules', () => {
  test('extra nested past 64 levels of the body is refused by both transports with invalid_json; nothing is stored', async ({ api, tenant, testApp }) => {
    for (const levels of [70, 1_000, 2_500]) {
      const body = loadBody(tenant, { deep: nested(levels) });
      const { deep, ...fields } = body;
      const rest = await api.post(routes.load, body);
      expect(rest.status, `REST ${levels}`).toBe(400);
      expect(rest.body.error.code).toBe('invalid_json');
      const graphql = await api.graphql(upsertLoad, { input: { ...toInput(fields), extra: { deep } } });
      expect(graphql.status, `GraphQL ${levels}`).toBe(400);
      expect(graphql.body.errors).toEqual([
        expect.objectContaining({ message: rest.body.error.message, extensions: expect.objectContaining({ code: 'invalid_json' }) }),
      ]);
      const stored = await testApp.database.db.prisma.load.count({ where: { permalink: body.native_system_load_permalink as string } });
      expect(stored).toBe(0);
    }
  });

  test('a shallow extra passes both', async ({ api, tenant }) => {
    const body = loadBody(tenant, { deep: nested(20) });
    expect((await api.post(routes.load, body)).body.status).toBe('processed');
    const graphql = await api.graphql(upsertLoad, { input: { ...toInput(loadBody(tenant)), extra: { deep: nested(20) } } });
    expect(graphql.body.data.upsertLoad.status).toBe('PROCESSED');
  });

  test('invalid UTF-8 is refused by both transports with invalid_json, not stored as U+FFFD', async ({ testApp, tenant }) => {
    const body = loadBody(tenant, { bol_number: 'BOL\u00ff' });
    const latin1 = (text: string) => new Uint8Array(Buffer.from(text, 'latin1'));
    const post = (path: string, bytes: Uint8Array<ArrayBuffer>) =>
      testApp.fetch(path, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': tenant.apiKey }, body: bytes });
    const rest = await post(routes.load, latin1(JSON.stringify(body)));
    expect(rest.status).toBe(400);
    const restError = ((await rest.json()) as { error: { code: string; message: string } }).error;
    expect(restError.code).toBe('invalid_json');
    const graphql = await post('/graphql', latin1(JSON.stringify({ query: upsertLoad, variables: { input: toInput(body) } })));
    expect(graphql.status).toBe(400);
    const errors = ((await graphql.json()) as { errors: { message: string; extensions: { code: string } }[] }).errors;
    expect(errors.map((e) => [e.extensions.code, e.message])).toEqual([['invalid_json', restError.message]]);
    expect(await testApp.database.db.prisma.load.count({ where: { permalink: body.native_system_load_permalink as string } })).toBe(0);
  });
});

describe('a document graphql-js gives up validating', () => {
  test('20,000 selections of __typename answer validation_failed naming query', async ({ api }) => {
    const res = await api.graphql(`{ ${'__typename '.repeat(20_000)}}`);
    expect(res.body.errors).toEqual([
      expect.objectContaining({ extensions: expect.objectContaining({ code: 'validation_failed', details: [{ field: 'query', issue: expect.any(String) }] }) }),
    ]);
  });
});
