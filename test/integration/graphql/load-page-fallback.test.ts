/**
 * The board's real selections (bench/board-queries.ts: the load board, the README's dashboard and a search) are
 * answered by the SQL load page, never by its documented Prisma path (docs/decisions/0013-one-load-filter.md).
 */
import { boardQueries } from '../../../bench/board-queries.js';
import { describe, expect, test } from '../../fixtures.js';
import { seedLoadTree } from '../../factories/records.js';

describe('the load board never takes the Prisma path', () => {
  for (const board of boardQueries) {
    test(`${board.label}: the SQL page and its count are the only reads of loads`, async ({ testApp, api, tenant }) => {
      // Both loads match every board, the search's reference fragment included.
      for (const reference of ['CR-B4242-1', 'CR-B4242-2']) {
        await seedLoadTree(api, tenant, { load: { native_system_customer_reference_number: reference } });
      }
      const statements: string[] = [];
      const stop = testApp.database.db.onStatement((sql) => statements.push(sql));
      let res;
      try {
        // no-cache: the answer is computed, not served by the response cache.
        res = await api.post('/graphql', { query: board.document }, { 'cache-control': 'no-cache' });
      } finally {
        stop();
      }
      expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
      expect(res.body.data.loads.edges).toHaveLength(2);
      // Every read of loads meanwhile is the SQL page or its count (Prisma's own reads name "public"."loads").
      const reads = statements.filter((sql) => /\bloads\b/.test(sql));
      const page = (sql: string) => sql.startsWith('SELECT row_to_json(p) AS j FROM (');
      const count = (sql: string) => sql.startsWith('SELECT count(*)::int AS n FROM (SELECT FROM loads l');
      expect(reads.some(page), 'the SQL load page answered').toBe(true);
      expect(reads.some(count), 'its count answered totalCount').toBe(true);
      expect(
        reads.filter((sql) => !page(sql) && !count(sql)),
        'no other read of loads (the Prisma path)',
      ).toEqual([]);
    }, 120_000);
  }
});
