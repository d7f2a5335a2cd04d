/**
 * The service's PostgreSQL sessions plan no parallel query (`sessionOptions`, src/db/database.ts): the
 * connections of its pool, the one Prisma and the compiled reads share, start with
 * `max_parallel_workers_per_gather = 0`. PGlite runs no parallel workers and takes no startup options.
 */
import { describe, expect, test } from '../../fixtures.js';
import { onPostgres } from '../../setup/database.js';

describe('PostgreSQL session settings', () => {
  test.skipIf(!onPostgres())('PostgreSQL (needs DATABASE_URL): every pooled connection, Prisma’s too, plans without parallel workers', async ({ testApp }) => {
    const { db } = testApp.database;
    const [setting] = await db.sql.query<{ max_parallel_workers_per_gather: string }>('SHOW max_parallel_workers_per_gather', []);
    expect(setting!.max_parallel_workers_per_gather).toBe('0');
    const [viaPrisma] = await db.prisma.$queryRawUnsafe<{ setting: string }[]>(`SELECT current_setting('max_parallel_workers_per_gather') AS setting`);
    expect(viaPrisma!.setting).toBe('0');
  });
});
