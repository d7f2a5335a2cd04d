/**
 * One source per field (issue 7): the zod body field (`domain/<kind>/schema.ts`) is the field's
 * definition. These tests hold the other sides to it for every kind of the registry: the Prisma column
 * it is stored in (type, length, nullability, no doc comment of its own) and the GraphQL object field
 * that exposes it (description derived from the zod field).
 */
import { readFileSync } from 'node:fs';
import type { GraphQLObjectType } from 'graphql';
import type { z } from 'zod';
import { describe, expect, test } from 'vitest';
import { recordSpecs } from '../../src/domain/registry.js';
import { meaningOf } from '../../src/domain/shared/fields.js';
import { describeStoredField, storedFields } from '../../src/domain/shared/record.js';
import { recordObjects, schema } from '../../src/graphql/schema.js';
import { carrierFields, type ContractField, loadFields, loadLegFields, loadUpdateFields, stopFields } from '../integration/rest/contract.js';

interface PrismaField {
  name: string;
  type: string;
  optional: boolean;
  column: string;
  varChar?: number;
  nativeType?: string;
  docs: string[];
}

/** The models and enums of prisma/schema.prisma (the parts these tests read). */
function parsePrismaSchema(text: string) {
  const models = new Map<string, { name: string; fields: PrismaField[] }>();
  const enums = new Map<string, string[]>();
  for (const [, name, body] of text.matchAll(/^enum (\w+) \{\n([\s\S]*?)\n\}/gm)) {
    enums.set(
      name!,
      body!
        .split('\n')
        .map((line) => line.trim())
        .filter((line) => line && !line.startsWith('//')),
    );
  }
  for (const [, name, body] of text.matchAll(/^model (\w+) \{\n([\s\S]*?)\n\}/gm)) {
    const fields: PrismaField[] = [];
    let docs: string[] = [];
    let table = name!;
    for (const line of body!.split('\n').map((l) => l.trim())) {
      if (line.startsWith('///')) docs.push(line.slice(3).trim());
      else if (line.startsWith('@@map(')) table = /@@map\("([^"]+)"\)/.exec(line)![1]!;
      else if (/^\w+\s+\w+/.test(line)) {
        const [, field, type, modifier] = /^(\w+)\s+(\w+)(\?|\[\])?/.exec(line)!;
        const varChar = /@db\.VarChar\((\d+)\)/.exec(line)?.[1];
        fields.push({
          name: field!,
          type: type!,
          optional: modifier === '?',
          column: /@map\("([^"]+)"\)/.exec(line)?.[1] ?? field!,
          varChar: varChar === undefined ? undefined : Number(varChar),
          nativeType: /@db\.(\w+)/.exec(line)?.[1],
          docs,
        });
        docs = [];
      } else if (line && !line.startsWith('//')) docs = [];
    }
    models.set(table, { name: name!, fields });
  }
  return { models, enums };
}

const prisma = parsePrismaSchema(readFileSync(new URL('../../prisma/schema.prisma', import.meta.url), 'utf8'));

/** The contract's field tables, restated in the tests (rest/contract.ts). */
const contractTables: Record<string, Record<string, ContractField>> = {
  carrier: carrierFields,
  load: loadFields,
  load_leg: loadLegFields,
  stop: stopFields,
  load_update: loadUpdateFields,
};

/** The Prisma type each column type of a record mapping is stored as (enums: the enum's own name). */
const prismaTypeOf = { text: 'String', int: 'Int', float8: 'Float', timestamptz: 'DateTime', jsonb: 'Json' } as const;

/** The innermost zod type of a field (below `.nullable()` / `.optional()`). */
function innerOf(field: z.ZodType): z.ZodType {
  let inner = field as unknown as { unwrap?: () => z.ZodType };
  while (typeof inner.unwrap === 'function') inner = inner.unwrap() as never;
  return inner as unknown as z.ZodType;
}

describe.each(recordSpecs.map((spec) => [spec.kind, spec] as const))('%s: zod body fields against their Prisma columns', (kind, spec) => {
  const model = prisma.models.get(spec.table);
  const shape = spec.body.shape as Record<string, z.ZodType>;

  test('the table is a model of prisma/schema.prisma', () => {
    expect(model, `model with @@map("${spec.table}")`).toBeDefined();
  });

  test.each([...storedFields(spec)].map(([column, field]) => [field, column] as const))('%s → column %s', (field, column) => {
    const prismaField = model!.fields.find((f) => f.column === column);
    expect(prismaField, `column ${column}`).toBeDefined();
    const zodField = shape[field]!;
    const inner = innerOf(zodField);
    const contract = contractTables[kind]?.[field];

    // Type: the mapping's SQL type is the Prisma column's type.
    const sqlType = field === spec.permalinkField ? 'text' : spec.columns[field]!.type;
    const enumName = /^"(\w+)"$/.exec(sqlType)?.[1];
    expect(prismaField!.type).toBe(enumName ?? prismaTypeOf[sqlType as keyof typeof prismaTypeOf]);
    if (enumName) expect([...(inner as unknown as { options: string[] }).options].sort()).toEqual([...prisma.enums.get(enumName)!].sort());

    // Length: a string column is at least as long as the zod field allows, exactly as long where the contract fixes it.
    if (prismaField!.type === 'String') {
      const max = (inner as unknown as { maxLength: number | null }).maxLength;
      expect(max, 'zod max length').toBeTypeOf('number');
      expect(prismaField!.nativeType, 'a VarChar column').toBe('VarChar');
      expect(prismaField!.varChar).toBeGreaterThanOrEqual(max!);
      if (contract && 'max' in contract) expect([max, prismaField!.varChar]).toEqual([contract.max, contract.max]);
    }

    // Nullability: a field that accepts null is stored in a nullable column.
    if (zodField.safeParse(null).success) expect(prismaField!.optional, 'nullable column').toBe(true);

    // Documentation: the zod field describes the column; the schema adds no second description.
    expect(prismaField!.docs, 'no /// comment on a contract column (the zod field describes it)').toEqual([]);
  });

  test.each(spec.parents.map((parent) => [parent.field, parent] as const))('parent %s → its foreign key', (_field, parent) => {
    const prismaField = model!.fields.find((f) => f.column === parent.column);
    expect(prismaField, `column ${parent.column}`).toBeDefined();
    expect(prismaField!.nativeType).toBe('Uuid');
    expect(prismaField!.optional).toBe(!parent.required);
  });
});

describe.each(recordSpecs.map((spec) => [spec.kind, spec] as const))('%s: GraphQL object fields describe themselves from the zod field', (_kind, spec) => {
  const model = prisma.models.get(spec.table)!;
  const type = schema.getType(recordObjects[spec.kind].name) as GraphQLObjectType | undefined;

  test('the kind has its GraphQL object type (src/graphql/schema.ts recordObjects)', () => {
    expect(type?.constructor.name).toBe('GraphQLObjectType');
  });

  test.each([...storedFields(spec)].map(([column, field]) => [field, column] as const))('%s', (field, column) => {
    const prismaField = model.fields.find((f) => f.column === column)!;
    const graphqlField = (type as GraphQLObjectType).getFields()[prismaField.name];
    if (!graphqlField) return; // not exposed (company_permalink: always the tenant's slug)
    expect(graphqlField.description).toContain(`\`${field}\`: ${meaningOf((spec.body.shape as Record<string, z.ZodType>)[field]!)}`);
    expect(graphqlField.description!.startsWith(describeStoredField(spec, prismaField.name))).toBe(true);
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
