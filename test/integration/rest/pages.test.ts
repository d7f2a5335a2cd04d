import { describe, expect, test } from '../../fixtures.js';

describe('browser pages', () => {
  test('GET / answers a page linking GraphiQL, the API reference, the OpenAPI document and the health endpoints', async ({ testApp }) => {
    const res = await testApp.fetch('/', { headers: { accept: 'text/html,application/xhtml+xml,*/*' } });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/html');
    expect(res.headers.get('content-security-policy')).toContain("default-src 'self'");
    const page = await res.text();
    for (const href of ['/console', '/graphql', '/api/v1/docs', '/api/v1/openapi.json', '/healthz', '/readyz']) expect(page).toContain(`href="${href}"`);
  });

  test('GET / with Accept: application/json answers the same links as JSON', async ({ testApp }) => {
    const res = await testApp.fetch('/', { headers: { accept: 'application/json' } });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      service: 'tms-ingest',
      links: {
        console: '/console',
        graphiql: '/graphql',
        'api-reference': '/api/v1/docs',
        openapi: '/api/v1/openapi.json',
        liveness: '/healthz',
        readiness: '/readyz',
        metrics: '/metrics',
      },
    });
  });

  test('GET /api/v1/docs serves Redoc from the service itself over the OpenAPI document, without a key', async ({ testApp }) => {
    const res = await testApp.fetch('/api/v1/docs');
    expect(res.status).toBe(200);
    const page = await res.text();
    expect(page).toContain('spec-url="/api/v1/openapi.json"');
    expect(page).toContain('<script src="/api/v1/docs/redoc.standalone.js">');
    expect(page).not.toMatch(/(src|href)="(https?:)?\/\//);

    const script = await testApp.fetch('/api/v1/docs/redoc.standalone.js');
    expect(script.status).toBe(200);
    expect(script.headers.get('content-type')).toContain('javascript');
    const source = await script.text();
    expect(source).toContain('Redoc');
    expect(source).not.toContain('cdn.redoc.ly');
  });

  test('GraphiQL carries its scripts, styles and editor workers inline (no CDN)', async ({ testApp }) => {
    const res = await testApp.fetch('/graphql', { headers: { accept: 'text/html' } });
    const page = await res.text();
    expect(page).not.toMatch(/(src|href)="(https?:)?\/\//);
    expect(page).not.toContain('unpkg.com');
    expect(page).toContain('YogaGraphiQL.renderYogaGraphiQL');
  });

  test('GET /console serves the console page, its script, styles and Chart.js from the service under a strict CSP', async ({ testApp }) => {
    const res = await testApp.fetch('/console');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/html');
    const csp = res.headers.get('content-security-policy');
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self';");
    expect(csp).not.toContain('unsafe-inline');
    const page = await res.text();
    expect(page).not.toMatch(/(src|href)="(https?:)?\/\//);
    expect(page).not.toMatch(/<script>|<style>| style="/);
    for (const [path, type, text] of [
      ['/console/console.js', 'javascript', 'sessionStorage'],
      ['/console/console.css', 'text/css', '.cards'],
      ['/console/chart.umd.min.js', 'javascript', 'Chart'],
    ] as const) {
      const asset = await testApp.fetch(path);
      expect(asset.status, path).toBe(200);
      expect(asset.headers.get('content-type'), path).toContain(type);
      expect(await asset.text(), path).toContain(text);
    }
    // The console keeps keys out of localStorage.
    expect(await (await testApp.fetch('/console/console.js')).text()).not.toContain('localStorage');
  });

  test("the console page carries the service's record kinds as data: every kind of IngestRecordKind, each kind's lookup a Query field by permalink", async ({
    testApp,
    api,
  }) => {
    const page = await (await testApp.fetch('/console')).text();
    const block = /<script type="application\/json" id="record-kinds">([^<]*)<\/script>/.exec(page);
    expect(block, 'the data block console.js reads its kinds from').not.toBeNull();
    const kinds = JSON.parse(block![1]!) as { kind: string; title: string; label: string; type: string; lookup: string | null }[];
    // Checked against the GraphQL API the console talks to (not against the list the page is built from).
    type TypeRef = { name: string | null; ofType: TypeRef | null };
    const { data } = (
      await api.graphql(`{
        kinds: __type(name: "IngestRecordKind") { enumValues { name } }
        query: __type(name: "Query") { fields { name args { name } type { name ofType { name ofType { name } } } } }
      }`)
    ).body as { data: { kinds: { enumValues: { name: string }[] }; query: { fields: { name: string; args: { name: string }[]; type: TypeRef }[] } } };
    expect(kinds.map((k) => k.kind).sort()).toEqual(data.kinds.enumValues.map((value) => value.name).sort());
    const named = (type: TypeRef | null): string | null => (type ? (type.name ?? named(type.ofType)) : null);
    for (const { kind, title, label, type, lookup } of kinds) {
      expect(title, kind).toBe(`${label}s`);
      // The lookup reads one record of the kind's type by its permalink, tombstones too: `<lookup>(permalink:, includeDeleted:)`.
      const byPermalink = data.query.fields.filter(
        (field) => named(field.type) === type && ['permalink', 'includeDeleted'].every((arg) => field.args.some((a) => a.name === arg)),
      );
      expect(
        byPermalink.map((field) => field.name),
        kind,
      ).toEqual(lookup ? [lookup] : []);
    }
    expect(kinds.filter((k) => k.lookup).map((k) => [k.lookup, k.type])).toEqual([
      ['carrier', 'Carrier'],
      ['load', 'Load'],
      ['loadLeg', 'LoadLeg'],
      ['stop', 'Stop'],
    ]);
  });

  test('other methods on the pages answer 405, unknown paths the JSON 404', async ({ testApp }) => {
    for (const [method, path, status, code] of [
      ['POST', '/', 405, 'method_not_allowed'],
      ['POST', '/api/v1/docs', 405, 'method_not_allowed'],
      ['GET', '/api/v1/docs/', 404, 'not_found'],
      ['GET', '/docs', 404, 'not_found'],
    ] as const) {
      const res = await testApp.fetch(path, { method });
      expect(res.status, `${method} ${path}`).toBe(status);
      expect((await res.json()).error.code).toBe(code);
    }
  });
});
