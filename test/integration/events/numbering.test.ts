/**
 * The event numbering pass (`load_events_sequence`, run after every write) reads the tenant's unnumbered
 * events through `(tenant_id, seq)` and updates each by its key (migration `events_numbered_by_tenant`),
 * whatever the size of the outbox. Before, a plan PL/pgSQL kept read every event of the outbox on every
 * pass: on a fresh database the pass cost more than the write (docs/explanation/performance/2026-11-28-write-path.md).
 */
import { afterAll, beforeAll, expect, test } from 'vitest';
import type { Sql } from '../../../src/db/database.js';
import { createTestDatabase, onCitus, type TestDatabase } from '../../setup/database.js';

let database: TestDatabase;
let tenantId: string;
const outbox = 20_000;

beforeAll(async () => {
  database = await createTestDatabase();
  const sql = database.db.sql;
  const [tenant] = await sql.query<{ id: string }>(`INSERT INTO tenants (slug, name) VALUES ('numbering', 'Numbering') RETURNING id`, []);
  tenantId = tenant!.id;
  // An outbox of numbered events, its statistics current, then two events of a write still to number.
  await sql.query(
    `INSERT INTO load_events (tenant_id, seq, type, load_permalink, data, occurred_at)
     SELECT $1::uuid, n, 'load.changed', 'load-' || n, '{}', now() FROM generate_series(1, $2::int) n`,
    [tenantId, outbox],
  );
  await sql.query(`INSERT INTO load_event_cursors (tenant_id, seq) VALUES ($1::uuid, $2)`, [tenantId, outbox]);
  await sql.query('ANALYZE load_events', []);
});

afterAll(async () => database?.drop());

test.skipIf(onCitus())(
  'a numbering pass numbers the unnumbered events and reads only them, not the outbox (not on Citus: the coordinator’s page counters are its empty shell tables’)',
  async () => {
    const write = (sql: Sql, permalink: string) =>
      sql.query(
        `INSERT INTO load_events (tenant_id, type, load_permalink, data, occurred_at) SELECT $1::uuid, 'load.changed', $2, '{}', now() FROM generate_series(1, 2)`,
        [tenantId, permalink],
      );
    const pages = await database.db.transaction(async (sql) => {
      // A first write and pass plan the function's statements on this connection (catalog pages), then the
      // measured one: EXPLAIN (ANALYZE, BUFFERS) runs it and counts every page its statements touched.
      await write(sql, 'first');
      await sql.query('SELECT load_events_sequence($1::uuid)', [tenantId]);
      await write(sql, 'second');
      const [row] = await sql.query<Record<string, [{ Plan: Record<string, number> }]>>(
        'EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) SELECT load_events_sequence($1::uuid)',
        [tenantId],
      );
      const { Plan: plan } = Object.values(row!)[0]![0];
      return plan['Shared Hit Blocks']! + plan['Shared Read Blocks']!;
    });
    const seqs = await database.db.sql.query<{ permalink: string; seq: string }>(
      `SELECT load_permalink AS permalink, seq::text FROM load_events WHERE tenant_id = $1::uuid AND load_permalink IN ('first', 'second') ORDER BY seq`,
      [tenantId],
    );
    expect(seqs.map((r) => [r.permalink, Number(r.seq)])).toEqual([
      ['first', outbox + 1],
      ['first', outbox + 2],
      ['second', outbox + 3],
      ['second', outbox + 4],
    ]);
    const [{ outboxPages }] = (await database.db.sql.query<{ outboxPages: number }>(
      `SELECT (pg_relation_size('load_events') / 8192)::int AS "outboxPages"`,
      [],
    )) as [{ outboxPages: number }];
    // A few index descents per event; reading the outbox would touch each of its pages.
    expect(outboxPages).toBeGreaterThan(200);
    expect(pages).toBeLessThan(100);
  },
);
