import type { Database } from '../src/db/database.js';
import type { IngestScope } from '../src/domain/ingestion/ingest.js';

/**
 * The scope of a write made by calling the ingestion use case directly (bench/history-statement.ts,
 * bench/explain-write.ts): a `pull` write, not a dry run, with nothing around it (no event numbering,
 * statistics, accounting or log); payload history recorded under `requestId` unless it is null, field coverage counted unless `fieldCoverage` is false.
 */
export function directScope(db: Database, tenant: IngestScope['tenant'], requestId: string | null, now = new Date(), fieldCoverage = true): IngestScope {
  return {
    db,
    sequencer: { committed: () => {}, touched: () => {} },
    statistics: { wrote: () => {} },
    recorder: { record: () => {}, flush: async () => {}, close: async () => {} },
    tenant,
    source: 'pull',
    now,
    log: { error: () => {} },
    history: requestId === null ? null : { requestId, query: null },
    fieldCoverage,
    dryRun: false,
  };
}
