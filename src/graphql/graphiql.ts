import { css, editorWorkerService, favicon, graphqlWorker, js, jsonWorker } from '@graphql-yoga/render-graphiql/graphiql';
import type { GraphiQLOptions } from 'graphql-yoga';

/** What GraphiQL (GET /graphql in a browser) opens with: a query a newcomer can run as is. */
const graphiqlDefaultQuery = `# Enter your tenant's API key in the Headers pane below (X-API-Key), then run.
query RecentLoads {
  viewer { slug name }
  loads(first: 10) {
    totalCount
    pageInfo { hasNextPage endCursor }
    edges {
      node {
        permalink
        status
        phase
        bolNumber
        tmsUrl
        changedAt
        legs {
          sequence
          carrier { name mcNumber }
          driverName
          stops { sequence type city appointmentStart arrivedAt }
        }
        updates(first: 1) { type occurredAt message city state }
      }
    }
  }
}
`;

/** What the headers pane shows until a key is entered. */
const apiKeyPlaceholder = '<your API key>';

/** GraphiQL's settings (serialised into the page). */
export const graphiqlOptions: GraphiQLOptions = {
  title: 'tms-ingest GraphQL',
  defaultQuery: graphiqlDefaultQuery,
  // The page loads without a key; each request sends the one entered in the headers pane.
  headers: JSON.stringify({ 'X-API-Key': apiKeyPlaceholder }, null, 2),
  shouldPersistHeaders: true,
};

/** `JSON.stringify` that is safe inside an inline `<script>`. */
const scriptJson = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c');

/**
 * The browser side of the key handling. The key typed into the headers pane is kept in localStorage
 * (so a new GraphiQL tab or browser tab starts with it) and, once it changes, the schema is fetched
 * again: introspection needs a key, so the first fetch (without one) fails.
 */
const keyHandling = (placeholder: string) => `
  var storageKey = 'tms-ingest:graphiql-api-key';
  var placeholder = ${scriptJson(placeholder)};
  var saved = null;
  try { saved = localStorage.getItem(storageKey); } catch (e) {}
  opts.headers = JSON.stringify({ 'X-API-Key': saved || placeholder }, null, 2);
  // GraphiQL restores its stored tabs and activates the one holding this query and these headers
  // (adding it when none does); without a query it would add an empty tab on every reload.
  opts.query = opts.defaultQuery;
  var lastKey = saved;
  var timer;
  function keyIn(text) {
    try {
      var headers = JSON.parse(text);
      for (var name in headers) {
        if (name.toLowerCase() === 'x-api-key' && typeof headers[name] === 'string') return headers[name].trim();
      }
    } catch (e) {}
    return null;
  }
  opts.onEditHeaders = function (text) {
    clearTimeout(timer);
    timer = setTimeout(function () {
      var key = keyIn(text);
      if (!key || key === placeholder || key === lastKey) return;
      lastKey = key;
      try { localStorage.setItem(storageKey, key); } catch (e) {}
      var refetch = document.querySelector('[aria-label^="Re-fetch GraphQL schema"]');
      if (refetch) refetch.click();
    }, 400);
  };
`;

let page: string | undefined;

/**
 * Yoga's GraphiQL page with every asset inlined from `@graphql-yoga/render-graphiql` (the stock page
 * loads them from a CDN and stays blank offline). Built once: the options never change.
 */
export const renderGraphiQLPage = (options: GraphiQLOptions): string =>
  (page ??= `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>${options.title ?? 'GraphiQL'}</title>
<link rel="icon" href="${favicon}">
<style>${css}</style>
</head>
<body id="body" class="no-focus-outline">
<noscript>GraphiQL needs JavaScript.</noscript>
<div id="root"></div>
<script>
  function prepareBlob(source) { return URL.createObjectURL(new Blob([source], { type: 'application/javascript' })); }
  var workers = {
    editorWorkerService: prepareBlob(${JSON.stringify(editorWorkerService)}),
    json: prepareBlob(${JSON.stringify(jsonWorker)}),
    graphql: prepareBlob(${JSON.stringify(graphqlWorker)}),
  };
  self.MonacoEnvironment = { globalAPI: false, getWorkerUrl: function (moduleId, label) { return workers[label]; } };
</script>
<script>${js}</script>
<script>
(function () {
  var opts = ${scriptJson(options)};
${keyHandling(apiKeyPlaceholder)}
  YogaGraphiQL.renderYogaGraphiQL(document.getElementById('root'), opts);
})();
</script>
</body>
</html>
`);
