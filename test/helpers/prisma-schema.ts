/**
 * Prisma's own reading of prisma/schema.prisma: its DMMF, from the schema engine's wasm build (the
 * one the Prisma CLI uses to generate the client), so tests that hold the code to the schema never
 * parse the schema text themselves. The generated client keeps only a pruned runtime model (no
 * nullability, native types or documentation), which is why the tests read the full one.
 */
import { readFileSync } from 'node:fs';
import { get_dmmf } from '@prisma/prisma-schema-wasm';

export interface PrismaField {
  name: string;
  /** The column, when `@map` names one. */
  dbName?: string | null;
  kind: 'scalar' | 'enum' | 'object' | 'unsupported';
  type: string;
  isRequired: boolean;
  isList: boolean;
  /** `@db.<name>(<args>)`, e.g. `['VarChar', ['100']]`. */
  nativeType?: [string, string[]] | null;
  /** The field's `///` comment. */
  documentation?: string;
}

export interface PrismaModel {
  name: string;
  /** The table, when `@@map` names one. */
  dbName: string | null;
  fields: PrismaField[];
}

interface Datamodel {
  models: PrismaModel[];
  enums: { name: string; values: { name: string }[] }[];
}

const schema = readFileSync(new URL('../../prisma/schema.prisma', import.meta.url), 'utf8');
const { datamodel } = JSON.parse(get_dmmf(JSON.stringify({ prismaSchema: [['schema.prisma', schema]], noColor: true }))) as { datamodel: Datamodel };

/** The table a model is stored in. */
export const tableOf = (model: PrismaModel) => model.dbName ?? model.name;

/** The column a field is stored in. */
export const columnOf = (field: PrismaField) => field.dbName ?? field.name;

/** The model stored in `table`, if any. */
export const prismaModelOfTable = (table: string) => datamodel.models.find((model) => tableOf(model) === table);

/** The model named `name`, if any. */
export const prismaModel = (name: string) => datamodel.models.find((model) => model.name === name);

/** The values of the enum named `name` (undefined when there is no such enum). */
export const prismaEnumValues = (name: string) => datamodel.enums.find((e) => e.name === name)?.values.map((value) => value.name);
