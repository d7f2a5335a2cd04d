import { configDefaults, defineConfig } from 'vitest/config';

/**
 * Test files that keep every core busy (busySiblings in test/integration/process/server-process.ts).
 * They run in a project of their own, one file at a time, after every other file has finished, so
 * they never starve a timing-sensitive neighbour (process/shedding.test.ts asserts nothing is shed).
 */
const cpuBurners = [
  'test/integration/process/demo-data-under-load.test.ts',
  'test/integration/process/signals.test.ts',
  'test/integration/process/stop-bulks.test.ts',
];

/** What every database test file gets. */
const integration = {
  environment: 'node',
  // A test that asserts nothing fails.
  expect: { requireAssertions: true },
  testTimeout: 30_000,
  hookTimeout: 60_000,
  env: { NODE_ENV: 'test' },
  globalSetup: ['test/setup/template.ts'],
};

// Projects: `unit` (no database), `integration` (PGlite in memory by default; a fresh PostgreSQL
// database per test file when DATABASE_URL is set), whose databases are copies of one template
// migrated once per run (test/setup/template.ts), and `integration-alone` (the CPU burners, after them).
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
          exclude: [...configDefaults.exclude, ...cpuBurners],
          ...integration,
        },
      },
      {
        test: {
          name: 'integration-alone',
          include: cpuBurners,
          ...integration,
          fileParallelism: false,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
