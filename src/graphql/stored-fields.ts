/**
 * The stored contract fields of a kind's GraphQL object, derived from its declaration (`defineRecord`):
 * its permalink and every column but the `hidden` ones, each named as its Prisma field (the column in
 * camelCase), typed by its column's SQL type, nullable (a TMS may send null) and described from its
 * zod field ("`<contract field>`: <what it is>"), and what every record keeps beside them (`extra`; unless the
 * kind is append-only, `changedAt` and its tombstone's `deletedAt`). A field added to a kind is on its object
 * with nothing to write here; what the declaration cannot know (relations, derived fields such as `phase`,
 * `createdAt`'s wording) stays in the kind's `graphql.ts`.
 */
import type { ColumnType } from '../db/record-table.js';
import { camelCase } from '../domain/declaration/fields.js';
import { describeStoredField, type RecordSpec } from '../domain/declaration/record.js';
import { sharedEnumNamed } from './enums.js';

/** The GraphQL type of a column's SQL type; an enum column's type is the shared enum of its name. */
function graphqlType(type: ColumnType): unknown {
  switch (type) {
    case 'text':
      return 'String';
    case 'int':
      return 'Int';
    case 'float8':
      return 'Float';
    case 'timestamptz':
      return 'DateTime';
    case 'jsonb':
      return 'JSON';
    default:
      return sharedEnumNamed(type.slice(1, -1));
  }
}

/** What `storedFields` needs of a Pothos field builder: `expose` by a field name of the model. */
interface Exposing<Ref> {
  expose(name: never, options: never): Ref;
}

export interface StoredFieldOptions {
  /** Text appended to a field's description, by GraphQL name (a contract field's, or `changedAt`). */
  more?: Readonly<Record<string, string>>;
}

/**
 * The object fields of the kind's stored contract fields, for a Pothos Prisma object's `fields`:
 * `fields: (t) => ({ id: …, ...storedFields(t, stopRecord), leg: t.relation('leg'), … })`.
 */
export function storedFields<Ref>(t: Exposing<Ref>, spec: RecordSpec, options: StoredFieldOptions = {}): Record<string, Ref> {
  const hidden = new Set(spec.hidden ?? []);
  const expose = t.expose.bind(t) as unknown as (name: string, options: { type: unknown; nullable: boolean; description: string }) => Ref;
  const field = (name: string, type: unknown, nullable: boolean) => {
    const more = options.more?.[name];
    return [name, expose(name, { type, nullable, description: `${describeStoredField(spec, name)}${more ? ` ${more}` : ''}` })] as const;
  };
  const unknown = Object.keys(options.more ?? {}).filter(
    (name) => name !== 'permalink' && name !== 'changedAt' && !Object.values(spec.columns).some((c) => camelCase(c.column) === name),
  );
  if (unknown.length) throw new Error(`${spec.label}: no stored field named ${unknown.join(', ')}`);
  const described = (name: string, description: string) => `${description}${options.more?.[name] ? ` ${options.more[name]}` : ''}`;
  const record = spec.label.toLowerCase();
  // What every record keeps beside its contract fields; an append-only kind's record never changes, nor is it deleted.
  const kept = [
    ['extra', expose('extra', { type: 'JSON', nullable: false, description: 'Fields the TMS sent beyond the contract, kept verbatim.' })] as const,
    ...(spec.freshness === 'append_only'
      ? []
      : ([
          ['changedAt', expose('changedAt', { type: 'DateTime', nullable: false, description: described('changedAt', 'Service clock at the last write.') })],
          [
            'deletedAt',
            expose('deletedAt', {
              type: 'DateTime',
              nullable: true,
              description: `When the TMS deleted the ${record} (its tombstone); null while it lives. Only \`includeDeleted: true\` reads return a deleted ${record}.`,
            }),
          ],
        ] as const)),
  ];
  return Object.fromEntries([
    field('permalink', 'String', false),
    ...Object.entries(spec.columns)
      .filter(([contractField]) => !hidden.has(contractField))
      .map(([, column]) => field(camelCase(column.column), graphqlType(column.type), true)),
    ...kept,
  ]);
}
