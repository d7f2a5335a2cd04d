/**
 * The browser pages work offline: GraphiQL, the API reference and the landing page load in headless
 * Chromium with every request to another host blocked (and recorded: none may be made), a query runs
 * in GraphiQL with a key typed into its headers pane, and the API reference lists every route.
 * Saves the screenshots the README and the first-sync tutorial show (`docs/screenshots/` under
 * `npm run screenshots`; a temporary folder otherwise: screenshots.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { restRoutes } from '../../src/routes.js';
import { apiFor, createTestApp, type TestApp, type TestTenant } from '../helpers/app.js';
import { screenshotFolder } from './screenshots.js';
import { seedExample } from './seed-example.js';

const executablePath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const screenshots = screenshotFolder();

let testApp: TestApp;
let server: Server;
let base: string;
let tenant: TestTenant;
let context: BrowserContext;
let userDataDir: string;
/** Every request the pages made to a host other than the service's (all blocked). */
const foreignRequests: string[] = [];

beforeAll(async () => {
  testApp = await createTestApp();
  tenant = await testApp.createTenant({ slug: 'demo-browser' });
  await seedExample(apiFor(testApp, tenant.apiKey), tenant);
  server = createServer((req, res) => void testApp.app(req, res));
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  userDataDir = mkdtempSync(join(tmpdir(), 'tms-ingest-chromium-'));
  context = await chromium.launchPersistentContext(userDataDir, {
    executablePath,
    headless: true,
    viewport: { width: 1280, height: 900 },
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      // Belt and braces: no other host even resolves.
      '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1',
    ],
  });
  const origin = new URL(base).origin;
  context.on('request', (request) => {
    const url = request.url();
    if (/^(data|blob|about):/.test(url)) return;
    if (new URL(url).origin !== origin) foreignRequests.push(url);
  });
  await context.route('**/*', (route) => {
    const url = route.request().url();
    return new URL(url).origin === origin ? route.continue() : route.abort('blockedbyclient');
  });
});

afterAll(async () => {
  await context?.close();
  if (userDataDir) rmSync(userDataDir, { recursive: true, force: true });
  await new Promise((done) => server?.close(done));
  await testApp?.close();
});

/** The text of a Monaco editor inside `selector` (its rendered lines; Monaco renders spaces as U+00A0). */
const editorText = async (page: Page, selector: string) => (await page.locator(`${selector} .view-lines`).first().innerText()).replace(/\u00a0/g, ' ');

/** The editors of a GraphiQL page whose content is wider than their pane (they scroll sideways): their models' URIs. */
const sidewaysEditors = (page: Page) =>
  page.evaluate(() => {
    type Editor = { getScrollWidth(): number; getLayoutInfo(): { contentWidth: number }; getModel(): { uri: { toString(): string } } | null };
    const monaco = (window as unknown as { monaco?: { editor: { getEditors(): Editor[] } } }).monaco;
    if (!monaco) return ['no editor reachable'];
    return monaco.editor
      .getEditors()
      .filter((e) => e.getLayoutInfo().contentWidth > 0 && e.getScrollWidth() > e.getLayoutInfo().contentWidth + 1)
      .map((e) => e.getModel()?.uri.toString() ?? '?');
  });

/**
 * Clicks "Execute query" until the response pane shows `expected` (60 s at most). GraphiQL re-reads the
 * operation names of an edited query after a debounce; on a busy machine a click that comes first runs
 * with the previous tab's operation name and GraphiQL answers "Cannot infer operation", so the click
 * is repeated once the editor has caught up.
 */
const executeUntilAnswered = async (page: Page, expected: string) => {
  const deadline = Date.now() + 60_000;
  for (;;) {
    await page.getByRole('button', { name: /Execute query/i }).click();
    const answered = await expect
      .poll(() => editorText(page, '.graphiql-response'), { timeout: 5_000 })
      .toContain(expected)
      .then(
        () => true,
        () => false,
      );
    if (answered) return;
    if (Date.now() > deadline) throw new Error(`GraphiQL never answered with ${expected}: ${await editorText(page, '.graphiql-response')}`);
  }
};

