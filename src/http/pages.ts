/**
 * The pages a person opens in a browser: `GET /` (links to everything, or JSON for
 * `Accept: application/json`) and the REST API reference at `GET /api/v1/docs` (Redoc over the OpenAPI
 * document). Every asset comes from the project's own dependencies, so the pages work without internet
 * access; a Content-Security-Policy keeps the browser from asking any other host.
 * Other methods on these paths are answered 405 before this plugin (`methods.ts`).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Plugin } from 'graphql-yoga';
import { json } from './respond.js';

/** Where things are; the landing page and its JSON twin list these. */
const pagePaths = {
  home: '/',
  apiReference: '/api/v1/docs',
  redocScript: '/api/v1/docs/redoc.standalone.js',
  openapi: '/api/v1/openapi.json',
  console: '/console',
  graphql: '/graphql',
  liveness: '/healthz',
  readiness: '/readyz',
  metrics: '/metrics',
} as const;

/** The 404 message of an unknown path: it points to the start page, which lists what the service serves. */
export const noRouteMessage = (path: string) =>
  `No route ${path}. See GET ${pagePaths.home} for what this service serves (console, GraphiQL, API reference, OpenAPI document, health).`;

/** The paths this plugin answers, with GET (the method plugin's table, the metrics' `route` label). */
export const pageRoutes = [pagePaths.home, pagePaths.apiReference, pagePaths.redocScript].map((path) => ({ path, method: 'GET' as const }));

const contentSecurityPolicy = [
  "default-src 'self'",
  "script-src 'self' 'unsafe-inline' blob:",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "font-src 'self' data:",
  "worker-src 'self' blob:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

const html = (body: string) =>
  new Response(body, {
    headers: { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': contentSecurityPolicy },
  });

const links = [
  {
    rel: 'console',
    href: pagePaths.console,
    title: 'Console',
    text: 'Ingest health charts, rejections, status mapping, record lookup and (admin key) tenants.',
  },
  { rel: 'graphiql', href: pagePaths.graphql, title: 'GraphiQL', text: 'Query loads, carriers and ingest health over GraphQL (needs an API key).' },
  { rel: 'api-reference', href: pagePaths.apiReference, title: 'REST API reference', text: 'Every ingestion route, field and error.' },
  { rel: 'openapi', href: pagePaths.openapi, title: 'OpenAPI document', text: 'The same as JSON, for code generators and linters.' },
  { rel: 'liveness', href: pagePaths.liveness, title: 'Liveness', text: '200 while the process serves HTTP.' },
  { rel: 'readiness', href: pagePaths.readiness, title: 'Readiness', text: '200 when the database answers.' },
  { rel: 'metrics', href: pagePaths.metrics, title: 'Metrics', text: 'Prometheus text format.' },
] as const;

const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

const homePage = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>tms-ingest</title>
<style>
  body { font: 16px/1.5 system-ui, sans-serif; max-width: 44rem; margin: 3rem auto; padding: 0 1rem; color: #1f2933; }
  h1 { font-size: 1.6rem; margin-bottom: .25rem; }
  li { margin: .6rem 0; }
  a { font-weight: 600; color: #0b57d0; }
  code { background: #f1f3f5; padding: 0 .25rem; border-radius: 3px; }
</style>
</head>
<body>
<h1>tms-ingest</h1>
<p>Transport management systems push carriers, loads, legs, stops and load updates to <code>/api/v1</code>
with their tenant's <code>X-API-Key</code>; the same data is read over GraphQL.</p>
<ul>
${links.map((l) => `  <li><a rel="${l.rel}" href="${escapeHtml(l.href)}">${escapeHtml(l.title)}</a> <code>${escapeHtml(l.href)}</code><br>${escapeHtml(l.text)}</li>`).join('\n')}
</ul>
</body>
</html>
`;

const homeJson = {
  service: 'tms-ingest',
  links: Object.fromEntries(links.map((l) => [l.rel, l.href])),
};

/**
 * Redoc's theme: code (the request and response samples) wraps its long lines instead of running past
 * the right panel's edge, which at 1280 px is about 400 px wide (issue 37); the page's style lets a
 * JSON sample break inside a long name or value too (it has no space to wrap at).
 */
const redocTheme = JSON.stringify({ typography: { code: { wrap: true } }, rightPanel: { width: '50%' } });

const apiReferencePage = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>tms-ingest REST API reference</title>
<style>body { margin: 0; } .redoc-json, .redoc-json code { overflow-wrap: anywhere; }</style>
</head>
<body>
<redoc spec-url="${pagePaths.openapi}" hide-hostname="false" expand-responses="200" path-in-middle-panel="true" theme='${redocTheme}'></redoc>
<script src="${pagePaths.redocScript}"></script>
</body>
</html>
`;

/** The one asset Redoc's bundle fetches from another host (the logo in its "API docs by Redocly" link). */
const redocRemoteLogo = '"https://cdn.redoc.ly/redoc/logo-mini.svg"';
const emptySvg = `"data:image/svg+xml,${encodeURIComponent('<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"/>')}"`;

/** Redoc's self-contained browser bundle, read once from node_modules, with the remote logo replaced. */
let redocScript: string | undefined;
function loadRedocScript(): string {
  if (redocScript) return redocScript;
  const bundle = readFileSync(createRequire(import.meta.url).resolve('redoc/bundles/redoc.standalone.js'), 'utf8');
  // A Redoc upgrade that moves the logo must not silently bring back a request to the CDN.
  if (!bundle.includes(redocRemoteLogo)) throw new Error(`Redoc's bundle no longer contains ${redocRemoteLogo}: check it for remote assets.`);
  redocScript = bundle.replaceAll(redocRemoteLogo, emptySvg);
  return redocScript;
}

/** Wants JSON rather than a page: asks for application/json and not for HTML. */
const wantsJson = (request: Request) => {
  const accept = request.headers.get('accept') ?? '';
  return accept.includes('application/json') && !accept.includes('text/html');
};

export function useDocsPages(): Plugin {
  return {
    onRequest({ request, url, endResponse }) {
      if (request.method !== 'GET') return;
      switch (url.pathname) {
        case pagePaths.home:
          return endResponse(wantsJson(request) ? json(200, homeJson) : html(homePage));
        case pagePaths.apiReference:
          return endResponse(html(apiReferencePage));
        case pagePaths.redocScript:
          return endResponse(
            new Response(loadRedocScript(), {
              headers: { 'content-type': 'text/javascript; charset=utf-8', 'cache-control': 'public, max-age=3600' },
            }),
          );
      }
    },
  };
}
