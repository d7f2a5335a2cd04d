/**
 * A user's edit of a load (GraphQL `editLoad`). The edit is the freshest word on the load: it sets
 * the freshness time and `changed_at` to the service clock, so a later sync whose `sync_run_time`
 * is older answers `skipped` (api-contract.md, "sync_run_time precisely"). One UPDATE … WHERE
 * tenant_id AND permalink applies it atomically and re-derives the phase when the status changes
 * (the same statement records its events, phase history and activity).
 */
import { AppError, validationFailed } from '../../errors.js';
import type { Database } from '../../db/database.js';
import { buildEditStatement } from '../../db/record-statements.js';
import { recordTableOf } from '../ingestion/record-tables.js';
import type { TenantRef } from '../declaration/tenant-ref.js';
import { assertValid, createValidator } from '../declaration/validate.js';
import { LoadUpsert, loadRecord } from './schema.js';

/** Fields a user may not edit: the load's identity and its tenant. */
const fixedFields = ['native_system_load_permalink', 'company_permalink'] as const;

/** LoadPatch: every LoadUpsert field but the fixed ones, all optional (absent = unchanged, null = cleared). */
export const LoadPatch = LoadUpsert.omit({ native_system_load_permalink: true, company_permalink: true })
  .partial()
  .meta({ id: 'LoadPatch', description: 'Fields of a load to change; an absent field is left as it is, null clears it.' });

const validatePatch = createValidator({ body: LoadPatch });
const columns = Object.entries(loadRecord.columns).filter(([field]) => !(fixedFields as readonly string[]).includes(field));
const statement = buildEditStatement(
  recordTableOf(loadRecord),
  columns.map(([, c]) => c),
);

export interface EditLoadInput {
  db: Database;
  tenant: TenantRef;
  permalink: string;
  /** The patch as a LoadPatch body (snake_case; unknown keys go to `extra`). */
  patch: Record<string, unknown>;
  now: Date;
}

/** Applies a user's edit to the tenant's load; returns its id. A missing load is `not_found`. */
export async function editLoad({ db, tenant, permalink, patch, now }: EditLoadInput): Promise<string> {
  const { body, extra } = assertValid(validatePatch(tenant, patch));
  if (!Object.keys(body).length && !Object.keys(extra).length) {
    throw validationFailed([{ field: 'patch', issue: 'must change at least one field' }]);
  }
  const present = columns.filter(([field]) => field in body).map(([, c]) => c.column);
  const values = Object.fromEntries(columns.map(([field, c]) => [c.column, body[field]]));
  const params = statement.params({ tenantId: tenant.id, permalink, now, present, extra, values });
  // One call on the tenant's node on Citus (db/tenant-statement.ts), as an ingested write of the load is.
  const [row] = await db.tenantSql(tenant.id, db.sql).query<{ id: string }>(statement.text, params, statement.name);
  if (!row) throw new AppError('not_found', `No load ${permalink} in this tenant.`, [{ field: 'permalink', issue: 'names no load of this tenant' }]);
  return row.id;
}
