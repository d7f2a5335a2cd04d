/**
 * The integration console at `GET /console` (issue 20): a static page, script, styles and icon over the public
 * GraphQL API (no private endpoints). Every asset comes from the repository (`src/console/`) or
 * node_modules (Chart.js), so it works offline; a strict Content-Security-Policy allows scripts,
 * styles and requests from this origin only (no inline script or style).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Plugin } from 'graphql-yoga';
import { codeFile } from '../paths.js';

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

/** Path → where its bytes come from and their type; read once, on first request. */
const assets: Record<string, { source: () => string; type: string }> = {
  [consolePaths.page]: { source: () => fromRepository('console.html'), type: 'text/html; charset=utf-8' },
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
        body = readFileSync(asset.source(), 'utf8');
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
