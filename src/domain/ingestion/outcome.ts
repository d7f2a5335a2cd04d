import type { FieldSuggestion } from '../declaration/hints.js';

/** Record-level outcome of an upsert or create (api-contract.md A): always answered with HTTP 200. */
export type UpsertStatus = 'processed' | 'skipped' | 'duplicate';

export interface UpsertOutcome {
  status: UpsertStatus;
  message: string;
  permalink: string;
  /** Body fields the contract does not name (kept in `extra`), so typos do not go unnoticed. */
  unknownFields: string[];
  /** The unknown fields that most likely mean a contract field (camelCase or a near miss), with that field. */
  suggestions: FieldSuggestion[];
  /**
   * Kinds with a phase (loads, load updates), when the record was written: the phase its status maps
   * to through the tenant's status mapping (`UNMAPPED` when none; null without a status). Absent otherwise.
   */
  phase?: string | null;
}
