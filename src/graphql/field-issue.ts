/** The GraphQL type of one offending field of an error (REST's `details` item), shared by bulk results and ingest health's rejections. */
import type { FieldIssue } from '../errors.js';
import { builder } from './builder.js';

export const FieldIssueRef = builder.objectRef<FieldIssue>('FieldIssue').implement({
  description:
    'One offending field of a rejected record: as the input names it (camelCase) in a mutation result, as the REST body names it (snake_case) in ingest health.',
  fields: (t) => ({
    field: t.exposeString('field', { description: 'The field (`bolNumber`, `extra.bolNumber`, `bol_number`, …).' }),
    issue: t.exposeString('issue', { description: 'What is wrong with it.' }),
  }),
});
