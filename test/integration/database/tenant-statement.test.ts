/**
 * `tenant_statement` (migration `tenant_statement`), the call that carries a write to its tenant's node on Citus
 * (src/db/tenant-statement.ts, decision 0054), on every database: a statement with rows answers them as jsonb and
 * is prepared once in the session; at most 100 are kept; a statement without rows is executed. Called here without
 * a shard (`p_shard` null: no Citus check) in one transaction, so every call is the same session's. Not on Citus:
 * there the call runs in a session of the tenant's node (database/citus.test.ts explains it), and Citus 13.2.2
 * crashes on a distributed function called with a null distribution argument (the service always names its tenant).
 */
import { describe, expect, test } from '../../fixtures.js';
import { onCitus } from '../../setup/database.js';

const call = 'SELECT r FROM tenant_statement(NULL, NULL, $1::text, $2::text[]) r';
const keptSql = `SELECT count(*)::int AS n FROM pg_prepared_statements WHERE name LIKE 'tenant\\_statement\\_%'`;

describe('tenant_statement', () => {
  test.skipIf(onCitus())('answers the rows of a statement, preparing it once per session, at most 100 kept (not on Citus)', async ({ testApp }) => {
    await testApp.database.db.transaction(async (sql) => {
      const kept = async () => (await sql.query<{ n: number }>(keptSql, []))[0]!.n;
      const start = await kept();
      const answer = async (text: string, params: string[]) => (await sql.query<{ r: Record<string, unknown> }>(call, [text, params])).map((row) => row.r);
      expect(await answer('SELECT ($1[1])::int + 1 AS n, ($1[2])::text AS s', ['41', 'x'])).toEqual([{ n: 42, s: 'x' }]);
      expect(await answer('SELECT ($1[1])::int + 1 AS n, ($1[2])::text AS s', ['1', 'y'])).toEqual([{ n: 2, s: 'y' }]);
      expect(await kept()).toBe(start + 1);
      for (let i = start + 1; i < 100; i++) await answer(`SELECT ${i} AS n`, []);
      expect(await kept()).toBe(100);
      // The 101st text drops the 100 kept, then is prepared itself.
      expect(await answer('SELECT 101 AS n', [])).toEqual([{ n: 101 }]);
      expect(await kept()).toBe(1);
    });
  });

  test.skipIf(onCitus())('executes a statement without rows and answers none (not on Citus)', async ({ testApp }) => {
    await testApp.database.db.transaction(async (sql) => {
      await sql.query('CREATE TEMP TABLE carried (n int) ON COMMIT DROP', []);
      expect(await sql.query(call, ['INSERT INTO carried VALUES (($1[1])::int)', ['7']])).toEqual([]);
      expect(await sql.query(call, ['INSERT INTO carried VALUES (($1[1])::int) RETURNING n', ['8']])).toEqual([{ r: { n: 8 } }]);
      expect(await sql.query<{ n: number }>('SELECT n FROM carried ORDER BY n', [])).toEqual([{ n: 7 }, { n: 8 }]);
    });
  });
});
