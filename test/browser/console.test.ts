/**
 * The integration console (GET /console) in headless Chromium with every other host blocked (and
 * recorded: none may be asked): a tenant signs in and sees a chart with the real counts, maps an
 * unmapped status and sees a load's phase change; the admin creates a tenant and its new key posts.
 * The record lookup shows a load's payload history (a body behind a disclosure) and a deleted load as
 * deleted; each source shows its dry-run counts.
 * What people reading it need: rejected and received bodies as wide as their panel (desktop and phone),
 * the 24-hour chart's axis labelled with hours and days from 24 hours ago to now, stale intervals in
 * minutes, hours or days, a GPS ping's coordinates, each form's labels above their fields, errors in the
 * form that caused them and gone after a success, a favicon, and a sign-in that waits out a 503.
 * Accessibility (axe-core: no serious or critical violation) at desktop and phone widths; keys only
 * in sessionStorage. Saves the screenshots the docs show (`docs/screenshots/console-*.png` under `npm run screenshots`; a
 * temporary folder otherwise: screenshots.ts).
 * The data-quality panel shows the numbers `dataQuality` answers, and a record to fix opens in the lookup.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { carrierBody, fullBodies, loadBody, loadLegBody, loadUpdateBody, routes, stopBody } from '../factories/records.js';
import { apiFor, createTestApp, uniqueSlug, type TestApp, type TestTenant } from '../helpers/app.js';
import { screenshotFolder } from './screenshots.js';
import { seedExample } from './seed-example.js';

const executablePath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const screenshots = screenshotFolder();
const adminKey = 'console-admin-key-0123456789-0123456789';
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

let testApp: TestApp;
let server: Server;
let base: string;
let tenant: TestTenant;
let browser: Browser;
let context: BrowserContext;
const foreignRequests: string[] = [];

beforeAll(async () => {
  testApp = await createTestApp({ env: { ADMIN_API_KEY: adminKey } });
  tenant = await testApp.createTenant({ slug: uniqueSlug('console') });
  server = createServer((req, res) => void testApp.app(req, res));
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await chromium.launch({
    executablePath,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1'],
  });
  context = await browser.newContext({ viewport: { width: 1280, height: 1000 }, locale: 'en-US' });
  const origin = new URL(base).origin;
  context.on('request', (request) => {
    const url = request.url();
    if (!/^(data|blob|about):/.test(url) && new URL(url).origin !== origin) foreignRequests.push(url);
  });
  await context.route('**/*', (route) => (new URL(route.request().url()).origin === origin ? route.continue() : route.abort('blockedbyclient')));
});

afterAll(async () => {
  await context?.close();
  await browser?.close();
  await new Promise((done) => server?.close(done));
  await testApp?.close();
});

async function signIn(page: Page, key: string) {
  await page.goto(`${base}/console`);
  await page.getByLabel('API key').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

/** axe-core's serious and critical violations on the page as it is now (run through the debugger protocol: the page's CSP allows no injected script). */
async function seriousViolations(page: Page) {
  await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(): Promise<{ violations: { id: string; impact: string; nodes: unknown[] }[] }> } }).axe;
    return (await axe.run()).violations.map((v) => ({ id: v.id, impact: v.impact, nodes: v.nodes.length }));
  });
  return violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
}

/** A box's width (and where it ends), as laid out now. */
async function box(page: Page, selector: string) {
  const found = await page.locator(selector).first().boundingBox();
  if (!found) throw new Error(`${selector} is not laid out`);
  return { ...found, right: found.x + found.width, bottom: found.y + found.height };
}

/** Every label of a form's fields that is not right above its control, at the current width. */
const labelsBesideTheirControl = (page: Page, scope: string) =>
  page.evaluate((scope) => {
    const misplaced: string[] = [];
    for (const label of document.querySelectorAll<HTMLLabelElement>(`${scope} label`)) {
      const control = label.control;
      if (!control || label.closest('[hidden]')) continue;
      const l = label.getBoundingClientRect();
      const c = control.getBoundingClientRect();
      if (Math.abs(l.left - c.left) > 1 || l.bottom > c.top + 1) misplaced.push(label.textContent ?? '');
    }
    return misplaced;
  }, scope);

/** The x-axis tick labels a source's chart shows (Chart.js's ticks after its callback), each as one line. */
const axisLabels = (page: Page, source: string) =>
  page.evaluate((source) => {
    const canvas = document.querySelector(`#source-${source} canvas`);
    const chart = (
      window as unknown as { Chart: { getChart(c: Element | null): { scales: { x: { ticks: { label: string | string[] | null }[] } } } | undefined } }
    ).Chart.getChart(canvas);
    return (chart?.scales.x.ticks ?? []).filter((t) => t.label).map((t) => [t.label].flat().join(' '));
  }, source);

