import { readFileSync } from 'node:fs';
import { describe, expect, test } from '../../fixtures.js';
import { printedSchema, schemaPath } from '../../../src/cli/print-schema.js';
import { LoadUpsert } from '../../../src/domain/load/schema.js';
import { StopUpsert } from '../../../src/domain/stop/schema.js';
import { gqlData } from '../../factories/graphql.js';
import { camelCase } from '../../../src/domain/declaration/fields.js';

type TypeRef = { kind: string; name: string | null; ofType: TypeRef | null };
const typeName = (t: TypeRef): string => (t.kind === 'NON_NULL' ? `${typeName(t.ofType!)}!` : t.kind === 'LIST' ? `[${typeName(t.ofType!)}]` : t.name!);
const typeRef = 'type { kind name ofType { kind name ofType { kind name ofType { kind name } } } }';

const introspection = /* GraphQL */ `{
  __schema {
    types {
      name kind description
      fields { name description args { name description } }
      inputFields { name description ${typeRef} }
      enumValues { name }
    }
  }
}`;

describe('schema.graphql', () => {
  test('the committed file equals the printed schema (run `npm run schema:print`)', () => {
    expect(readFileSync(schemaPath, 'utf8')).toBe(printedSchema());
  });

  test('every type, field, argument and input field has a description', async ({ api }) => {
    const { __schema } = await gqlData(api, introspection);
    const builtIn = new Set(['String', 'Int', 'Float', 'Boolean', 'ID']);
    const missing: string[] = [];
    for (const type of __schema.types) {
      if (type.name.startsWith('__') || builtIn.has(type.name)) continue;
      if (!type.description) missing.push(type.name);
      for (const field of [...(type.fields ?? []), ...(type.inputFields ?? [])]) {
        if (!field.description) missing.push(`${type.name}.${field.name}`);
        for (const arg of field.args ?? []) if (!arg.description) missing.push(`${type.name}.${field.name}(${arg.name})`);
      }
    }
    expect(missing).toEqual([]);
  });

  test('mutation inputs have exactly the REST body fields in camelCase, with their zod descriptions and types, plus extra', async ({ api }) => {
    const { __schema } = await gqlData(api, introspection);
    const type = (name: string) => __schema.types.find((t: { name: string }) => t.name === name);
    const fieldsOf = (name: string): Record<string, { description: string; type: string }> =>
      Object.fromEntries(
        type(name).inputFields.map((f: { name: string; description: string } & { type: TypeRef }) => [
          f.name,
          { description: f.description, type: typeName(f.type) },
        ]),
      );

    const load = fieldsOf('LoadInput');
    expect(Object.keys(load).sort()).toEqual([...Object.keys(LoadUpsert.shape).map(camelCase), 'extra'].sort());
    expect(load.bolNumber).toEqual({ description: LoadUpsert.shape.bol_number.description, type: 'String' });
    expect(load.nativeSystemLoadPermalink!.type).toBe('String!');
    expect(load.nativeSystemLoadId!.type).toBe('String');
    expect(load.extra!.type).toBe('JSON');

    const stop = fieldsOf('StopInput');
    expect(Object.keys(stop).sort()).toEqual([...Object.keys(StopUpsert.shape).map(camelCase), 'extra'].sort());
    expect([stop.stopSequence!.type, stop.latitude!.type, stop.appointmentStart!.type, stop.stopType!.type]).toEqual(['Int', 'Float', 'DateTime', 'StopType']);
    expect(
      type('StopType')
        .enumValues.map((v: { name: string }) => v.name)
        .sort(),
    ).toEqual(['DELIVERY', 'PICKUP']);

    const patch = fieldsOf('LoadPatch');
    expect(Object.keys(patch)).not.toContain('nativeSystemLoadPermalink');
    expect(Object.values(patch).filter((f) => f.type.endsWith('!'))).toEqual([]);
  });
});

describe('GraphiQL and introspection', () => {
  test('GET /graphql in a browser serves GraphiQL without a key, with a default query and the X-API-Key header to fill in', async ({ testApp }) => {
    const res = await testApp.fetch('/graphql', { headers: { accept: 'text/html' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/html');
    const html = await res.text();
    expect(html).toContain('X-API-Key');
    expect(html).toContain('query RecentLoads');
  });

  test('introspection is enabled for key holders and data queries need a key', async ({ api, testApp }) => {
    const res = await api.graphql('{ __schema { queryType { name } } __type(name: "Load") { fields { name } } }');
    expect(res.body.data.__schema.queryType.name).toBe('Query');
    expect(res.body.data.__type.fields.map((f: { name: string }) => f.name)).toContain('tmsUrl');
    const anonymous = await testApp.fetch('/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ viewer { slug } }' }),
    });
    expect(anonymous.status).toBe(401);
  });
});
