/**
 * The record kinds, in the order a TMS posts them the first time. Adding a kind: CONTRIBUTING.md's
 * "Adding a record kind" lists every file it touches (test/unit/kind-checklist.test.ts follows it for
 * each kind of this list). Derived from this list, with nothing to write: its operations (`ingestion/operations.ts`),
 * REST routes, GraphQL mutations, OpenAPI, metrics labels and ingest health's kind enum.
 * This module imports only the kinds' declarations, so every layer may read it (no import circle).
 */
import { carrierRecord } from './carrier/schema.js';
import { loadLegRecord } from './load-leg/schema.js';
import { loadUpdateRecord } from './load-update/schema.js';
import { loadRecord } from './load/schema.js';
import { stopRecord } from './stop/schema.js';

export const recordSpecs = [carrierRecord, loadRecord, loadLegRecord, stopRecord, loadUpdateRecord] as const;

export type RecordKind = (typeof recordSpecs)[number]['kind'];

export const recordKinds: readonly RecordKind[] = recordSpecs.map((spec) => spec.kind);

/** Each kind's declaration by its name. */
export const recordSpecOf = Object.fromEntries(recordSpecs.map((spec) => [spec.kind, spec])) as {
  readonly [Kind in RecordKind]: Extract<(typeof recordSpecs)[number], { kind: Kind }>;
};
