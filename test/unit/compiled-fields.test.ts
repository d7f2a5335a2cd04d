/**
 * The compiled reads' list (graphql/compiled-read.ts `compiledFields`) held together with the schema: every
 * field of every object type the compiler answers is compiled (a field added to a type and not to the
 * compiler would send every query reading it to the resolvers: a failure here, not a silent fallback), no
 * compiled field names a field the schema does not have, and every record kind's object type is answered.
 * That the compiled SQL means what the resolvers answer is compiled-differential.test.ts's part.
 */
import { expect, test } from 'vitest';
import { recordSpecs } from '../../src/domain/registry.js';
import { compiledFields, compiledRoots } from '../../src/graphql/compiled-read.js';
import { schema } from '../../src/graphql/schema.js';

const compiled = compiledFields(schema);

/** A type of the schema's own `graphql` copy (Pothos'): read by its fields, not by `instanceof`. */
interface SchemaType {
  name: string;
  getFields?: () => Record<string, { type: unknown }>;
}
const namedType = (type: unknown): SchemaType => {
  let t = type as { ofType?: unknown };
  while (t.ofType) t = t.ofType;
  return t as SchemaType;
};

/** The object types a compiled root field reaches (through the connections, which compiled-connection.ts answers itself). */
function reachedTypes(): Set<string> {
  const reached = new Set<string>();
  const visit = (type: SchemaType) => {
    if (!type.getFields || reached.has(type.name)) return;
    reached.add(type.name);
    for (const field of Object.values(type.getFields())) visit(namedType(field.type));
  };
  const query = schema.getQueryType()!.getFields();
  for (const root of compiledRoots()) visit(namedType(query[root]!.type));
  return reached;
}

test('every field of every type a compiled root field reaches is compiled, and nothing else', () => {
  const reached = [...reachedTypes()].filter((name) => compiled.has(name));
  expect(reached).toContain('Load');
  for (const name of reached) {
    const type = schema.getType(name) as SchemaType;
    expect(Object.keys(compiled.get(name)!).sort(), `the compiled fields of ${name}`).toEqual(Object.keys(type.getFields!()).sort());
  }
});

test("every record kind's object type is answered by the compiler, and every object type it reaches but the connections'", () => {
  for (const spec of recordSpecs) expect(compiled.has(spec.model), spec.model).toBe(true);
  const unanswered = [...reachedTypes()].filter((name) => !compiled.has(name) && !/(Connection|Edge)$|^PageInfo$/.test(name));
  expect(unanswered).toEqual([]);
});

test('every compiled root field is a field of Query', () => {
  const query = Object.keys(schema.getQueryType()!.getFields());
  expect(compiledRoots().size).toBeGreaterThan(0);
  for (const root of compiledRoots()) expect(query).toContain(root);
});
