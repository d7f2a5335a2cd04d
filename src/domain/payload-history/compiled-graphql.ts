/**
 * What the compiled reads (graphql/compiled-read.ts, docs/decisions/0034-compiled-load-page.md) answer of
 * payload history: `history(first)` on every record kind's type, with graphql.ts's meaning (the newest kept
 * bodies of the record, at most `first` and the per-record cap, none received before the retention; `[]`
 * when payload history is off), and the type `PayloadRecord`.
 */
import { jsonList } from '../../db/json-tree.js';
import { isoInstant, literal } from '../../db/sql-text.js';
import { compiledType, objectSql, type FieldSql } from '../../graphql/compiled-read.js';
import { recordSpecs } from '../registry.js';

compiledType('PayloadRecord', {
  receivedAt: (row) => isoInstant(`${row}.received_at`),
  // The enums' GraphQL names are the stored values in upper case (IngestSource, UpsertStatus).
  source: (row) => `upper(${row}.source)`,
  requestId: (row) => `${row}.request_id`,
  query: (row) => `${row}.query`,
  outcome: (row) => `upper(${row}.outcome)`,
  changed: (row) => `${row}.changed`,
  body: (row) => `${row}.body`,
});

const historyOf =
  (kind: string): FieldSql =>
  (row, selection, scope) => {
    const { days, perRecord } = scope.settings.payloadHistory;
    const limit = Math.min((selection.args.first as number | null | undefined) ?? 20, perRecord);
    if (days === 0 || limit === 0) return `'[]'::json`;
    const h = scope.alias('h');
    return jsonList({
      value: objectSql('PayloadRecord', h, selection.selections, scope),
      rows:
        `payload_history ${h} WHERE ${h}.tenant_id = ${scope.tenantParam} AND ${h}.kind = ${literal(kind)} AND ${h}.permalink = ${row}.permalink` +
        ` AND ${h}.received_at >= ${scope.nowParam} - make_interval(secs => ${days * 86_400})`,
      order: `${h}.seq DESC`,
      limit,
    });
  };

for (const spec of recordSpecs) compiledType(spec.model, { history: historyOf(spec.kind) });
