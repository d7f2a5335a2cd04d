/**
 * Dry runs (api-contract.md E "Dry run"): `?dry_run=true` on a REST ingestion route, `dryRun: true`
 * on a GraphQL ingestion mutation. The records are validated and their statements run exactly as in
 * a real request, inside a transaction that is rolled back (`Database.rehearse`): same outcomes, nothing
 * written, no change event, counted apart in ingest health (docs/decisions/0015-dry-run.md).
 */
import { z } from 'zod';
import { validationFailed } from '../../errors.js';

/** The values `dry_run` takes (case-insensitive): `true`/`1` rehearse, `false`/`0` (or leaving it out) write. */
const dryRunValue = /^(true|false|1|0)$/i;

/** The `dry_run` query parameter as the OpenAPI document describes it. */
export const DryRunQuery = z.object({
  dry_run: z
    .string()
    .regex(dryRunValue)
    .optional()
    .meta({
      description:
        '`true` (or `1`) rehearses the request: validated and evaluated against the stored data exactly as a real one ' +
        '(parents, `sync_run_time`, duplicates, the phase a status maps to) and answered the same way with `"dry_run": true`, ' +
        'but nothing is written, no change event is recorded and ingest health counts it apart. `false` (or `0`, or leaving it ' +
        'out) writes. Case-insensitive; any other value is a 400 `validation_failed` naming `dry_run`. Rate limits charge dry runs like real requests.',
      examples: ['true'],
    }),
});

/** The `dry_run` query parameter's values (every occurrence): whether the request is a dry run; a bad or repeated value is a 400. */
export function dryRunOf(values: readonly string[]): boolean {
  if (values.length === 0) return false;
  const [value] = values;
  if (values.length > 1 || !dryRunValue.test(value!)) {
    throw validationFailed([
      { field: 'dry_run', issue: values.length > 1 ? 'must be given once' : 'must be true or false (or 1 or 0); leave it out for a real request' },
    ]);
  }
  return /^(true|1)$/i.test(value!);
}
