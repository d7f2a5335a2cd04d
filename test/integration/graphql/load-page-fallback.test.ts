/**
 * The board's real selections (bench/board-queries.ts: the load board, the README's dashboard and a search) are
 * answered by the SQL load page, never by its documented Prisma path (docs/decisions/0013-one-load-filter.md),
 * which the `loads` resolver logs whenever it takes it.
 */
import { boardQueries } from '../../../bench/board-queries.js';
import { loadPageFallback } from '../../../src/domain/load/graphql.js';
import { describe, expect, test } from '../../fixtures.js';
import { seedLoadTree } from '../../factories/records.js';
import { apiFor, loggingApp } from '../../helpers/app.js';

describe('the load board never takes the Prisma path', () => {
  for (const board of boardQueries) {
    test(`${board.label}: answered by the SQL page (no fallback logged)`, async ({ testApp, api, tenant }) => {
      // Both loads match every board, the search's reference fragment included.
      for (const reference of ['CR-B4242-1', 'CR-B4242-2']) {
        await seedLoadTree(api, tenant, { load: { native_system_customer_reference_number: reference } });
      }
      const { app, lines } = await loggingApp(testApp);
      // no-cache: the answer is computed, not served by the response cache.
      const res = await apiFor(app, tenant.apiKey).post('/graphql', { query: board.document }, { 'cache-control': 'no-cache' });
      expect(res.body.errors, JSON.stringify(res.body.errors)).toBeUndefined();
      expect(res.body.data.loads.edges).toHaveLength(2);
      expect(lines.filter((line) => line.msg === loadPageFallback)).toEqual([]);
    }, 120_000);
  }
});
