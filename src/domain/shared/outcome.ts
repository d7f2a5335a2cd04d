/** Record-level outcome of an upsert or create (api-contract.md A): always answered with HTTP 200. */
export type UpsertStatus = 'processed' | 'skipped' | 'duplicate';

export interface UpsertOutcome {
  status: UpsertStatus;
  message: string;
  permalink: string;
  /** Body fields the contract does not name (kept in `extra`), so typos do not go unnoticed. */
  unknownFields: string[];
}