describe('offline pages in Chromium', () => {
  test('the landing page links GraphiQL, the API reference, the OpenAPI document and the health endpoints', async () => {
    const page = await context.newPage();
    const res = await page.goto(`${base}/`);
    expect(res?.status()).toBe(200);
    for (const [name, href] of [
      ['GraphiQL', '/graphql'],
      ['REST API reference', '/api/v1/docs'],
      ['OpenAPI document', '/api/v1/openapi.json'],
      ['Liveness', '/healthz'],
      ['Readiness', '/readyz'],
    ]) {
      await expect(page.getByRole('link', { name, exact: true }).getAttribute('href')).resolves.toBe(href);
    }
    await page.getByRole('link', { name: 'Readiness', exact: true }).click();
    await expect(page.locator('body').innerText()).resolves.toContain('ready');
    await page.close();
  });

  test('GraphiQL sends nothing until a key is typed, then fetches the schema, runs the query, and every tab and a reload use that key', async () => {
    const page = await context.newPage();
    // Every request GraphiQL makes to the API, with the key it carries.
    const sentKeys: (string | undefined)[] = [];
    page.on('request', (request) => {
      if (new URL(request.url()).pathname === '/graphql' && request.method() === 'POST') sentKeys.push(request.headers()['x-api-key']);
    });
    await page.goto(`${base}/graphql`);
    await page.locator('.graphiql-query-editor .view-lines').first().waitFor({ timeout: 120_000 });
    await expect.poll(() => editorText(page, '.graphiql-query-editor'), { timeout: 60_000 }).toContain('query RecentLoads');
    // No request with the placeholder key, so no "unknown or revoked" error on first open.
    expect(sentKeys).toEqual([]);
    expect(await page.locator('body').innerText()).not.toContain('unknown or revoked');

    // Type the key into the headers pane (replacing the placeholder).
    await page.getByRole('button', { name: 'Headers', exact: true }).click();
    const headers = page.locator('.graphiql-editor-tool .graphiql-editor:not(.hidden)');
    await headers.click();
    await page.keyboard.press('Control+A');
    await page.keyboard.press('Delete');
    await page.keyboard.insertText(`{ "X-API-Key": "${tenant.apiKey}" }`);
    await expect.poll(() => editorText(page, '.graphiql-editor-tool .graphiql-editor:not(.hidden)'), { timeout: 30_000 }).toContain(tenant.apiKey);

    // The schema request, held until now, goes out with the key: the docs explorer shows the root types.
    await page.getByRole('button', { name: /Show Documentation Explorer/i }).click();
    await expect.poll(() => page.locator('.graphiql-doc-explorer').innerText(), { timeout: 60_000 }).toContain('Query');

    await executeUntilAnswered(page, `"slug": "${tenant.slug}"`);
    // At 1280 px with the docs open, no editor scrolls sideways: the first comment line and the typed key are whole.
    await expect.poll(() => sidewaysEditors(page), { timeout: 30_000 }).toEqual([]);
    await expect(editorText(page, '.graphiql-query-editor')).resolves.toContain('(X-API-Key), then run.');
    const result = await editorText(page, '.graphiql-response');
    expect(result).toContain('"totalCount"');
    expect(result).not.toContain('"errors"');
    // The docs closed again, as a newcomer first sees the page: still nothing scrolls sideways.
    await page.getByRole('button', { name: /Hide Documentation Explorer/i }).click();
    await expect.poll(() => sidewaysEditors(page), { timeout: 30_000 }).toEqual([]);
    await page.screenshot({ path: screenshots.path('graphiql.png') });

    // A new GraphiQL tab (+) runs a query with the same key, without typing it again.
    await page.getByRole('button', { name: /New tab/i }).click();
    await page.locator('.graphiql-query-editor').first().click();
    await page.keyboard.press('Control+A');
    await page.keyboard.insertText('query InNewTab { viewer { slug } }');
    await expect.poll(() => editorText(page, '.graphiql-query-editor'), { timeout: 30_000 }).toContain('query InNewTab');
    await executeUntilAnswered(page, `"slug": "${tenant.slug}"`);

    // A reload in the same browser tab (same session) starts with the key and runs the query.
    await page.reload();
    await expect.poll(() => editorText(page, '.graphiql-query-editor'), { timeout: 120_000 }).toContain('query');
    await executeUntilAnswered(page, `"slug": "${tenant.slug}"`);

    expect(sentKeys.length).toBeGreaterThanOrEqual(4);
    expect(sentKeys.filter((key) => key !== tenant.apiKey)).toEqual([]);
    // The key lives in the session only: never in localStorage.
    const local = await page.evaluate(() => JSON.stringify({ ...localStorage }));
    expect(local).not.toContain(tenant.apiKey);
    await page.close();
  });

  test('the API reference renders every REST route from the OpenAPI document', async () => {
    const page = await context.newPage();
    await page.goto(`${base}/api/v1/docs`);
    const body = page.locator('body');
    for (const route of restRoutes) {
      await expect.poll(() => body.innerText(), { timeout: 60_000 }).toContain(route.doc.summary);
    }
    await expect(page.getByText('/api/v1/loads/upsert').first().isVisible()).resolves.toBe(true);
    // At 1280 px no request or response sample runs past its panel: each wraps its long lines.
    await page.locator('.redoc-json').first().waitFor({ timeout: 60_000 });
    const cut = await page.evaluate(() =>
      [...document.querySelectorAll<HTMLElement>('.redoc-json, .redoc-json code, pre')]
        .filter((e) => e.clientWidth > 0 && e.scrollWidth > e.clientWidth + 1)
        .map((e) => e.innerText.slice(0, 60)),
    );
    expect(cut).toEqual([]);
    await page.screenshot({ path: screenshots.path('api-reference.png') });
    await page.close();
  });

  test('no page asked another host for anything', () => {
    expect(foreignRequests).toEqual([]);
  });
});
