/**
 * The delete operation of a record kind (api-contract.md E, "Deletes (tombstones)"): its body is the
 * kind's own permalink field (and `company_permalink`, which must match), its REST routes
 * `POST /api/v1/<collection>/delete` and `/bulk_delete`, its GraphQL mutations `delete<Model>` and
 * `bulkDelete<Model>s`. It is declared as a `RecordSpec` of the same kind and table, so the one
 * ingestion use case (`ingest.ts`), the REST routes, the GraphQL mutations, the OpenAPI document and
 * ingest accounting serve it as they serve the kind's upsert. Append-only kinds are never deleted.
 */
import { z } from 'zod';
import { permalinkField } from './fields.js';
import type { RecordSpec } from './record.js';

/** Whether a kind has a delete operation (every kind but the append-only ones). */
export const isDeletable = (spec: RecordSpec) => spec.freshness !== 'append_only';

/** The delete operation of a deletable record kind. */
export function deleteSpecOf<Kind extends string>(spec: RecordSpec<Kind>): RecordSpec<Kind> {
  if (!isDeletable(spec)) throw new Error(`${spec.label}: append-only records have no delete`);
  const lower = spec.label.toLowerCase();
  const upsertId = spec.body.meta()?.id as string;
  const name = upsertId.replace(/Upsert$/, '');
  const shape = spec.body.shape as Record<string, z.ZodType>;
  const example = (spec.body.meta()?.examples as Record<string, unknown>[] | undefined)?.[0]?.[spec.permalinkField];
  const body = z
    .looseObject({
      [spec.permalinkField]: permalinkField(`The permalink of the ${lower} to delete, \`<id>-<company_permalink>\`.`),
      ...(shape.company_permalink ? { company_permalink: shape.company_permalink } : {}),
    })
    .meta({
      id: `${name}Delete`,
      description: `Deletes one ${lower} by \`${spec.permalinkField}\` (a tombstone: GraphQL reads omit it; an upsert revives it).`,
      examples: example ? [{ [spec.permalinkField]: example }] : [],
    });
  const cascade =
    spec.table === 'loads'
      ? ' Its legs and their stops are deleted with it.'
      : spec.table === 'load_legs'
        ? ' Its stops are deleted with it.'
        : spec.table === 'carriers'
          ? ' Legs naming it stay; their carrier reads as null while it is deleted.'
          : '';
  const summary = `Delete a${/^[aeiou]/i.test(lower) ? 'n' : ''} ${lower}`;
  const mutation = `delete${spec.model}`;
  return {
    ...spec,
    body,
    columns: {},
    parents: [],
    phase: undefined,
    rest: {
      collection: spec.rest.collection,
      action: 'delete',
      summary,
      description: `Deletes one ${lower} (a tombstone).${cascade} Idempotent: an already deleted or unknown permalink answers processed, and the message says which.`,
    },
    graphql: {
      rootFields: [],
      input: `${name}DeleteInput`,
      mutation,
      description: `Deletes a ${lower} by its permalink; the same service as \`POST /api/v1/${spec.rest.collection}/delete\`.${cascade}`,
      extraDescription:
        "Fields beyond the delete body, as in a REST body: accepted, not validated, and kept only in the delete's payload history (the tombstone's `extra` is unchanged).",
    },
  };
}
