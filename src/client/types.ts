/**
 * The client's record and answer types, inferred from the service's own zod declarations: the kinds'
 * bodies (`domain/<kind>/schema.ts`) and the REST answers (`http/schemas.ts`). Type imports only: the
 * client carries none of the server's code, and a field added to a kind is in these types at once.
 */
import type { z } from 'zod';
import type { RecordKind, recordSpecs } from '../domain/registry.js';
import type { BulkResponse, ErrorResponse, UpsertResponse } from '../http/schemas.js';

export type { RecordKind };

/** The body of each kind's write (a load's `LoadUpsert`, …), as the server validates it: from the registry's declarations. */
export type RecordOf = { [Spec in (typeof recordSpecs)[number] as Spec['kind']]: z.infer<Spec['body']> };

/** The kinds that change (upserts and deletes); load updates are append-only (created, never deleted). */
export type ChangingKind = Exclude<RecordKind, 'load_update'>;

/** A delete's body: the kind's own permalink field (api-contract.md E). */
export type DeleteOf<Kind extends ChangingKind> = {
  [Field in keyof RecordOf[Kind] & `native_system_${Kind}_permalink`]: string;
} & { company_permalink?: string | null };

/** The answer of a single-record write or delete: `processed`, `skipped` or `duplicate`. */
export type WriteResult = z.infer<typeof UpsertResponse>;

/** The answer of a bulk request: one result per record, in request order. */
export type BulkResult = z.infer<typeof BulkResponse>;

/** One record's result in a bulk answer: its outcome, or the error that rejected it alone. */
export type BulkRecordResult = BulkResult['results'][number];

/** A bulk result that rejected its record. */
export type BulkRecordError = Extract<BulkRecordResult, { error: unknown }>;

/** A bulk result whose record was written, skipped or a duplicate. */
export type BulkRecordOutcome = Exclude<BulkRecordResult, BulkRecordError>;

/** The contract's error body (every non-200 answer). */
export type ErrorBody = z.infer<typeof ErrorResponse>;

/** The record outcome of an accepted record. */
export type Outcome = WriteResult['status'];
