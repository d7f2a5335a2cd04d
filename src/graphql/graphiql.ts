import { shouldRenderGraphiQL, type GraphiQLOptions, type Plugin } from 'graphql-yoga';

/** What GraphiQL (GET /graphql in a browser) opens with: a query a newcomer can run as is. */
const graphiqlDefaultQuery = `# Enter your tenant's API key in the
# Headers pane below (X-API-Key), then run.
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
          stops {
            sequence
            type
            city
            appointmentStart
            arrivedAt
          }
        }
        updates(first: 1) {
          type
          occurredAt
          message
          city
          state
        }
      }
    }
  }
}
`;

/** What the headers pane shows until a key is entered. */
const apiKeyPlaceholder = '<your API key>';

/** GraphiQL's settings (serialised into the page). */
const graphiqlOptions: GraphiQLOptions = {
  title: 'tms-ingest GraphQL',
  defaultQuery: graphiqlDefaultQuery,
  // The page loads without a key; each request sends the one entered in the headers pane.
  headers: JSON.stringify({ 'X-API-Key': apiKeyPlaceholder }, null, 2),
  // Headers stay out of localStorage (GraphiQL would keep the key there for good); the key typed
  // lives in sessionStorage only (keyHandling).
  shouldPersistHeaders: false,
};

/** `JSON.stringify` that is safe inside an inline `<script>`. */
const scriptJson = (value: unknown) => JSON.stringify(value).replace(/</g, '\\u003c');

/**
 * The browser side of the key handling (issue 20). GraphiQL's requests pass through `fetch`, wrapped
 * here: a request whose X-API-Key is missing or still the placeholder never leaves the page.
 * - The key typed in any tab's headers pane (or sent by it) is kept in sessionStorage: every tab,
 *   new (+) or restored, and a reload use it until the browser tab's session ends; nothing goes to
 *   localStorage.
 * - Without a key yet, the schema request (introspection) waits until one is typed, so the page opens
 *   without an error; a query run without a key answers with a hint to enter one, locally.
 */
const keyHandling = (placeholder: string) => `
  var storageKey = 'tms-ingest:graphiql-api-key';
  var placeholder = ${scriptJson(placeholder)};
  var sessionKey = null;
  try {
    sessionKey = sessionStorage.getItem(storageKey);
    // Earlier versions kept the key in localStorage: remove it.
    localStorage.removeItem(storageKey);
  } catch (e) {}
  if (sessionKey) opts.headers = JSON.stringify({ 'X-API-Key': sessionKey }, null, 2);
  // GraphiQL restores its stored tabs and activates the one holding this query and these headers
  // (adding it when none does); without a query it would add an empty tab on every reload.
  opts.query = opts.defaultQuery;
  var waiting = [];
  function remember(key) {
    if (!key || key === placeholder || key === sessionKey) return false;
    sessionKey = key;
    try { sessionStorage.setItem(storageKey, key); } catch (e) {}
    var ready = waiting;
    waiting = [];
    ready.forEach(function (send) { send(); });
    return true;
  }
  function keyIn(text) {
    try {
      var headers = JSON.parse(text);
      for (var name in headers) {
        if (name.toLowerCase() === 'x-api-key' && typeof headers[name] === 'string') return headers[name].trim();
      }
    } catch (e) {}
    return null;
  }
  var endpoint = new URL(opts.endpoint || location.pathname, location.href).href;
  var pageFetch = window.fetch.bind(window);
  window.fetch = function (input, init) {
    var url = new URL(typeof input === 'string' || input instanceof URL ? String(input) : input.url, location.href).href;
    if (url.split('?')[0] !== endpoint) return pageFetch(input, init);
    var headers = new Headers((init && init.headers) || (input instanceof Request ? input.headers : undefined));
    var given = (headers.get('x-api-key') || '').trim();
    if (given && given !== placeholder) {
      remember(given);
      return pageFetch(input, init);
    }
    function send() {
      headers.set('x-api-key', sessionKey);
      return pageFetch(input, Object.assign({}, init, { headers: headers }));
    }
    if (sessionKey) return send();
    var body = init && typeof init.body === 'string' ? init.body : '';
    if (body.indexOf('IntrospectionQuery') !== -1) {
      return new Promise(function (resolve, reject) {
        waiting.push(function () { send().then(resolve, reject); });
      });
    }
    var hint = { errors: [{ message: 'Enter your API key in the Headers pane: { "X-API-Key": "<your key>" }. Nothing was sent.' }] };
    return Promise.resolve(new Response(JSON.stringify(hint), { status: 200, headers: { 'content-type': 'application/json' } }));
  };
  var timer;
  opts.onEditHeaders = function (text) {
    clearTimeout(timer);
    timer = setTimeout(function () {
      var hadKey = !!sessionKey;
      // A first key releases the waiting schema request; a changed key fetches the schema again.
      if (remember(keyIn(text)) && hadKey) {
        var refetch = document.querySelector('[aria-label^="Re-fetch GraphQL schema"]');
        if (refetch) refetch.click();
      }
    }, 400);
  };
`;

