/**
 * vitest fixtures: one app (and database) per test file, a fresh tenant per test, so tests never
 * share records and need no cleanup between them.
 */
import { test as base } from 'vitest';
import { apiFor, createTestApp, type TestAppOptions } from './helpers/app.js';

/** The fixtures over an app created with `options` (test files that need other settings, e.g. webhooks). */
export const testWith = (options: TestAppOptions = {}) =>
  base
    .extend('testApp', { scope: 'file' }, async ({}, { onCleanup }) => {
      const testApp = await createTestApp(options);
      onCleanup(() => testApp.close());
      return testApp;
    })
    .extend('tenant', async ({ testApp }) => testApp.createTenant())
    .extend('otherTenant', async ({ testApp }) => testApp.createTenant())
    .extend('api', async ({ testApp, tenant }) => apiFor(testApp, tenant.apiKey))
    .extend('otherApi', async ({ testApp, otherTenant }) => apiFor(testApp, otherTenant.apiKey));

export const test = testWith();

export { expect, describe } from 'vitest';
