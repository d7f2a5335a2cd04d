/**
 * The integration console at `GET /console` (issue 20): a static page, script, styles and icon over the public
 * GraphQL API (no private endpoints). Every asset comes from the repository (`src/console/`) or
 * node_modules (Chart.js), so it works offline; a strict Content-Security-Policy allows scripts,
 * styles and requests from this origin only (no inline script or style). The page carries the record
 * kinds of the registry as data (`consoleKinds`), so the console lists a kind added later by itself.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Plugin } from 'graphql-yoga';
import { recordSpecs } from '../domain/registry.js';
import { camelCase } from '../domain/declaration/fields.js';
import { codeFile } from '../paths.js';

/**
 * The record kinds as the console names them, in registry order: `kind` as `IngestRecordKind` says it
 * (data quality's cards), `title` (the cards' heading, the label's plural), `label` and the GraphQL
 * `type` of its records, and `lookup`: the Query field reading one record by its permalink (the kind's
 * name in camelCase, `graphql/by-permalink.ts`), or null when the kind has none (load updates).
 */
const consoleKinds = recordSpecs.map((spec) => ({
  kind: spec.kind.toUpperCase(),
  title: `${spec.label}s`,
  label: spec.label,
  type: spec.model,
  lookup: spec.graphql.rootFields.find((field) => field === camelCase(spec.kind)) ?? null,
}));

/** The page's data block the kinds are written into (`console.html`: an empty list, `[]`). */
const kindsBlock = /(<script type="application\/json" id="record-kinds">)\s*\[\]\s*(<\/script>)/;

/** The page with the record kinds in its data block (`<` escaped, so no value can end the block). */
function withKinds(page: string): string {
  if (!kindsBlock.test(page)) throw new Error('console.html has no <script type="application/json" id="record-kinds">[]</script>');
  const kinds = JSON.stringify(consoleKinds).replaceAll('<', '\\u003c');
  return page.replace(kindsBlock, (_, open: string, close: string) => `${open}${kinds}${close}`);
}

const consolePaths = {
  page: '/console',
  script: '/console/console.js',
  styles: '/console/console.css',
  chart: '/console/chart.umd.min.js',
  icon: '/console/favicon.svg',
} as const;

const contentSecurityPolicy = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

// src/console/ under tsx, dist/console/ (copied by the build) when compiled.
const fromRepository = (file: string) => codeFile(`console/${file}`);

/** Path → where its bytes come from (and what the service writes into them) and their type; read once, on first request. */
const assets: Record<string, { source: () => string; type: string; fill?: (text: string) => string }> = {
  [consolePaths.page]: { source: () => fromRepository('console.html'), type: 'text/html; charset=utf-8', fill: withKinds },
  [consolePaths.script]: { source: () => fromRepository('console.js'), type: 'text/javascript; charset=utf-8' },
  [consolePaths.styles]: { source: () => fromRepository('console.css'), type: 'text/css; charset=utf-8' },
  [consolePaths.icon]: { source: () => fromRepository('favicon.svg'), type: 'image/svg+xml' },
  [consolePaths.chart]: {
    // Chart.js exports no path to its browser bundle; it sits beside the CommonJS entry.
    source: () => join(dirname(createRequire(import.meta.url).resolve('chart.js')), 'chart.umd.min.js'),
    type: 'text/javascript; charset=utf-8',
  },
};
const loaded = new Map<string, string>();

/** The paths this plugin answers, with GET (the method plugin's table, the metrics' `route` label). */
export const consoleRoutes = Object.values(consolePaths).map((path) => ({ path, method: 'GET' as const }));

export function useConsole(): Plugin {
  return {
    onRequest({ request, url, endResponse }) {
      const asset = request.method === 'GET' ? assets[url.pathname] : undefined;
      if (!asset) return;
      let body = loaded.get(url.pathname);
      if (body === undefined) {
        const text = readFileSync(asset.source(), 'utf8');
        body = asset.fill ? asset.fill(text) : text;
        loaded.set(url.pathname, body);
      }
      endResponse(
        new Response(body, {
          headers: {
            'content-type': asset.type,
            'content-security-policy': contentSecurityPolicy,
            'x-content-type-options': 'nosniff',
            'referrer-policy': 'no-referrer',
            'cache-control': 'no-cache',
          },
        }),
      );
    },
  };
}
