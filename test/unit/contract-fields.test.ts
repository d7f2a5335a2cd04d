/**
 * One source per field (issue 7): the zod body field (`domain/<kind>/schema.ts`) is the field's
 * definition. These tests hold the other sides to it for every kind of the registry: the Prisma column
 * it is stored in (type, length, nullability, no doc comment of its own) and the GraphQL object field
 * that exposes it (description derived from the zod field).
 */
import type { GraphQLObjectType } from 'graphql';
import type { z } from 'zod';
import { describe, expect, test } from 'vitest';
import { recordSpecs, type RecordKind } from '../../src/domain/registry.js';
import { meaningOf } from '../../src/domain/declaration/fields.js';
import { describeStoredField, storedFields } from '../../src/domain/declaration/record.js';
import { recordObjects, schema } from '../../src/graphql/schema.js';
import { columnOf, prismaEnumValues, prismaModelOfTable } from '../helpers/prisma-schema.js';
import { contractTables } from '../integration/rest/contract.js';

/** The Prisma type each column type of a record mapping is stored as (enums: the enum's own name). */
const prismaTypeOf = { text: 'String', int: 'Int', float8: 'Float', timestamptz: 'DateTime', jsonb: 'Json' } as const;

/** The innermost zod type of a field (below `.nullable()` / `.optional()`). */
function innerOf(field: z.ZodType): z.ZodType {
  let inner = field as unknown as { unwrap?: () => z.ZodType };
  while (typeof inner.unwrap === 'function') inner = inner.unwrap() as never;
  return inner as unknown as z.ZodType;
}

/** The stored contract fields GraphQL does not expose: each with the reason. */
const notExposed: Record<RecordKind, string[]> = {
  // company_permalink: always the tenant's slug; a leg's native_system_load_id: its load's `tmsId`.
  carrier: ['company_permalink'],
  load: ['company_permalink'],
  load_leg: ['native_system_load_id', 'company_permalink'],
  stop: ['company_permalink'],
  load_update: ['company_permalink'],
};

describe.each(recordSpecs.map((spec) => [spec.kind, spec] as const))('%s: zod body fields against their Prisma columns', (kind, spec) => {
  const model = prismaModelOfTable(spec.table);
  const shape = spec.body.shape as Record<string, z.ZodType>;
  const contract = contractTables[kind];

  test('the table is a model of prisma/schema.prisma, and the contract has a field table for the kind', () => {
    expect(model, `model with @@map("${spec.table}")`).toBeDefined();
    expect(contract, `test/integration/rest/contract.ts: no field table for ${kind}`).toBeDefined();
  });

  test.each([...storedFields(spec)].map(([column, field]) => [field, column] as const))('%s → column %s', (field, column) => {
    const prismaField = model!.fields.find((f) => columnOf(f) === column);
    expect(prismaField, `column ${column}`).toBeDefined();
    const zodField = shape[field]!;
    const inner = innerOf(zodField);
    const rule = contract[field];
    expect(rule, `test/integration/rest/contract.ts: ${field} is not in the contract's ${kind} table`).toBeDefined();

    // Type: the mapping's SQL type is the Prisma column's type.
    const sqlType = field === spec.permalinkField ? 'text' : spec.columns[field]!.type;
    const enumName = /^"(\w+)"$/.exec(sqlType)?.[1];
    expect(prismaField!.type).toBe(enumName ?? prismaTypeOf[sqlType as keyof typeof prismaTypeOf]);
    if (enumName) expect([...(inner as unknown as { options: string[] }).options].sort()).toEqual([...prismaEnumValues(enumName)!].sort());

    // Length: a string column is at least as long as the zod field allows, exactly as long where the contract fixes it.
    if (prismaField!.type === 'String') {
      const max = (inner as unknown as { maxLength: number | null }).maxLength;
      expect(max, 'zod max length').toBeTypeOf('number');
      const [nativeType, [length] = []] = prismaField!.nativeType ?? [];
      expect(nativeType, 'a VarChar column').toBe('VarChar');
      expect(Number(length)).toBeGreaterThanOrEqual(max!);
      if ('max' in rule!) expect([max, Number(length)]).toEqual([rule.max, rule.max]);
    }

    // Nullability: a field that accepts null is stored in a nullable column.
    if (zodField.safeParse(null).success) expect(prismaField!.isRequired, 'nullable column').toBe(false);

    // Documentation: the zod field describes the column; the schema adds no second description.
    expect(prismaField!.documentation, 'no /// comment on a contract column (the zod field describes it)').toBeUndefined();
  });

  test.each(spec.parents.map((parent) => [parent.field, parent] as const))('parent %s → its foreign key', (_field, parent) => {
    const prismaField = model!.fields.find((f) => columnOf(f) === parent.column);
    expect(prismaField, `column ${parent.column}`).toBeDefined();
    expect(prismaField!.nativeType?.[0]).toBe('Uuid');
    expect(prismaField!.isRequired).toBe(parent.required);
  });
});

describe.each(recordSpecs.map((spec) => [spec.kind, spec] as const))('%s: GraphQL object fields describe themselves from the zod field', (kind, spec) => {
  const model = prismaModelOfTable(spec.table)!;
  const type = schema.getType(recordObjects[spec.kind].name) as GraphQLObjectType | undefined;
  const stored = [...storedFields(spec)].map(([column, field]) => ({ field, prismaName: model.fields.find((f) => columnOf(f) === column)!.name }));
  const exposed = stored.filter(({ field }) => !notExposed[kind].includes(field));

  test('the kind has its GraphQL object type (src/graphql/schema.ts recordObjects)', () => {
    expect(type?.constructor.name).toBe('GraphQLObjectType');
  });

  test(`exposes every stored contract field but ${notExposed[kind].join(', ')}`, () => {
    const fields = type!.getFields();
    expect(stored.filter(({ prismaName }) => !fields[prismaName]).map(({ field }) => field)).toEqual(notExposed[kind]);
  });

  test.each(exposed.map(({ field, prismaName }) => [field, prismaName] as const))('%s', (field, prismaName) => {
    const graphqlField = type!.getFields()[prismaName];
    expect(graphqlField?.description).toContain(`\`${field}\`: ${meaningOf((spec.body.shape as Record<string, z.ZodType>)[field]!)}`);
    expect(graphqlField!.description!.startsWith(describeStoredField(spec, prismaName))).toBe(true);
  });
});

describe('describeStoredField', () => {
  const [carrier] = recordSpecs;
  test('finds a field by its contract name or by its column in camelCase, and throws for anything else', () => {
    expect(describeStoredField(carrier, 'carrier_name')).toBe('`carrier_name`: Carrier name; shown and searchable.');
    expect(describeStoredField(carrier, 'name')).toBe('`carrier_name`: Carrier name; shown and searchable.');
    expect(() => describeStoredField(carrier, 'carrierName')).toThrow(/no stored contract field named carrierName/);
    expect(() => describeStoredField(carrier, 'extra')).toThrow();
  });
  test('leaves out the importance and request-only rules', () => {
    const stop = recordSpecs.find((spec) => spec.kind === 'stop')!;
    expect(describeStoredField(stop, 'timezone')).toBe('`timezone`: Facility time zone (IANA name, for example America/Chicago).');
    const timezone = (stop.body.shape as Record<string, z.ZodType>).timezone!;
    expect(timezone.description).toMatch(/^Optional\. Facility time zone .* anything else is a 400 `validation_failed`\.$/);
  });
});
