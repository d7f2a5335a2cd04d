/**
 * How one record kind maps from its contract body to its table. A record spec is declared once per
 * kind (`domain/<kind>/schema.ts`) and drives the single-statement upsert (db/upsert-statement.ts),
 * the permalink rules and the GraphQL/OpenAPI derivations.
 */
import type { z } from 'zod';

/** The five record kinds, in the order a TMS posts them the first time. */
export const recordKinds = ['carrier', 'load', 'load_leg', 'stop', 'load_update'] as const;
export type RecordKind = (typeof recordKinds)[number];

/** SQL type of a column, used for parameter casts. */
export type ColumnType = 'text' | 'int' | 'float8' | 'timestamptz' | 'jsonb' | `"${string}"`;

export interface ColumnSpec {
  column: string;
  type: ColumnType;
}

/** A reference from this record to its parent, by the parent's permalink. */
export interface ParentSpec {
  /** Body field holding the parent's permalink. */
  field: string;
  /** Body field holding the parent's TMS id: builds `<id>-<tenant slug>` when the permalink is null. */
  idField?: string;
  /** Parent table and the foreign-key column of this record's table. */
  table: string;
  column: string;
  /** Every leg has a load, every stop a leg, every update a load; a leg's carrier is optional. */
  required: boolean;
}

export interface RecordSpec<Body extends z.ZodType = z.ZodType> {
  kind: RecordKind;
  /** Human name used in messages ("Load", "Load leg"). */
  label: string;
  table: string;
  body: Body;
  /** Body field of the record's own permalink (schema-required, never null). */
  permalinkField: string;
  /** Contract field → column, for every contract field stored as a column. */
  columns: Record<string, ColumnSpec>;
  parents: readonly ParentSpec[];
  /** Load updates are append-only: a repeated permalink is a `duplicate`. */
  appendOnly?: boolean;
  /** Whether the record carries a phase translated from the named status field. */
  phaseFrom?: string;
  /**
   * The phase of a record without a status (null or blank): a load is `UNMAPPED` until its TMS says
   * more (the default); a load update without one (a GPS ping) has no phase at all (null).
   */
  phaseWithoutStatus?: 'UNMAPPED' | null;
}

/** Identity function that keeps a spec's literal types. */
export const defineRecord = <Body extends z.ZodType>(spec: RecordSpec<Body>) => spec;