/**
 * Every editor of the page (query, variables, headers, response, each tab's) wraps its long lines: at
 * 1280 px the query and headers panes are about 60 characters wide, and a line longer than that (a
 * comment, an API key) would otherwise scroll sideways, half hidden (issue 37).
 */
const wrapLines = `
  (function wrap(attempts) {
    var monaco = window.monaco;
    if (!monaco) return void (attempts && setTimeout(wrap, 50, attempts - 1));
    var wrapped = function (editor) { editor.updateOptions({ wordWrap: 'on' }); };
    monaco.editor.onDidCreateEditor(wrapped);
    monaco.editor.getEditors().forEach(wrapped);
  })(200);
`;

let page: Promise<string> | undefined;

/**
 * Yoga's GraphiQL page with every asset inlined from `@graphql-yoga/render-graphiql` (the stock page
 * loads them from a CDN and stays blank offline). Built once: the options never change. The assets
 * (about 9 MB of text, some 45 MB of memory once loaded) are imported on the first request for the
 * page, not at start: a server that nobody opens GraphiQL on never holds them.
 */
const renderGraphiQLPage = (options: GraphiQLOptions): Promise<string> => (page ??= buildPage(options));

/**
 * GraphiQL at `GET /graphql` for a browser (`Accept: text/html`; other requests there are GraphQL's).
 * Served by this plugin rather than Yoga's built-in one, which runs before every plugin of ours: this
 * one comes after the HEAD plugin (http/head.ts), so `HEAD /graphql` answers as this GET.
 */
export function useGraphiQLPage(endpoint: string): Plugin {
  return {
    onRequest({ request, url, endResponse, fetchAPI }) {
      if (url.pathname !== endpoint || !shouldRenderGraphiQL(request)) return;
      return renderGraphiQLPage(graphiqlOptions).then((body) =>
        endResponse(new fetchAPI.Response(body, { headers: { 'content-type': 'text/html; charset=utf-8' } })),
      );
    },
  };
}

async function buildPage(options: GraphiQLOptions): Promise<string> {
  const { css, editorWorkerService, favicon, graphqlWorker, js, jsonWorker } = await import('@graphql-yoga/render-graphiql/graphiql');
  return `<!doctype html>
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
  // globalAPI: the editors are reached (below) to wrap their long lines.
  self.MonacoEnvironment = { globalAPI: true, getWorkerUrl: function (moduleId, label) { return workers[label]; } };
</script>
<script>${js}</script>
<script>
${wrapLines}
</script>
<script>
(function () {
  var opts = ${scriptJson(options)};
${keyHandling(apiKeyPlaceholder)}
  YogaGraphiQL.renderYogaGraphiQL(document.getElementById('root'), opts);
})();
</script>
</body>
</html>
`;
}
