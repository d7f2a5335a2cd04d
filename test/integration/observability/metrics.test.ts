import { spawnSync } from 'node:child_process';
import parsePrometheusTextFormat, { type PrometheusFamily } from 'parse-prometheus-text-format';
import { onTestFinished } from 'vitest';
import { describe, expect, test } from '../../fixtures.js';
import { loadBody, routes } from '../../factories/records.js';
import { apiFor, createTestApp, type TestApp } from '../../helpers/app.js';
import { onPostgres } from '../../setup/database.js';

async function scrape(testApp: TestApp) {
  const res = await testApp.fetch('/metrics');
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  const text = await res.text();
  const families = parsePrometheusTextFormat(text);
  const family = (name: string): PrometheusFamily => {
    const found = families.find((f) => f.name === name);
    expect(found, `metric family ${name}`).toBeDefined();
    return found!;
  };
  /** The sample of a family whose labels include these. */
  const sample = (name: string, labels: Record<string, string>) =>
    family(name).metrics.find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));
  return { text, family, sample };
}

describe('GET /metrics', () => {
  test('exposes request, duration, ingest and pool metrics for a known mix of requests', async () => {
    const testApp = await createTestApp();
    onTestFinished(() => testApp.close());
    const tenant = await testApp.createTenant();
    const api = apiFor(testApp, tenant.apiKey);

    const pull = { 'service-ingest-source': 'pull' };
    for (let i = 0; i < 2; i++) expect((await api.post(routes.load, loadBody(tenant), pull)).status).toBe(200);
    const rejectedPermalink = `SECRET-PERMALINK-${tenant.slug}`;
    expect((await api.post(routes.load, { native_system_load_permalink: rejectedPermalink }, pull)).status).toBe(400);
    expect((await testApp.fetch('/healthz')).status).toBe(200);
    expect((await testApp.fetch('/nope/customer-42')).status).toBe(404);
    expect((await api.graphql('{ viewer { slug } }')).status).toBe(200);

    const { text, family, sample } = await scrape(testApp);

    expect(family('http_requests_total').type).toBe('COUNTER');
    expect(sample('http_requests_total', { method: 'POST', route: routes.load, status_code: '200' })?.value).toBe('2');
    expect(sample('http_requests_total', { method: 'POST', route: routes.load, status_code: '400' })?.value).toBe('1');
    expect(sample('http_requests_total', { method: 'GET', route: '/healthz', status_code: '200' })?.value).toBe('1');
    expect(sample('http_requests_total', { method: 'GET', route: 'unmatched', status_code: '404' })?.value).toBe('1');
    expect(sample('http_requests_total', { method: 'POST', route: '/graphql', status_code: '200' })?.value).toBe('1');

    const duration = family('http_request_duration_seconds');
    expect(duration.type).toBe('HISTOGRAM');
    // The parser flattens labelled histograms into one unlabelled sample; read their series lines.
    const series = (suffix: string, labels: string) =>
      text
        .split('\n')
        .find((line) => line.startsWith(`http_request_duration_seconds_${suffix}{`) && line.includes(labels))
        ?.split(' ')
        .at(-1);
    const loads = `method="POST",route="${routes.load}",status_code="200"`;
    expect(series('count', loads)).toBe('2');
    expect(series('bucket', `le="+Inf",${loads}`)).toBe('2');
    expect(Number(series('sum', loads))).toBeGreaterThan(0);

    expect(family('ingest_records_total').type).toBe('COUNTER');
    expect(sample('ingest_records_total', { tenant: tenant.slug, source: 'pull', kind: 'load', outcome: 'processed' })?.value).toBe('2');
    expect(sample('ingest_records_total', { tenant: tenant.slug, source: 'pull', kind: 'load', outcome: 'rejected' })?.value).toBe('1');

    for (const name of ['db_pool_connections', 'db_pool_idle_connections', 'db_pool_waiting_clients']) {
      expect(Number(family(name).metrics[0]?.value)).toBeGreaterThanOrEqual(0);
    }
    expect(Number(sample('db_pool_connections', {})?.value)).toBeGreaterThan(0);
    if (!onPostgres()) expect(sample('db_pool_connections', {})?.value).toBe('1'); // the embedded database: a pool of one connection
    expect(family('process_cpu_user_seconds_total').type).toBe('COUNTER');

    // No raw paths, keys or permalinks in any label.
    expect(text).not.toContain('/nope');
    expect(text).not.toContain(tenant.apiKey);
    expect(text).not.toContain('SECRET-PERMALINK');
  });

  test('counts GraphQL and REST requests per app: a second app has its own registry', async ({ testApp }) => {
    const other = await createTestApp({ database: testApp.database });
    onTestFinished(() => other.close());
    await other.fetch('/healthz');
    await other.fetch('/healthz');
    const mine = await scrape(testApp);
    const theirs = await scrape(other);
    expect(theirs.sample('http_requests_total', { route: '/healthz' })?.value).toBe('2');
    expect(mine.sample('http_requests_total', { route: '/healthz' })).toBeUndefined();
  });

  test('passes promtool check metrics (names, types, help texts) after a mix of requests', async ({ testApp, tenant, skip }) => {
    const version = spawnSync('promtool', ['--version'], { encoding: 'utf8' });
    if (version.error) {
      if (process.env.CI) throw new Error('promtool is missing: CI installs it with Debian\'s "prometheus" package (.ci/run), and must.');
      return skip('promtool is not installed here (Debian package "prometheus"); CI runs this check.');
    }
    const api = apiFor(testApp, tenant.apiKey);
    expect((await api.post(routes.load, loadBody(tenant), { 'service-ingest-source': 'pull' })).status).toBe(200);
    expect((await api.post(routes.load, {})).status).toBe(400);
    expect((await api.graphql('{ viewer { slug } }')).status).toBe(200);
    const { text } = await scrape(testApp);
    const check = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
    expect(`${check.stdout}${check.stderr}`).toBe('');
    expect(check.status).toBe(0);
  });

  test('answers 405 to other methods and needs no API key', async ({ testApp }) => {
    const res = await testApp.fetch('/metrics', { method: 'POST' });
    expect(res.status).toBe(405);
    expect(res.headers.get('allow')).toBe('GET, HEAD');
    expect((await res.json()).error.code).toBe('method_not_allowed');
  });
});
