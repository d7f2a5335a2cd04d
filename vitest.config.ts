import { defineConfig } from 'vitest/config';

// Two projects: `unit` (no database) and `integration` (PGlite in memory by default; a fresh
// PostgreSQL database per test file when DATABASE_URL is set).
export default defineConfig({
  test: {
    projects: [
      { test: { name: 'unit', include: ['test/unit/**/*.test.ts'], environment: 'node' } },
      {
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          environment: 'node',
          testTimeout: 30_000,
          hookTimeout: 60_000,
          env: { NODE_ENV: 'test' },
        },
      },
    ],
  },
});
