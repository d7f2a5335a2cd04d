/**
 * The client's record and answer types, inferred from the service's own zod declarations: the kinds'
 * bodies (`domain/<kind>/schema.ts`) and the REST answers (`http/schemas.ts`). Type imports only: the
 * client carries none of the server's code, and a field added to a kind is in these types at once.
 */
import type { z } from 'zod';
import type { CarrierUpsert } from '../domain/carrier/schema.js';
import type { LoadLegUpsert } from '../domain/load-leg/schema.js';
import type { LoadUpdateCreate } from '../domain/load-update/schema.js';
import type { LoadUpsert } from '../domain/load/schema.js';
import type { RecordKind } from '../domain/registry.js';
import type { StopUpsert } from '../domain/stop/schema.js';
import type { BulkResponse, ErrorResponse, UpsertResponse } from '../http/schemas.js';

export type { RecordKind };

/** The body of each kind's write (`CarrierUpsert`, …, `LoadUpdateCreate`), as the server validates it. */
export interface RecordOf {
  carrier: CarrierUpsert;
  load: LoadUpsert;
  load_leg: LoadLegUpsert;
  stop: StopUpsert;
  load_update: LoadUpdateCreate;
}

// Every kind of the registry has its body type, and nothing else does (a type error otherwise).
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Holds<T extends true> = T;
export type EveryKindTyped = Holds<Same<keyof RecordOf, RecordKind>>;

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
