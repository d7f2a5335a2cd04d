/**
 * The REST adapter of an ingester: parse `sync_run_time` → call the domain service → answer 200.
 * Header and query problems are reported together with the body's (one 400 lists every field).
 */

import { validationFailed, type FieldIssue } from '../errors.js';
import type { Ingester } from '../domain/shared/ingest.js';
import { UpsertResponse, SyncRunTimeQuery } from './schemas.js';
import { defineRoute, type RouteContext } from './route.js';

function parseSyncRunTime(url: URL): { value: Date | null; issue?: FieldIssue } {
  const raw = url.searchParams.get('sync_run_time');
  if (raw === null) return { value: null };
  const parsed = SyncRunTimeQuery.shape.sync_run_time.safeParse(raw);
  if (!parsed.success || !parsed.data) {
    return { value: null, issue: { field: 'sync_run_time', issue: 'must be an ISO 8601 date-time with a zone, e.g. 2026-05-01T14:00:00Z' } };
  }
  return { value: new Date(parsed.data) };
}

export interface IngestRouteOptions {
  path: string;
  ingester: Ingester;
  /** Whether the route honours `sync_run_time` (loads, legs, stops). */
  syncRunTime: boolean;
  summary: string;
  description: string;
}

export function ingestRoute({ path, ingester, syncRunTime, summary, description }: IngestRouteOptions) {
  const { spec } = ingester;
  return defineRoute({
    method: 'POST',
    path,
    auth: 'tenant',
    kind: spec.kind,
    doc: {
      summary,
      description,
      tags: [spec.label],
      requestBody: spec.body,
      query: syncRunTime ? SyncRunTimeQuery : undefined,
      response: UpsertResponse,
      errors: ['parent_not_found', 'tenant_mismatch'],
      ingestSource: true,
    },
    async handle({ services, tenant, body, url, now }: RouteContext) {
      const scope = { db: services.db, tenant: tenant!, now };
      const sync = syncRunTime ? parseSyncRunTime(url) : { value: null };
      if (sync.issue) {
        const checked = ingester.validate(scope.tenant, body, { now });
        throw validationFailed([sync.issue, ...(checked.ok ? [] : checked.issues)]);
      }
      return { body: await ingester.ingest(scope, body, { syncRunTime: sync.value }) };
    },
  });
}

