/**
 * The ingestion operations: one typed object per record kind and action (upsert, create, delete),
 * serving its single and bulk requests. It owns every rule of the request around the records: its
 * names (REST paths, GraphQL mutations), its record body, what a batch may hold and what it costs,
 * how `sync_run_time` is read and checked, and (through `ingest-request.ts`) dry runs and the
 * answer's shape. REST routes (`http/ingest-route.ts`) and GraphQL mutations
 * (`graphql/ingest-mutation.ts`) only adapt it; the records themselves go through `ingest.ts`.
 * docs/decisions/0030-the-typed-ingestion-operation.md says why.
 */
import { validationFailed, type FieldIssue } from '../../errors.js';
import { deleteBodyOf, deleteWordsOf } from '../declaration/delete.js';
import { isoDateTime } from '../declaration/fields.js';
import { createIngestion, type Ingestion } from './ingest.js';
import {
  bulkMutationName,
  bulkRestPath,
  mutationName,
  restPath,
  syncRunTimeUseOf,
  type IngestAction,
  type RecordSpec,
  type SyncRunTimeUse,
} from '../declaration/record.js';
import { syncRunTimeIssue } from '../declaration/validate.js';
import type { RecordKind } from '../registry.js';

/** Most records one batch (a bulk request or mutation) may carry. */
export const maxBatchRecords = 1000;

/** Largest body of a batch request (a REST bulk route; /graphql, so that a full bulk mutation fits). */
export const maxBulkBodyBytes = 5 * 1024 * 1024;

/**
 * What a batch costs the tenant's ingestion rate limit (and a bulk mutation's complexity): its record
 * count, at least one and at most a batch (more is refused anyway); anything but a list costs one.
 */
export const batchCost = (records: unknown): number => (Array.isArray(records) ? Math.min(Math.max(records.length, 1), maxBatchRecords) : 1);

/** A batch's records, or the 400 that rejects the request whole; `field` names them as the transport does (`records`, `inputs`). */
export function batchOf(records: unknown, field: string): unknown[] {
  if (!Array.isArray(records)) {
    throw validationFailed([{ field, issue: 'must be an array of records: send {"records": [...]}' }]);
  }
  if (records.length < 1 || records.length > maxBatchRecords) {
    throw validationFailed([{ field, issue: `must hold 1 to ${maxBatchRecords} records (got ${records.length})` }]);
  }
  return records;
}

const syncRunTimeFormat = isoDateTime();

/** `sync_run_time` as a transport received it: REST's query value (a string), GraphQL's `syncRunTime` (a date). */
export type SyncRunTimeInput = string | Date | null | undefined;

/**
 * The request's `sync_run_time` where the operation honours it (else null, whatever was sent), with
 * the issues that reject it: not an ISO 8601 date-time with a zone, or more than 5 minutes ahead of
 * the service clock. A request-level rule: a bulk request with an issue is rejected whole.
 */
function readSyncRunTime(use: SyncRunTimeUse, given: SyncRunTimeInput, now: Date): { value: Date | null; issues: FieldIssue[] } {
  if (use !== 'honoured' || given == null) return { value: null, issues: [] };
  const parsed = given instanceof Date ? { success: true as const, data: given.toISOString() } : syncRunTimeFormat.safeParse(given);
  if (!parsed.success) {
    return { value: null, issues: [{ field: 'sync_run_time', issue: 'must be an ISO 8601 date-time with a zone, e.g. 2026-05-01T14:00:00Z' }] };
  }
  const value = new Date(parsed.data);
  const skew = syncRunTimeIssue(value, now);
  return { value, issues: skew ? [skew] : [] };
}

/** `a` or `an` before a word, as the summaries say it. */
const article = (word: string) => (/^[aeiou]/i.test(word) ? 'an' : 'a');

/** One ingestion operation: a record kind and an action, its names, its body and its request rules. */
export interface IngestOperation {
  /** The record kind's declaration. */
  readonly spec: RecordSpec<RecordKind>;
  readonly action: IngestAction;
  /** One record's body as REST takes it: the kind's body, or its delete body. */
  readonly body: RecordSpec['body'];
  readonly syncRunTime: SyncRunTimeUse;
  readonly rest: { path: string; bulkPath: string; summary: string; description: string };
  readonly graphql: { input: string; mutation: string; bulkMutation: string; description: string; extraDescription?: string };
  /** The use case of the operation's records (validate → plan → write → outcome). */
  readonly ingestion: Ingestion;
  /** The request's `sync_run_time` and the issues that reject it (none when the operation does not honour it). */
  readSyncRunTime(given: SyncRunTimeInput, now: Date): { value: Date | null; issues: FieldIssue[] };
}

/** Builds the `action` operation of a record kind (its write, or its delete). */
export function createOperation(spec: RecordSpec<RecordKind>, action: IngestAction): IngestOperation {
  const deletes = action === 'delete';
  const words = deletes ? deleteWordsOf(spec) : null;
  const body = deletes ? deleteBodyOf(spec) : spec.body;
  const path = restPath(spec, action);
  const syncRunTime = syncRunTimeUseOf(spec);
  const verb = `${action[0]!.toUpperCase()}${action.slice(1)}`;
  const lower = spec.label.toLowerCase();
  return {
    spec,
    action,
    body,
    syncRunTime,
    rest: {
      path,
      bulkPath: bulkRestPath(spec, action),
      summary: `${verb} ${article(lower)} ${lower}`,
      description: words?.rest ?? spec.rest.description,
    },
    graphql: {
      input: deletes ? `${spec.model}DeleteInput` : spec.graphql.input,
      mutation: mutationName(spec, action),
      bulkMutation: bulkMutationName(spec, action),
      description: `${words?.graphql ?? spec.graphql.description} The same service as \`POST ${path}\`.`,
      extraDescription: words?.extra,
    },
    ingestion: createIngestion({ spec, action, body }),
    readSyncRunTime: (given, now) => readSyncRunTime(syncRunTime, given, now),
  };
}
