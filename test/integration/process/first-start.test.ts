/**
 * What a first start prints, from the compiled server (`npm start`) on a fresh database of the run's
 * kind: plain progress lines while the database is created and migrated, before the JSON log begins;
 * the listening line naming the configured HOST (127.0.0.1 here); and the start-up block in one piece
 * after a blank line, with no JSON line inside it, the real key everywhere it shows it, and (with
 * `--demo-data`) what was filled instead of advice to seed.
 */
import { describe, expect, test } from 'vitest';
import { readMigrations } from '../../../src/db/migrate.js';
import { onPostgres } from '../../setup/database.js';
import { freshDatabase } from './fresh-database.js';
import { startServer } from './server-process.js';

const migrations = readMigrations();
const isJson = (line: string) => line.startsWith('{');

// A first start creates and migrates a database: a busy machine's timeout, no timing assertions.
describe('a first start', { timeout: 400_000 }, () => {
  test('says what it does before the JSON log, names its host, and prints its block apart, with the real key', async () => {
    const database = await freshDatabase();
    const server = startServer(database.env, ['--demo-data']);
    try {
      const base = await server.started();
      const port = new URL(base).port;
      // The block ends with the health URLs.
      await server.waitFor(/tms-ingest is running:\n[\s\S]*Health: .*\n/);
      const lines = server.output().split('\n');

      // Progress, in plain lines, before the first JSON line.
      const firstJson = lines.findIndex(isJson);
      const before = lines.slice(0, firstJson).join('\n');
      if (!onPostgres()) expect(before).toContain(`Creating the embedded database in ${database.env.DATA_DIR}`);
      expect(before).toContain(`Applying migrations: 1 of ${migrations.length} (${migrations[0]!.name})`);
      expect(before).toContain(`Applying migrations: ${migrations.length} of ${migrations.length} (${migrations.at(-1)!.name})`);
      expect(before).toContain(`Applied ${migrations.length} migrations`);

      // The listening line names the configured host, as a URL that works.
      const listening = lines
        .filter(isJson)
        .map((line) => JSON.parse(line) as { msg: string })
        .find((entry) => entry.msg.includes('listening'));
      expect(listening?.msg).toBe(`tms-ingest listening on http://127.0.0.1:${port}`);

      // The block: after a blank line, no JSON line inside, URLs on the configured host.
      const start = lines.findIndex((line) => line.startsWith('First run:') || line.startsWith('No tenants yet') || line.startsWith('--demo-data:'));
      const end = lines.findIndex((line, i) => i > start && line.startsWith('  Health:'));
      expect(start).toBeGreaterThan(0);
      expect(lines[start - 1]).toBe('');
      const block = lines.slice(start, end + 1);
      expect(block.filter(isJson)).toEqual([]);
      // Written after the lines logged before it (this test sends no request: every request line is --demo-data's).
      expect(lines.slice(end).filter((line) => isJson(line) && line.includes('"method":"POST"'))).toEqual([]);
      expect(block).toContain(`  GraphiQL:       http://127.0.0.1:${port}/graphql`);
      expect(server.output()).not.toContain('localhost');

      if (!onPostgres()) {
        const apiKey = /^ {2}(tms_[A-Za-z0-9_-]{43})$/m.exec(block.join('\n'))?.[1];
        expect(apiKey).toBeDefined();
        expect(block).toContain(`In GraphiQL, put the key in the Headers pane: {"X-API-Key": "${apiKey}"}`);
        expect(block.join('\n')).toMatch(new RegExp(`Demo data: .* processed\\. Open http://127\\.0\\.0\\.1:${port}/graphql`));
        // --demo-data filled it: no advice to seed it.
        expect(server.output()).not.toContain('npm run seed');
      }
    } finally {
      expect(await server.stop()).toBe(0);
      await database.cleanup();
    }
  });
});
