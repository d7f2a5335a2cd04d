/**
 * What the delete action of a record kind (api-contract.md E, "Deletes (tombstones)") takes and says:
 * its body is the kind's own permalink field (and `company_permalink`, which must match), and its
 * descriptions say what goes with the record. The operation itself (`operation.ts`) is the kind's,
 * with the action `delete`; append-only kinds have none (`actionsOf`).
 */
import { z } from 'zod';
import { permalinkField } from './fields.js';
import type { RecordSpec } from './record.js';

/** The body of one delete: the record's permalink (and `company_permalink`), anything else kept in payload history only. */
export function deleteBodyOf(spec: RecordSpec) {
  const lower = spec.label.toLowerCase();
  const shape = spec.body.shape as Record<string, z.ZodType>;
  const example = (spec.body.meta()?.examples as Record<string, unknown>[] | undefined)?.[0]?.[spec.permalinkField];
  return z
    .looseObject({
      [spec.permalinkField]: permalinkField(`The permalink of the ${lower} to delete, \`<id>-<company_permalink>\`.`),
      ...(shape.company_permalink ? { company_permalink: shape.company_permalink } : {}),
    })
    .meta({
      id: `${spec.model}Delete`,
      description: `Deletes one ${lower} by \`${spec.permalinkField}\` (a tombstone: GraphQL reads omit it; an upsert revives it).`,
      examples: example ? [{ [spec.permalinkField]: example }] : [],
    });
}

/** What a delete of the kind takes with it (a sentence with its leading space, or ''). */
function cascadeOf(spec: RecordSpec): string {
  if (spec.table === 'loads') return ' Its legs and their stops are deleted with it.';
  if (spec.table === 'load_legs') return ' Its stops are deleted with it.';
  if (spec.table === 'carriers') return ' Legs naming it stay; their carrier reads as null while it is deleted.';
  return '';
}

/** The descriptions of a kind's delete: the REST route's and the GraphQL mutation's first sentence. */
export function deleteWordsOf(spec: RecordSpec) {
  const lower = spec.label.toLowerCase();
  const cascade = cascadeOf(spec);
  return {
    rest: `Deletes one ${lower} (a tombstone).${cascade} Idempotent: an already deleted or unknown permalink answers processed, and the message says which.`,
    graphql: `Deletes a ${lower} by its permalink.${cascade}`,
    extra:
      "Fields beyond the delete body, as in a REST body: accepted, not validated, and kept only in the delete's payload history (the tombstone's `extra` is unchanged).",
  };
}
