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

/**
 * Test files that change process-wide state a later file in the same worker would inherit (the
 * OpenTelemetry SDK's global provider): they run with a fresh module graph of their own.
 */
const isolated = ['test/integration/observability/tracing.test.ts', 'test/integration/observability/tracing-off.test.ts'];

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
// migrated once per run (test/setup/template.ts), `integration-isolated` (files that change process-wide
// state, each with modules of its own) and `integration-alone` (the CPU burners, after them).
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
          exclude: [...configDefaults.exclude, ...cpuBurners, ...isolated],
          ...integration,
          // A worker keeps the modules it imported for its next file (each file still gets its own
          // database and app): importing the service's modules again for each of some 120 files was
          // 314 s of the PGlite suite's 781 (CONTRIBUTING.md, measured).
          isolate: false,
        },
      },
      { test: { name: 'integration-isolated', include: isolated, ...integration } },
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
