import { defineConfig } from 'vitest/config';

// Browser tests (`npm run test:browser`): headless Chromium (Debian's `chromium`) against a real
// server. Kept out of `npm test`, which must pass on a machine without a browser.
export default defineConfig({
  test: {
    name: 'browser',
    include: ['test/browser/**/*.test.ts'],
    environment: 'node',
    expect: { requireAssertions: true },
    testTimeout: 180_000,
    hookTimeout: 120_000,
    env: { NODE_ENV: 'test' },
    globalSetup: ['test/setup/template.ts'],
  },
});