/** An axis label's hour (0–23) and weekday, from "7 PM Thu". */
function hourAndDay(label: string) {
  const match = /^(\d{1,2}) (AM|PM) (Mon|Tue|Wed|Thu|Fri|Sat|Sun)$/.exec(label);
  if (!match) throw new Error(`Not an hour and a weekday: ${label}`);
  return { hour: (Number(match[1]) % 12) + (match[2] === 'PM' ? 12 : 0), day: match[3] };
}

/** The sum of one outcome over a source's chart, as Chart.js holds it. */
const chartTotal = (page: Page, source: string, outcome: string) =>
  page.evaluate(
    ([source, outcome]) => {
      const canvas = document.querySelector(`#source-${source} canvas`);
      const chart = (
        window as unknown as { Chart: { getChart(c: Element | null): { data: { datasets: { label: string; data: number[] }[] } } | undefined } }
      ).Chart.getChart(canvas);
      const dataset = chart?.data.datasets.find((d) => d.label === outcome);
      return dataset ? dataset.data.reduce((sum, n) => sum + n, 0) : -1;
    },
    [source, outcome] as const,
  );

describe('the console in Chromium', () => {
  test('a tenant signs in, sees its counts in the chart, its rejections, maps an unmapped status and sees the load re-phased', async () => {
    const api = apiFor(testApp, tenant.apiKey);
    await seedExample(api, tenant);
    const booked = loadBody(tenant, { native_system_load_status: 'Booked', native_system_customer_name: 'Acme Foods' });
    expect((await api.post(routes.load, booked, { 'service-ingest-source': 'pull' })).status).toBe(200);
    // A GPS ping: coordinates, no city.
    const ping = loadUpdateBody(tenant, booked, { update_type: 'gps_ping', latitude: 41.8781, longitude: -87.6298 });
    expect((await api.post(routes.load_update, ping, { 'service-ingest-source': 'pull' })).status).toBe(200);
    // The same load again from the webhook, with a note: two bodies in its payload history.
    const again = { ...booked, tms_note: 'second post' };
    expect((await api.post(routes.load, again, { 'service-ingest-source': 'webhook', 'x-request-id': 'console-second-post' })).status).toBe(200);
    // One dry run on the pull path: counted apart, on the pull card only.
    const rehearsal = await api.post(`${routes.load}?dry_run=true`, loadBody(tenant), { 'service-ingest-source': 'pull' });
    expect(rehearsal.body).toMatchObject({ status: 'processed', dry_run: true });
    for (let i = 0; i < 3; i++) expect((await api.post(routes.carrier, carrierBody(tenant), { 'service-ingest-source': 'webhook' })).status).toBe(200);
    // A load without its permalink and status, rejected: its body is kept for the console.
    const incomplete = {
      native_system_load_id: 'X',
      native_system_customer_name: 'Acme Foods',
      bol_number: 'BOL-X',
      tms_note: 'sent before the TMS assigned a permalink',
    };
    expect((await api.post(routes.load, incomplete, { 'service-ingest-source': 'webhook' })).status).toBe(400);
    const health = (await api.graphql('{ ingestHealth { sources { source lastDay { processed rejected } } } }')).body.data.ingestHealth.sources;
    const expected = (source: string) => health.find((s: { source: string }) => s.source === source).lastDay;

    const page = await context.newPage();
    await signIn(page, tenant.apiKey);
    await expect.poll(() => page.locator('#who').innerText(), { timeout: 60_000 }).toBe(`Tenant ${tenant.slug}`);
    await expect.poll(() => chartTotal(page, 'webhook', 'processed'), { timeout: 60_000 }).toBe(expected('WEBHOOK').processed);
    expect(expected('WEBHOOK').processed).toBe(4); // three carriers and the load's second post
    expect(await chartTotal(page, 'webhook', 'rejected')).toBe(1);
    expect(await chartTotal(page, 'pull', 'processed')).toBe(expected('PULL').processed);
    await expect(page.locator('#rejections').innerText()).resolves.toContain('validation_failed');
    await expect(page.locator('#source-pull .dry-runs').innerText()).resolves.toBe('dry runs: 1 in the last hour / 1 in the last day');
    await expect(page.locator('#source-webhook .dry-runs').innerText()).resolves.toBe('dry runs: 0 in the last hour / 0 in the last day');
    // Stale intervals as people say them (the defaults: an hour for pull, a day for the others).
    await expect(page.locator('#source-pull .last').innerText()).resolves.toMatch(/ · stale after 1 h$/);
    await expect(page.locator('#source-webhook .last').innerText()).resolves.toMatch(/ · stale after 1 day$/);

    // The chart's axis: five hours 6 hours apart, from 24 hours ago (yesterday) to now's hour (today).
    const ticks = (await axisLabels(page, 'pull')).map(hourAndDay);
    const [first, last] = [ticks.at(0), ticks.at(-1)];
    expect(ticks.map((t) => t.hour)).toEqual([0, 6, 12, 18, 24].map((h) => ((first?.hour ?? NaN) + h) % 24));
    expect(last?.day).not.toBe(first?.day);
    const nowHour = await page.evaluate(() => new Date().getHours());
    expect([nowHour, (nowHour + 23) % 24]).toContain(last?.hour); // now's hour (or the one before, had it just turned)

    // The rejection's field issues, and its body behind a disclosure, as wide as its panel.
    const rejected = page.locator('#rejections li.entry', { hasText: 'validation_failed' }).first();
    await expect(rejected.locator('ul.issues').innerText()).resolves.toContain('native_system_load_permalink');
    await expect(rejected.locator('details.body pre').isVisible()).resolves.toBe(false);
    await rejected.locator('details.body summary').click();
    await expect.poll(() => rejected.locator('details.body pre').innerText(), { timeout: 30_000 }).toContain('"native_system_load_id": "X"');
    const panel = await box(page, '#rejections-section');
    const body = await box(page, '#rejections li.entry details.body pre');
    expect(body.width).toBeGreaterThanOrEqual(0.9 * panel.width);

    // Look the load up: UNMAPPED, with its GPS ping placed by its coordinates.
    await page.getByLabel('Load permalink').fill(String(booked.native_system_load_permalink));
    await page.getByRole('button', { name: 'Look up' }).click();
    await expect.poll(() => page.locator('#load-summary [data-field="phase"]').innerText(), { timeout: 30_000 }).toBe('UNMAPPED');
    const gps = page.locator('#events tbody tr', { hasText: 'GPS_PING' });
    await expect(gps.locator('td').nth(4).innerText()).resolves.toBe('41.88, -87.63');
    await expect(page.locator('#load-summary [data-field="deleted"]').innerText()).resolves.toBe('no');
    // Its payload history, newest first: the webhook's second post, then the first one; a body opens.
    const history = page.locator('#history li.entry');
    const fact = (n: number, name: string) => history.nth(n).locator(`[data-fact="${name}"] dd`).innerText();
    await expect(history.count()).resolves.toBe(2);
    expect([await fact(0, 'source'), await fact(0, 'outcome'), await fact(0, 'changed'), await fact(0, 'request id')]).toEqual([
      'webhook',
      'processed',
      'yes',
      'console-second-post',
    ]);
    expect([await fact(1, 'source'), await fact(1, 'outcome'), await fact(1, 'changed')]).toEqual(['pull', 'processed', 'yes']);
    await expect(history.nth(0).locator('details.body pre').isVisible()).resolves.toBe(false);
    await history.nth(0).locator('details.body summary').click();
    await expect.poll(() => history.nth(0).locator('details.body pre').innerText(), { timeout: 30_000 }).toContain('"tms_note": "second post"');

    // Map the unmapped status; the lookup shows the new phase.
    await page.getByLabel('Phase for Booked').selectOption('COVERED');
    await page.getByRole('button', { name: 'Map Booked' }).click();
    await expect.poll(() => page.locator('#mappings tbody').innerText(), { timeout: 30_000 }).toContain('COVERED');
    // The outcome shows once the panels below (data quality included) are refreshed.
    await expect.poll(() => page.locator('#statuses-feedback').innerText(), { timeout: 30_000 }).toBe('"Booked" is now COVERED; its loads are re-phased.');
    await page.getByRole('button', { name: 'Look up' }).click();
    await expect.poll(() => page.locator('#load-summary [data-field="phase"]').innerText(), { timeout: 30_000 }).toBe('COVERED');
    // The looked-up-again load kept its opened body open.
    await expect(page.locator('#history li.entry').nth(0).locator('details.body pre').isVisible()).resolves.toBe(true);
    const stored = await api.graphql('query ($p: String!) { load(permalink: $p) { phase } }', { p: booked.native_system_load_permalink });
    expect(stored.body.data.load.phase).toBe('COVERED');
    // The refresh after mapping kept the opened body open.
    await expect(rejected.locator('details.body pre').isVisible()).resolves.toBe(true);

    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: screenshots.path('console-tenant.png'), fullPage: true });

    // Phone width: no sideways scrolling of the page, bodies across the screen, still accessible.
    await page.setViewportSize({ width: 390, height: 844 });
    await expect.poll(() => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1)).toBe(true);
    for (const selector of ['#rejections li.entry details.body pre', '#history li.entry details.body pre']) {
      const narrow = await box(page, selector);
      expect(narrow.width).toBeGreaterThanOrEqual(0.8 * 390);
      expect(narrow.right).toBeLessThanOrEqual(390);
    }
    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: screenshots.path('console-phone.png'), fullPage: true });

    // The key is in this tab's session only.
    expect(await page.evaluate(() => JSON.stringify({ ...localStorage }))).not.toContain(tenant.apiKey);
    expect(await page.evaluate(() => JSON.stringify({ ...sessionStorage }))).toContain(tenant.apiKey);
    await page.close();
  });

  test('the lookup shows a deleted load as deleted, with when, and the delete in its payload history', async () => {
    const api = apiFor(testApp, tenant.apiKey);
    const load = loadBody(tenant);
    expect((await api.post(routes.load, load)).status).toBe(200);
    const removed = await api.post('/api/v1/loads/delete', { native_system_load_permalink: load.native_system_load_permalink });
    expect(removed.status).toBe(200);
    const stored = await api.graphql('query ($p: String!) { load(permalink: $p, includeDeleted: true) { deletedAt } }', {
      p: load.native_system_load_permalink,
    });
    const deletedAt: string = stored.body.data.load.deletedAt;
    expect(deletedAt).toBeTruthy();

    const page = await context.newPage();
    await signIn(page, tenant.apiKey);
    await expect.poll(() => page.locator('#who').innerText(), { timeout: 60_000 }).toBe(`Tenant ${tenant.slug}`);
    await page.getByLabel('Load permalink').fill(String(load.native_system_load_permalink));
    await page.getByRole('button', { name: 'Look up' }).click();
    await expect.poll(() => page.locator('#load-deleted').innerText(), { timeout: 30_000 }).toMatch(/^Deleted: the TMS deleted this load on /);
    const shown = await page.evaluate((iso) => new Date(iso).toLocaleString(), deletedAt);
    await expect(page.locator('#load-summary [data-field="deleted"]').innerText()).resolves.toBe(shown);
    // Its payload history: the delete's body (newest) and the upsert's.
    await expect(page.locator('#history li.entry').count()).resolves.toBe(2);
    expect(await seriousViolations(page)).toEqual([]);
    await page.close();
  });

  test("the lookup shows a stop's, a leg's and a carrier's stored fields and parents, suggests the tenant's suffix, and shows each write's parameters", async () => {
    const owner = await testApp.createTenant({ slug: uniqueSlug('lookup') });
    const api = apiFor(testApp, owner.apiKey);
    const carrier = fullBodies.carrier(owner);
    expect((await api.post(routes.carrier, carrier)).status).toBe(200);
    const load = loadBody(owner);
    expect((await api.post(routes.load, load)).status).toBe(200);
    const leg = fullBodies.load_leg(owner, load, carrier);
    expect((await api.post(routes.load_leg, leg)).status).toBe(200);
    const stop = stopBody(owner, leg, { city: 'Gary', state: 'IN', stop_sequence: 2, stop_type: 'delivery' });
    expect((await api.post(`${routes.stop}?sync_run_time=2026-11-20T10:00:00Z`, stop)).body.status).toBe('processed');
    // Re-posted with an older sync_run_time: skipped, and its parameters say why.
    expect((await api.post(`${routes.stop}?sync_run_time=2026-11-20T09:00:00Z`, { ...stop, city: 'Elsewhere' })).body.status).toBe('skipped');

    const page = await context.newPage();
    await signIn(page, owner.apiKey);
    await expect.poll(() => page.locator('#who').innerText(), { timeout: 60_000 }).toBe(`Tenant ${owner.slug}`);
    // The TMS id without the tenant's suffix: not found, with the suffixed permalink suggested and one click away.
    await page.getByLabel('Record kind').selectOption('stop');
    await page.getByLabel('Stop permalink').fill(String(stop.native_system_stop_id));
    await page.getByRole('button', { name: 'Look up', exact: true }).click();
    const feedback = page.locator('#lookup-form .feedback');
    await expect
      .poll(() => feedback.innerText(), { timeout: 30_000 })
      .toBe(
        `No stop ${String(stop.native_system_stop_id)} in this tenant. Permalinks end in the tenant's slug (<id>-${owner.slug}): did you mean ${String(stop.native_system_stop_permalink)}?`,
      );
    await page.getByRole('button', { name: `Look up ${String(stop.native_system_stop_permalink)}` }).click();
    const field = (name: string) => page.locator(`#load-summary [data-field="${name}"]`).innerText();
    await expect.poll(() => field('permalink'), { timeout: 30_000 }).toBe(stop.native_system_stop_permalink);
    // Its stored fields under their contract names: what it stores now (the skipped write changed nothing).
    expect([await field('city'), await field('state'), await field('stop_sequence'), await field('native_system_stop_id')]).toEqual([
      'Gary',
      'IN',
      '2',
      stop.native_system_stop_id,
    ]);
    await expect(field('stop_type')).resolves.toMatch(/^delivery$/i);
    await expect(field('reference_number')).resolves.toBe(stop.reference_number);
    await expect(field('leg')).resolves.toBe(leg.native_system_load_leg_permalink);
    // Its payload history with each write's parameters.
    const history = page.locator('#history li.entry');
    await expect(history.count()).resolves.toBe(2);
    const fact = (n: number, name: string) => history.nth(n).locator(`[data-fact="${name}"] dd`).innerText();
    expect([await fact(0, 'outcome'), await fact(0, 'parameters')]).toEqual(['skipped', 'sync_run_time=2026-11-20T09:00:00Z']);
    expect([await fact(1, 'outcome'), await fact(1, 'parameters')]).toEqual(['processed', 'sync_run_time=2026-11-20T10:00:00Z']);
    expect(await seriousViolations(page)).toEqual([]);

    // The parent leg opens from the stop: its driver and its carrier by name.
    await page.locator('#load-summary [data-field="leg"] button').click();
    await expect.poll(() => page.locator('#permalink-label').innerText(), { timeout: 30_000 }).toBe('Load leg permalink');
    await expect.poll(() => field('permalink'), { timeout: 30_000 }).toBe(leg.native_system_load_leg_permalink);
    expect([await field('driver_name'), await field('load_leg_sequence'), await field('load')]).toEqual([
      leg.driver_name,
      '1',
      load.native_system_load_permalink,
    ]);
    await expect(field('carrier')).resolves.toBe(`${String(carrier.carrier_name)} ${String(carrier.native_system_carrier_permalink)}`);
    await expect(page.locator('#history [data-fact="parameters"] dd').innerText()).resolves.toBe('none');
    // And the carrier from the leg.
    await page.locator('#load-summary [data-field="carrier"] button').click();
    await expect.poll(() => field('carrier_name'), { timeout: 30_000 }).toBe(carrier.carrier_name);
    expect([await field('mc_number'), await field('dot_number'), await field('kind')]).toEqual([carrier.mc_number, carrier.dot_number, 'carrier']);
    expect(await seriousViolations(page)).toEqual([]);
    await page.setViewportSize({ width: 390, height: 844 });
    await expect.poll(() => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1)).toBe(true);
    expect(await seriousViolations(page)).toEqual([]);
    await page.close();
  });

  test('the admin signs in, sees an error in the form that caused it and gone after a success, creates a tenant whose key posts, and sets its stale interval', async () => {
    const page = await context.newPage();
    await signIn(page, adminKey);
    await expect.poll(() => page.locator('#who').innerText(), { timeout: 60_000 }).toMatch(/^Admin/);
    // Every admin form keeps each label right above its field, at desktop and phone widths.
    expect(await labelsBesideTheirControl(page, '#admin')).toEqual([]);

    // A bad slug: the error shows in the create form, nowhere else.
    await page.getByLabel('Slug').fill('Not A Slug');
    await page.getByLabel('Name').fill('New Freight');
    await page.getByRole('button', { name: 'Create' }).click();
    const createFeedback = page.locator('#create-tenant .feedback');
    await expect.poll(() => createFeedback.getAttribute('data-kind'), { timeout: 30_000 }).toBe('error');
    await expect(createFeedback.innerText()).resolves.toMatch(/slug/);
    await expect(page.getByRole('alert').count()).resolves.toBe(1);
    const form = await box(page, '#create-tenant');
    const error = await box(page, '#create-tenant .feedback');
    expect(error.y).toBeGreaterThanOrEqual(form.y);
    expect(error.bottom).toBeLessThanOrEqual(form.bottom);
    await expect(page.locator('#message').innerText()).resolves.toBe('');

    // A good slug: created, and the error is gone.
    const slug = uniqueSlug('new');
    await page.getByLabel('Slug').fill(slug);
    await page.getByRole('button', { name: 'Create' }).click();
    await expect.poll(() => page.locator('#new-key-value').innerText(), { timeout: 30_000 }).toMatch(/^tms_/);
    await expect.poll(() => createFeedback.innerText(), { timeout: 30_000 }).toBe(`Created ${slug}.`);
    await expect(createFeedback.getAttribute('data-kind')).resolves.toBe('done');
    await expect(page.getByRole('alert').count()).resolves.toBe(0);
    await expect(page.getByText('must match').count()).resolves.toBe(0);
    const apiKey = await page.locator('#new-key-value').innerText();
    await expect.poll(() => page.locator('#tenants tbody').innerText(), { timeout: 30_000 }).toContain(slug);
    expect(await page.getByRole('button', { name: 'Copy' }).isVisible()).toBe(true);

    const res = await fetch(`${base}${routes.carrier}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
      body: JSON.stringify(carrierBody({ slug })),
    });
    expect(res.status).toBe(200);

    // Pick the tenant: its health shows the carrier just posted.
    await page.getByLabel('Tenant shown below').selectOption(slug);
    await expect.poll(() => chartTotal(page, 'unspecified', 'processed'), { timeout: 60_000 }).toBe(1);
    // Its pull source stale after 15 minutes: the list and the card say so.
    await page.getByLabel('Stale after (minutes)').fill('15');
    await page.getByRole('button', { name: 'Set stale interval' }).click();
    await expect.poll(() => page.locator('#stale-form .feedback').innerText(), { timeout: 30_000 }).toBe(`Stale interval of ${slug} set.`);
    const row = page.locator('#tenants tbody tr', { hasText: slug });
    await expect(row.locator('td').nth(4).innerText()).resolves.toBe('15 min / 1 day / 1 day');
    await expect(page.locator('#source-pull .last').innerText()).resolves.toMatch(/ · stale after 15 min$/);
    expect(await seriousViolations(page)).toEqual([]);
    await page.screenshot({ path: screenshots.path('console-admin.png'), fullPage: true });

    await page.setViewportSize({ width: 390, height: 844 });
    await expect.poll(() => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1)).toBe(true);
    expect(await labelsBesideTheirControl(page, '#admin')).toEqual([]);
    expect(await seriousViolations(page)).toEqual([]);
    await page.close();
  });

  test('the data-quality panel counts records by their latest write and writes apart, folds what is complete, renders code, refreshes after a mapping, and opens a record to fix', async () => {
    const owner = await testApp.createTenant({ slug: uniqueSlug('quality') });
    const api = apiFor(testApp, owner.apiKey);
    const pull = { 'service-ingest-source': 'pull' };
    const loads = [
      loadBody(owner, { bol_number: null, native_system_load_status: 'Waiting' }),
      loadBody(owner, { bol_number: ' ', po_number: null }),
      loadBody(owner),
    ];
    for (const load of loads) expect((await api.post(routes.load, load, pull)).status).toBe(200);
    // Two stale re-posts of the first load: writes, not records.
    for (let i = 0; i < 2; i++) expect((await api.post(`${routes.load}?sync_run_time=2000-01-01T00:00:00Z`, loads[0], pull)).body.status).toBe('skipped');
    const leg = loadLegBody(owner, loads[2]!);
    expect((await api.post(routes.load_leg, leg, pull)).status).toBe(200);
    // A stop from the webhook without its city or appointment; one from pull with both.
    const cityless = stopBody(owner, leg, { city: null });
    expect((await api.post(routes.stop, cityless, { 'service-ingest-source': 'webhook' })).status).toBe(200);
    const complete = stopBody(owner, leg, { stop_sequence: 2, appointment_start: '2026-11-23T08:00:00Z' });
    expect((await api.post(routes.stop, complete, pull)).status).toBe(200);
    // A carrier with every recommended field: a kind with nothing to fix.
    expect((await api.post(routes.carrier, fullBodies.carrier(owner), pull)).status).toBe(200);
    const qualityQuery = '{ dataQuality { kinds { kind records writes fields { field present missing recordsMissing } } findings { code count } } }';
    type Quality = {
      kinds: { kind: string; records: number; writes: number; fields: { field: string; present: number; missing: number; recordsMissing: number }[] }[];
      findings: { code: string; count: number }[];
    };
    const quality = (await api.graphql(qualityQuery)).body.data.dataQuality as Quality;

    const page = await context.newPage();
    await signIn(page, owner.apiKey);
    await expect.poll(() => page.locator('#quality-kinds details.kind-quality').count(), { timeout: 60_000 }).toBe(quality.kinds.length);
    // Every kind's records and writes and every field's numbers, as the panel holds them, equal the API's.
    const shown = await page.evaluate(() =>
      [...document.querySelectorAll<HTMLElement>('#quality-kinds details.kind-quality')].map((card) => ({
        kind: card.dataset.kind,
        records: Number(card.dataset.records),
        writes: Number(card.dataset.writes),
        fields: [...card.querySelectorAll<HTMLElement>('li[data-field]')].map((li) => ({
          field: li.dataset.field,
          present: Number(li.dataset.present),
          missing: Number(li.dataset.missing),
          recordsMissing: Number(li.dataset.recordsMissing),
        })),
      })),
    );
    const byField = (a: { field: string }, b: { field: string }) => a.field.localeCompare(b.field);
    const sortedFields = <T extends { kind?: string; fields: { field: string }[] }>(kinds: T[]) =>
      kinds.map((k) => ({ ...k, fields: [...k.fields].sort(byField) })).sort((a, b) => String(a.kind).localeCompare(String(b.kind)));
    expect(sortedFields(shown as Quality['kinds'])).toEqual(sortedFields(quality.kinds));
    // Loads: 3 records, 5 writes (the two skipped re-posts); the BOL missing in 2 of the 3 records, 4 of the 5 writes.
    const loadCard = page.locator('details.kind-quality[data-kind="LOAD"]');
    const loadFieldsToFix = quality.kinds.find((k) => k.kind === 'LOAD')!.fields.filter((f) => f.recordsMissing > 0).length;
    await expect(loadCard.locator(':scope > summary').innerText()).resolves.toBe(`Loads 3 records · 5 writes · ${loadFieldsToFix} fields to fix`);
    const bol = loadCard.locator('li[data-field="bol_number"]');
    await expect(bol.locator('.share').innerText()).resolves.toBe('2 of 3 records missing (67 %)');
    await expect(bol.locator('.writes').innerText()).resolves.toBe('Writes: 4 of 5 writes left it empty');
    // What it feeds is text with code, not Markdown: no backtick on screen.
    await expect(bol.locator('.feeds').innerText()).resolves.toMatch(/^Feeds: load search by BOL \(loads\(filter: \{ search \}\)\)$/);
    await expect(bol.locator('.feeds code').innerText()).resolves.toBe('loads(filter: { search })');
    await expect(page.locator('#quality').innerText()).resolves.not.toContain('`');
    // What needs fixing first: the fields to fix open, most records first; the complete ones folded; a complete kind folded whole, last of the kinds with records.
    const order = await page.evaluate(() =>
      [...document.querySelectorAll<HTMLDetailsElement>('#quality-kinds details.kind-quality')].map((d) => [d.dataset.kind, d.open]),
    );
    expect(order.slice(0, 3)).toEqual([
      ['LOAD', true],
      ['LOAD_LEG', true],
      ['STOP', true],
    ]);
    expect(order.slice(3)).toEqual([
      ['CARRIER', false],
      ['LOAD_UPDATE', false],
    ]);
    const missingOrder = await loadCard
      .locator(':scope > ul.coverage > li')
      .evaluateAll((items) => items.map((li) => Number((li as HTMLElement).dataset.recordsMissing)));
    expect(missingOrder).toEqual([...missingOrder].sort((a, b) => b - a));
    expect(Math.min(...missingOrder)).toBeGreaterThan(0);
    await expect(loadCard.locator('details.complete').getAttribute('open')).resolves.toBeNull();
    await expect(page.locator('details.kind-quality[data-kind="CARRIER"] .verdict').innerText()).resolves.toBe('every recommended field present');
    // The findings with a count, as the API counts them, above the kinds.
    const findings = await page.evaluate(() =>
      [...document.querySelectorAll<HTMLElement>('#findings li[data-code]')].map((li) => ({ code: li.dataset.code, count: Number(li.dataset.count) })),
    );
    expect(findings).toEqual(expect.arrayContaining(quality.findings.filter((f) => f.count > 0)));
    expect(findings).toHaveLength(quality.findings.filter((f) => f.count > 0).length);
    expect(findings.map((f) => f.code)).toContain('stop_without_appointment');
    expect((await box(page, '#findings')).bottom).toBeLessThan((await box(page, '#quality-kinds')).y);
    expect(await seriousViolations(page)).toEqual([]);
    await page.locator('#quality').screenshot({ path: screenshots.path('console-data-quality.png') });

    // A mapping made in the console refreshes the finding it settles, without a reload.
    const unmapped = page.locator('#findings li[data-code="unmapped_status"]');
    const unmappedBefore = quality.findings.find((f) => f.code === 'unmapped_status')!.count;
    await expect(unmapped.getAttribute('data-count')).resolves.toBe(String(unmappedBefore));
    await page.getByLabel('Phase for Waiting').selectOption('PLANNED');
    await page.getByRole('button', { name: 'Map Waiting' }).click();
    await expect.poll(() => page.locator('#statuses-feedback').innerText(), { timeout: 30_000 }).toBe('"Waiting" is now PLANNED; its loads are re-phased.');
    const after = (await api.graphql(qualityQuery)).body.data.dataQuality as Quality;
    const unmappedAfter = after.findings.find((f) => f.code === 'unmapped_status')!.count;
    expect(unmappedAfter).toBe(unmappedBefore - 1);
    await expect(unmapped.getAttribute('data-count')).resolves.toBe(String(unmappedAfter));
    await expect(unmapped.innerText()).resolves.not.toContain('Waiting');

    // The source filter narrows the writes: the webhook's one stop write lacks the city; the records stay every source's.
    await page.getByLabel('Ingest source (writes)').selectOption('WEBHOOK');
    await page.getByRole('button', { name: 'Show' }).click();
    const city = page.locator('[data-kind="STOP"] li[data-field="city"]');
    await expect.poll(() => city.locator('.writes').innerText(), { timeout: 30_000 }).toBe('Writes (webhook): 1 of 1 write left it empty');
    await expect(city.locator('.share').innerText()).resolves.toBe('1 of 2 records missing (50 %)');

    // A record to fix opens in the lookup, with what the TMS sent.
    await city.getByRole('button', { name: String(cityless.native_system_stop_permalink) }).click();
    await expect
      .poll(() => page.locator('#load-summary [data-field="permalink"]').innerText(), { timeout: 30_000 })
      .toBe(cityless.native_system_stop_permalink);
    await expect(page.locator('#permalink-label').innerText()).resolves.toBe('Stop permalink');
    const sent = page.locator('#history li.entry');
    await expect(sent.count()).resolves.toBe(1);
    await expect(sent.nth(0).locator('[data-fact="source"] dd').innerText()).resolves.toBe('webhook');

    expect(await seriousViolations(page)).toEqual([]);
    await page.setViewportSize({ width: 390, height: 844 });
    await expect.poll(() => page.evaluate(() => document.documentElement.scrollWidth <= window.innerWidth + 1)).toBe(true);
    expect(await seriousViolations(page)).toEqual([]);
    await page.close();
  });

  test('a sign-in answered 503 says it is retrying, waits the Retry-After, and gets in', async () => {
    const page = await context.newPage();
    // The network's answer, not our stack's: the first two GraphQL requests get 503 with Retry-After: 1.
    const refused: number[] = [];
    await page.route('**/graphql', async (route) => {
      if (refused.length < 2) {
        refused.push(Date.now());
        await route.fulfill({
          status: 503,
          headers: { 'content-type': 'application/json', 'retry-after': '1' },
          body: JSON.stringify({ error: { code: 'unavailable', message: 'Temporarily unavailable; retry shortly.' } }),
        });
      } else await route.continue();
    });
    await signIn(page, tenant.apiKey);
    await expect.poll(() => page.locator('#sign-in-form .feedback').innerText(), { timeout: 10_000 }).toMatch(/retrying…/);
    await expect.poll(() => page.locator('#who').innerText(), { timeout: 30_000 }).toBe(`Tenant ${tenant.slug}`);
    expect(refused).toHaveLength(2);
    const [firstRefused = 0, secondRefused = 0] = refused;
    expect(secondRefused - firstRefused).toBeGreaterThanOrEqual(950); // Retry-After: 1, not the backoff's first 500 ms
    await page.close();
  });

  test('the console has a favicon, linked from the page and served as an image', async () => {
    const page = await context.newPage();
    await page.goto(`${base}/console`);
    const href = await page.locator('link[rel="icon"]').getAttribute('href');
    expect(href).toBeTruthy();
    const res = await fetch(new URL(href ?? '', `${base}/console`));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^image\//);
    expect(await res.text()).toContain('<svg');
    await page.close();
  });

  test('no page asked another host for anything', () => {
    expect(foreignRequests).toEqual([]);
  });
});
