/**
 * What the compiled reads (graphql/compiled-read.ts, docs/decisions/0034-compiled-load-page.md) answer
 * of carriers: the root fields `carriers` and `carrier`, with the meaning of graphql.ts's resolvers (the
 * `Carrier` object's fields are derived from the schema: compiled-read.ts `compiledFields`).
 */
import { jsonFirst } from '../../db/json-tree.js';
import { likeLiteral } from '../../db/like.js';
import { connectionSql } from '../../graphql/compiled-connection.js';
import { compiledRoot, objectSql } from '../../graphql/compiled-read.js';

compiledRoot('carriers', (selection, scope) => {
  // `carrierSearchWhere` (queries.ts): live carriers; a non-blank search is a literal, case-insensitive part of one of four fields.
  const term = (selection.args.search as string | null | undefined)?.trim();
  const p = term ? `('%' || ${scope.param(likeLiteral(term))} || '%')` : '';
  return connectionSql(
    {
      node: 'Carrier',
      table: 'carriers',
      where: (c) =>
        `${c}.deleted_at IS NULL${p ? ` AND (${['name', 'mc_number', 'dot_number', 'scac'].map((column) => `${c}.${column} ILIKE ${p}`).join(' OR ')})` : ''}`,
      // By name (carriers without one last), then id: the resolver's order.
      keys: [
        { sql: (c) => `${c}.name`, direction: 'ASC', nullsLast: true },
        { sql: (c) => `${c}.id`, direction: 'ASC' },
      ],
    },
    selection,
    scope,
  );
});

compiledRoot('carrier', (selection, scope) => {
  const { permalink, includeDeleted } = selection.args as { permalink: string; includeDeleted?: boolean | null };
  const c = scope.alias('c');
  return jsonFirst({
    value: objectSql('Carrier', c, selection.selections, scope),
    rows: `carriers ${c} WHERE ${c}.tenant_id = ${scope.tenantParam} AND ${c}.permalink = ${scope.param(permalink)}${includeDeleted ? '' : ` AND ${c}.deleted_at IS NULL`}`,
  });
});
