import { defineConfig } from 'vitest/config';

// Two projects: `unit` (no database) and `integration` (PGlite in memory by default; a fresh
// PostgreSQL database per test file when DATABASE_URL is set), whose databases are copies of one
// template migrated once per run (test/setup/template.ts).
export default defineConfig({
  test: {
    // Most integration time is spent waiting on databases and child processes (the CLI and server
    // tests): more files in flight than CPUs keeps a two-core CI machine busy.
    maxWorkers: 3,
    globalSetup: ['test/setup/build.ts'],
    projects: [
      { test: { name: 'unit', include: ['test/unit/**/*.test.ts'], environment: 'node', expect: { requireAssertions: true } } },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          environment: 'node',
          expect: { requireAssertions: true },
          testTimeout: 30_000,
          hookTimeout: 60_000,
          env: { NODE_ENV: 'test' },
          globalSetup: ['test/setup/template.ts'],
        },
      },
    ],
  },
});
