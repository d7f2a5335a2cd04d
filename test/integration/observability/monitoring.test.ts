/**
 * The shipped Prometheus rules and Grafana dashboard (deploy/) name only metrics that GET /metrics
 * serves, and the new gauges (source staleness, event sequencing lag) report what the database holds.
 * (`promtool check rules` checks the rules' syntax in CI: .ci/run.)
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, test } from '../../fixtures.js';
import { carrierBody, routes } from '../../factories/records.js';

const root = resolve(import.meta.dirname, '../../..');
const rules = readFileSync(resolve(root, 'deploy/prometheus/alerts.yml'), 'utf8');
const dashboard = JSON.parse(readFileSync(resolve(root, 'deploy/grafana/tms-ingest.json'), 'utf8')) as {
  panels: { targets: { expr: string }[] }[];
  templating: { list: { definition?: string }[] };
};

/** The PromQL expressions of the rules (`expr:` blocks) and of the dashboard's panels and variables. */
const ruleExpressions = [...rules.matchAll(/expr: \|?\n?([\s\S]*?)\n\s+(?:for|labels):/g)].map((m) => m[1]!);
const dashboardExpressions = [
  ...dashboard.panels.flatMap((p) => p.targets.map((t) => t.expr)),
  ...dashboard.templating.list.flatMap((v) => v.definition ?? []),
];

/** Metric names in a PromQL expression: identifiers outside label matchers, grouping clauses and ranges that are not functions. */
function metricNames(expr: string): string[] {
  const bare = expr
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/"[^"]*"/g, ' ');
  const keywords = new Set(['and', 'or', 'unless', 'by', 'without', 'bool', 'offset', 'time', 'le', 'group_left', 'group_right']);
  return [...bare.matchAll(/\b([a-zA-Z_:][a-zA-Z0-9_:]*)\b\s*(\()?/g)]
    .filter((m) => !m[2] && !keywords.has(m[1]!) && m[1]!.includes('_') && !/^\$|^__/.test(m[1]!))
    .map((m) => m[1]!.replace(/_(bucket|sum|count)$/, ''));
}

describe('monitoring files', () => {
  test('the rules and the dashboard have expressions, and every metric they use is served by /metrics', async ({ testApp }) => {
    expect(ruleExpressions.length).toBe(8);
    expect(dashboardExpressions.length).toBeGreaterThanOrEqual(12);
    const used = new Set([...ruleExpressions, ...dashboardExpressions].flatMap(metricNames));
    expect([...used]).toEqual(
      expect.arrayContaining([
        'ingest_records_total',
        'http_request_duration_seconds',
        'load_events_unsequenced_age_seconds',
        'ingest_recommended_field_missing_total',
      ]),
    );
    const text = await (await testApp.fetch('/metrics')).text();
    const served = new Set([...text.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]!));
    const missing = [...used].filter((name) => !served.has(name));
    expect(missing).toEqual([]);
  });

  test('the name extractor finds metrics and skips functions, labels and keywords', () => {
    expect(metricNames('histogram_quantile(0.99, sum by (le, route) (rate(http_request_duration_seconds_bucket{route!="unmatched"}[5m]))) > 1')).toEqual([
      'http_request_duration_seconds',
    ]);
    expect(metricNames('max by (tenant) (time() - a_b) > max(c_d) and e_f == 0')).toEqual(['a_b', 'c_d', 'e_f']);
  });

  test('the source gauges report each source of each tenant and its interval; the sequencing lag is 0 when all events are numbered', async ({
    api,
    tenant,
    testApp,
  }) => {
    await api.post(routes.carrier, carrierBody(tenant), { 'service-ingest-source': 'webhook' });
    await testApp.app.services.recorder.flush();
    await testApp.app.services.sequencer.idle(); // the write's numbering pass follows its answer (decision 0045)
    const text = await (await testApp.fetch('/metrics')).text();
    const value = (name: string) => {
      const line = text.split('\n').find((l) => l.startsWith(`${name}{tenant="${tenant.slug}",source="webhook"}`));
      return line ? Number(line.split(' ').at(-1)) : null;
    };
    const last = value('ingest_source_last_received_timestamp_seconds');
    expect(last).not.toBeNull();
    expect(Math.abs(last! - testApp.clock.now().getTime() / 1000)).toBeLessThan(3600);
    expect(value('ingest_source_stale_after_seconds')).toBe(86_400);
    expect(text).toMatch(/^load_events_unsequenced_age_seconds 0$/m);
  });

  test('one scrape reads the sources once for both source gauges', async ({ api, tenant, testApp }) => {
    await api.post(routes.carrier, carrierBody(tenant), { 'service-ingest-source': 'pull' });
    await testApp.app.services.recorder.flush();
    const statements: string[] = [];
    const stop = testApp.database.db.onStatement((sql) => statements.push(sql));
    const text = await (await testApp.fetch('/metrics')).text();
    stop();
    expect(text).toContain(`ingest_source_last_received_timestamp_seconds{tenant="${tenant.slug}",source="pull"}`);
    expect(text).toContain(`ingest_source_stale_after_seconds{tenant="${tenant.slug}",source="pull"}`);
    expect(statements.filter((sql) => sql.includes('FROM ingest_sources'))).toHaveLength(1);
  });

  test("the sequencing lag is the age of the oldest unsequenced event of any tenant (a tenant's lookup by its (tenant_id, seq) index)", async ({
    tenant,
    testApp,
  }) => {
    // An event committed but not numbered: a writer whose sequencing pass has not run yet.
    await testApp.database.db.sql.query(
      `INSERT INTO load_events (tenant_id, seq, type, data, occurred_at) VALUES ($1, NULL, 'load.changed', '{}', clock_timestamp() - interval '90 seconds')`,
      [tenant.id],
    );
    const text = await (await testApp.fetch('/metrics')).text();
    const age = Number(/^load_events_unsequenced_age_seconds (\S+)$/m.exec(text)?.[1]);
    expect(age).toBeGreaterThanOrEqual(90);
    expect(age).toBeLessThan(3600);
  });
});
