// The integration console (GET /console): a page over the public GraphQL API only. The key lives in
// sessionStorage (this browser tab's session); every value from the API is written as text, never HTML.
'use strict';

const keyStorage = 'tms-ingest:console-key';
const tenantStorage = 'tms-ingest:console-tenant';
const phases = ['PLANNED', 'COVERED', 'DISPATCHED', 'AT_PICKUP', 'IN_TRANSIT', 'AT_DELIVERY', 'DELIVERED', 'COMPLETED', 'CANCELLED'];
const outcomes = [
  ['processed', '#1b7f3b'],
  ['skipped', '#6b7280'],
  ['duplicate', '#b45309'],
  ['rejected', '#b91c1c'],
];
const state = { key: null, admin: false, tenant: null };
const charts = new Map();
const $ = (id) => document.getElementById(id);

function el(tag, text, attributes = {}) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = String(text);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  return node;
}

/** A rejection's field issues as a list (`field`: issue), or its first field when it kept no details. */
function fieldIssues(rejection) {
  if (!rejection.details?.length) return rejection.field;
  const list = el('ul', null, { class: 'issues' });
  for (const d of rejection.details) {
    const item = el('li');
    item.append(el('code', d.field), ` ${d.issue}`);
    list.append(item);
  }
  return list;
}

/** Identifies a rejection across refreshes (a body the user opened stays open). */
const rejectionKey = (r) => [r.at, r.source, r.kind, r.code, r.permalink].join('|');

/** A body behind a disclosure ("Body", "Body (truncated)" when it was cut), open when its key was open before a refresh. */
function bodyDisclosure(body, truncated, key, open) {
  if (body === null || body === undefined) return null;
  const details = el('details', null, { class: 'body', 'data-key': key });
  details.open = open.has(key);
  details.append(el('summary', truncated ? 'Body (truncated)' : 'Body'));
  const text = typeof body === 'string' && truncated ? body : JSON.stringify(body, null, 2);
  details.append(el('pre', text, { tabindex: '0' }));
  return details;
}

/** A rejection's body, collapsed until asked for, marked when it was cut. */
const rejectedBody = (rejection, open) => bodyDisclosure(rejection.body, rejection.bodyTruncated, rejectionKey(rejection), open);

/** The keys of the bodies open under a node (kept open across a refresh). */
const openBodies = (node) => new Set([...node.querySelectorAll('details.body[open]')].map((d) => d.dataset.key));

/** The console's tables, one description each: the region's label, the caption and the column headers. */
const tables = {
  tenants: [
    'Tenant list',
    'Every tenant, with its active keys, rate limit and stale intervals',
    ['Slug', 'Name', 'Keys', 'Rate limit', 'Stale after (pull / webhook / unspecified)', 'Actions'],
  ],
  mappings: ['Status mapping table', 'Current mapping', ['TMS status', 'Phase', 'Updated']],
  events: ['Events', 'Events (load updates), newest first', ['When', 'Type', 'Status', 'Phase', 'Where', 'Message']],
};

/** A table from its description (a scrollable, keyboard-reachable region), with its rows; the table gets the id. */
function table(id, rows = []) {
  const [label, caption, columns] = tables[id];
  const wrap = el('div', undefined, { class: 'table-wrap', tabindex: '0', role: 'region', 'aria-label': label });
  const node = el('table', undefined, { id });
  const head = el('tr');
  for (const name of columns) head.append(el('th', name, { scope: 'col' }));
  const thead = el('thead');
  thead.append(head);
  const tbody = el('tbody');
  tbody.append(...rows);
  node.append(el('caption', caption), thead, tbody);
  wrap.append(node);
  return wrap;
}

/**
 * One received body in a list (a rejection, a payload): its facts as name–value pairs that wrap at any
 * width, then its body across the whole entry (a table cell left bodies a narrow, unreadable column).
 */
function entry(facts, body) {
  const item = el('li', undefined, { class: 'entry' });
  const list = el('dl', undefined, { class: 'facts' });
  for (const [name, value] of facts) {
    const pair = el('div', undefined, { 'data-fact': name.toLowerCase() });
    const dd = el('dd');
    if (value instanceof Node) dd.append(value);
    else dd.textContent = value === null || value === undefined ? '—' : String(value);
    pair.append(el('dt', name), dd);
    list.append(pair);
  }
  item.append(list);
  if (body) item.append(body);
  return item;
}

function row(cells) {
  const tr = document.createElement('tr');
  for (const cell of cells) {
    const td = document.createElement('td');
    if (cell instanceof Node) td.append(cell);
    else td.textContent = cell === null || cell === undefined ? '—' : String(cell);
    tr.append(td);
  }
  return tr;
}

/** Shows an outcome in a feedback line: kind is 'error', 'busy' (waiting, retrying) or 'done'; empty text clears it. */
function show(feedback, kind, text) {
  feedback.textContent = text;
  feedback.dataset.kind = kind;
  if (kind === 'error') feedback.setAttribute('role', 'alert');
  else feedback.removeAttribute('role');
}

/** A 503 is retried with exponential backoff, never sooner than its Retry-After (seconds or an HTTP date). */
const retry = { attempts: 5, firstMs: 500, maxMs: 30_000 };

function retryDelay(retryAfter, attempt) {
  const seconds = Number(retryAfter);
  const asked = retryAfter === null ? 0 : Number.isFinite(seconds) ? seconds * 1000 : Math.max(0, Date.parse(retryAfter) - Date.now()) || 0;
  return Math.min(retry.maxMs, Math.max(asked, retry.firstMs * 2 ** attempt));
}

/**
 * A GraphQL request; its first error is thrown as an Error. While the service answers 503 (overloaded,
 * starting, its database away) the request is retried and `feedback` says so.
 */
async function graphql(query, variables = {}, { tenant = state.tenant, feedback = $('message') } = {}) {
  const headers = { 'content-type': 'application/json', 'x-api-key': state.key };
  if (state.admin && tenant) headers['x-tenant'] = tenant;
  let res;
  for (let attempt = 0; ; attempt++) {
    res = await fetch('/graphql', { method: 'POST', headers, body: JSON.stringify({ query, variables }) });
    if (res.status !== 503 || attempt === retry.attempts) break;
    const wait = retryDelay(res.headers.get('retry-after'), attempt);
    show(feedback, 'busy', `The service is busy (503): retrying… (in ${Math.ceil(wait / 1000)} s)`);
    await new Promise((resolve) => window.setTimeout(resolve, wait));
  }
  if (feedback.dataset.kind === 'busy') show(feedback, 'done', '');
  const body = await res.json().catch(() => null);
  // GraphQL's first error, or the contract's error body (a refusal before GraphQL: 401, 429, 503).
  const error = body?.errors?.[0] ?? body?.error;
  if (error) {
    const code = error.extensions?.code ?? error.code;
    throw new Error(`${error.message}${code ? ` (${code})` : ''}`);
  }
  if (!res.ok || !body) throw new Error(`The service answered ${res.status} ${res.statusText}; try again shortly.`);
  return body.data;
}

/**
 * Runs a user's action and shows its outcome in the feedback line of the form or area it came from:
 * its error, or the message it returns. Each attempt clears the line first: a success never leaves an
 * earlier error on screen.
 */
async function act(feedback, work) {
  show(feedback, 'busy', '');
  try {
    show(feedback, 'done', (await work(feedback)) ?? '');
  } catch (error) {
    show(feedback, 'error', error.message);
  }
}

/** The feedback line of a form. */
const feedbackOf = (form) => form.querySelector('.feedback');

const when = (iso) => (iso ? new Date(iso).toLocaleString() : 'never');

/** A number of seconds as people say it: "15 min", "2 h", "1 day", "1 h 30 min". */
function duration(seconds) {
  const parts = [];
  let rest = seconds;
  for (const [unit, size] of [
    ['day', 86_400],
    ['h', 3600],
    ['min', 60],
    ['s', 1],
  ]) {
    const count = Math.floor(rest / size);
    rest -= count * size;
    if (count) parts.push(unit === 'day' ? `${count} day${count === 1 ? '' : 's'}` : `${count} ${unit}`);
  }
  return parts.join(' ') || '0 s';
}

/** Where a load update was: its city and state, else its coordinates (a GPS ping), else nothing. */
function where(update) {
  const place = [update.city, update.state].filter(Boolean).join(', ');
  if (place) return place;
  if (update.latitude === null || update.longitude === null) return null;
  return `${update.latitude.toFixed(2)}, ${update.longitude.toFixed(2)}`;
}

async function signIn(key, feedback) {
  state.key = key;
  try {
    const data = await graphql('{ tenants { slug } }', {}, { tenant: null, feedback });
    state.admin = true;
    state.tenant = sessionStorage.getItem(tenantStorage) || (data.tenants[0] && data.tenants[0].slug) || null;
  } catch {
    state.admin = false;
    try {
      state.tenant = (await graphql('{ viewer { slug } }', {}, { feedback })).viewer.slug;
    } catch (error) {
      state.key = null;
      throw new Error(`Sign-in failed: ${error.message}`, { cause: error });
    }
  }
  sessionStorage.setItem(keyStorage, key);
  $('sign-in').hidden = true;
  $('sign-out').hidden = false;
  $('admin').hidden = !state.admin;
  await act($('message'), refresh);
}

function signOut() {
  sessionStorage.removeItem(keyStorage);
  sessionStorage.removeItem(tenantStorage);
  location.reload();
}

async function refresh() {
  $('who').textContent = state.admin ? `Admin${state.tenant ? `, showing tenant ${state.tenant}` : ''}` : `Tenant ${state.tenant}`;
  if (state.admin) await loadTenants();
  for (const id of ['health', 'rejections-section', 'statuses', 'quality', 'lookup']) $(id).hidden = !state.tenant;
  if (state.tenant) await loadTenantView();
  if (state.tenant) await loadQuality(feedbackOf($('quality-form')));
}

async function loadTenants() {
  const { tenants } = await graphql(
    '{ tenants { slug name activeKeyCount rateLimit { recordsPerSecond burst } staleAfterSeconds { pull webhook unspecified } } }',
    {},
    { tenant: null },
  );
  const picker = $('tenant-picker');
  picker.replaceChildren(...tenants.map((t) => el('option', `${t.slug} (${t.name})`, { value: t.slug })));
  if (!tenants.some((t) => t.slug === state.tenant)) state.tenant = tenants[0] ? tenants[0].slug : null;
  picker.value = state.tenant || '';
  for (const form of ['rate-form', 'stale-form']) $(form).hidden = !state.tenant;
  for (const name of document.querySelectorAll('.selected-tenant')) name.textContent = state.tenant || '';
  const body = $('tenants').tBodies[0];
  body.replaceChildren(
    ...tenants.map((t) => {
      const actions = el('span');
      const feedback = $('tenants-feedback');
      const rotate = el('button', 'Rotate key', { type: 'button', 'aria-label': `Rotate key of ${t.slug}` });
      rotate.addEventListener('click', () => act(feedback, () => rotateKey(t.slug, feedback)));
      const revoke = el('button', 'Revoke keys', { type: 'button', 'aria-label': `Revoke keys of ${t.slug}` });
      revoke.addEventListener('click', () => act(feedback, () => revokeKeys(t.slug, feedback)));
      actions.append(rotate, ' ', revoke);
      const rate = t.rateLimit.recordsPerSecond === null ? 'default' : t.rateLimit.recordsPerSecond === 0 ? 'off' : `${t.rateLimit.recordsPerSecond}/s`;
      const { pull, webhook, unspecified } = t.staleAfterSeconds;
      return row([t.slug, t.name, t.activeKeyCount, rate, [pull, webhook, unspecified].map(duration).join(' / '), actions]);
    }),
  );
}

function showKey(slug, apiKey) {
  $('new-key-tenant').textContent = slug;
  $('new-key-value').textContent = apiKey;
  show(feedbackOf($('new-key')), 'done', '');
  $('new-key').hidden = false;
}

async function rotateKey(slug, feedback) {
  const { rotateTenantKey } = await graphql(
    'mutation ($slug: String!) { rotateTenantKey(slug: $slug) { apiKey tenant { slug } } }',
    { slug },
    { tenant: null, feedback },
  );
  showKey(rotateTenantKey.tenant.slug, rotateTenantKey.apiKey);
  await loadTenants();
  return `Rotated the key of ${slug}: its old keys no longer work.`;
}

async function revokeKeys(slug, feedback) {
  const { revokeTenantKeys } = await graphql('mutation ($slug: String!) { revokeTenantKeys(slug: $slug) }', { slug }, { tenant: null, feedback });
  await loadTenants();
  return `Revoked ${revokeTenantKeys} key(s) of ${slug}.`;
}

const numberOrNull = (input) => (input.value.trim() === '' ? null : Number(input.value));

const healthQuery = `{
  ingestHealth {
    sources { source state lastReceivedAt staleAfterSeconds lastDay { processed skipped duplicate rejected }
              dryRun { lastHour { processed skipped duplicate rejected } lastDay { processed skipped duplicate rejected } }
              series(intervalMinutes: 60) { start processed skipped duplicate rejected } }
    unmappedStatusCounts { status loadCount }
    recentRejections { code message field details { field issue } permalink body bodyTruncated source kind at }
  }
  statusMappings { status phase updatedAt }
}`;

async function loadTenantView() {
  const data = await graphql(healthQuery);
  renderSources(data.ingestHealth.sources);
  const rejections = $('rejections');
  const open = openBodies(rejections);
  const list = data.ingestHealth.recentRejections;
  rejections.replaceChildren(
    ...(list.length
      ? list.map((r) =>
          entry(
            [
              ['When', when(r.at)],
              ['Source', r.source.toLowerCase()],
              ['Kind', r.kind],
              ['Code', r.code],
              ['Permalink', r.permalink],
              ['Fields', fieldIssues(r)],
              ['Message', r.message],
            ],
            rejectedBody(r, open),
          ),
        )
      : [el('li', 'None in the last day.')]),
  );
  renderStatuses(data.ingestHealth.unmappedStatusCounts, data.statusMappings);
}

/** All records of a count by outcome. */
const total = (counts) => outcomes.reduce((sum, [outcome]) => sum + counts[outcome], 0);

function renderSources(sources) {
  const container = $('sources');
  for (const source of sources) {
    const id = `source-${source.source.toLowerCase()}`;
    let card = document.getElementById(id);
    if (!card) {
      card = el('article', undefined, { id, class: 'card', 'data-source': source.source });
      card.append(el('h3', source.source.toLowerCase()), el('p', '', { class: 'state' }), el('p', '', { class: 'last' }), el('p', '', { class: 'dry-runs' }));
      const canvas = el('canvas', undefined, {
        role: 'img',
        'aria-label': `Records per hour by outcome over the last 24 hours, ${source.source.toLowerCase()}`,
      });
      const wrap = el('div', undefined, { class: 'chart' });
      wrap.append(canvas);
      card.append(wrap);
      container.append(card);
    }
    card.querySelector('.state').textContent = `State: ${source.state}`;
    card.querySelector('.state').dataset.state = source.state;
    card.querySelector('.last').textContent = `Last received: ${when(source.lastReceivedAt)} · stale after ${duration(source.staleAfterSeconds)}`;
    card.querySelector('.dry-runs').textContent =
      `dry runs: ${total(source.dryRun.lastHour)} in the last hour / ${total(source.dryRun.lastDay)} in the last day`;
    drawChart(card.querySelector('canvas'), source);
  }
}

/** Hours between two labelled ticks of the 24-hour chart (the last one, now's hour, is always labelled). */
const tickHours = 6;
const hourOf = (date) => date.toLocaleTimeString([], { hour: 'numeric' });
const dayOf = (date) => date.toLocaleDateString([], { weekday: 'short' });

function drawChart(canvas, source) {
  // Each interval's start as its hour and weekday (two lines): the axis runs from 24 hours ago to now's
  // hour, the same hour on two days (the hour alone read as an axis from "12:00 AM" to "12:00 AM").
  const starts = source.series.map((p) => new Date(p.start));
  const labels = starts.map((date) => [hourOf(date), dayOf(date)]);
  const datasets = outcomes.map(([outcome, color]) => ({ label: outcome, data: source.series.map((p) => p[outcome]), backgroundColor: color }));
  const existing = charts.get(source.source);
  if (existing) {
    existing.data.labels = labels;
    existing.data.datasets = datasets;
    existing.update();
    return;
  }
  charts.set(
    source.source,
    new window.Chart(canvas, {
      type: 'bar',
      data: { labels, datasets },
      options: {
        animation: false,
        maintainAspectRatio: false,
        scales: {
          x: {
            stacked: true,
            ticks: {
              autoSkip: false,
              maxRotation: 0,
              callback(value, index) {
                return (this.getLabels().length - 1 - index) % tickHours === 0 ? this.getLabelForValue(value) : null;
              },
            },
          },
          y: { stacked: true, beginAtZero: true, ticks: { precision: 0 } },
        },
        plugins: {
          tooltip: {
            callbacks: {
              title: ([item]) => {
                const start = new Date(source.series[item.dataIndex].start);
                return `${dayOf(start)} ${hourOf(start)} – ${hourOf(new Date(start.getTime() + 3_600_000))}`;
              },
            },
          },
        },
      },
    }),
  );
}

function renderStatuses(unmapped, mappings) {
  const feedback = $('statuses-feedback');
  $('unmapped').replaceChildren(
    ...(unmapped.length
      ? unmapped.map((u) => {
          const item = el('li');
          const select = el('select', undefined, { 'aria-label': `Phase for ${u.status}` });
          select.append(...phases.map((p) => el('option', p, { value: p })));
          const button = el('button', 'Map', { type: 'button', 'aria-label': `Map ${u.status}` });
          button.addEventListener('click', () =>
            act(feedback, async () => {
              await graphql(
                'mutation ($s: String!, $p: Phase!) { setStatusMapping(status: $s, phase: $p) { status phase } }',
                { s: u.status, p: select.value },
                { feedback },
              );
              // The mapping changes what the panels below show: the unmapped_status finding too.
              await loadTenantView();
              await loadQuality(feedbackOf($('quality-form')));
              return `"${u.status}" is now ${select.value}; its loads are re-phased.`;
            }),
          );
          item.append(el('span', `${u.status} (${u.loadCount} load${u.loadCount === 1 ? '' : 's'}) `), select, ' ', button);
          return item;
        })
      : [el('li', 'None: every stored load status has a phase.')]),
  );
  $('mappings').tBodies[0].replaceChildren(...mappings.map((m) => row([m.status, m.phase, when(m.updatedAt)])));
}

/**
 * The record kinds, in registry order, as the service wrote them into the page (src/http/console.ts
 * `consoleKinds`): `kind` (IngestRecordKind), `title`, `label`, the GraphQL `type` of its records and
 * `lookup`, its root field by permalink (null: no lookup, as for load updates).
 */
const recordKinds = JSON.parse($('record-kinds').textContent);
const kindNamed = (kind) => recordKinds.find((k) => k.kind === kind);

const qualityQuery = `query ($source: IngestSource) {
  dataQuality(source: $source) {
    since
    kinds { kind records writes fields { field feeds present missing recordsMissing missingExamples(first: 5) } }
    findings { code kind count message examples(first: 5) }
  }
}`;

const percent = (share) => `${Math.round(share * 100)} %`;
const counted = (count, one, many = `${one}s`) => `${count.toLocaleString('en-US')} ${count === 1 ? one : many}`;

/** A text of the API whose `code` spans are written in backticks (a field's feeds, a message), as text and code elements. */
function withCode(text) {
  return String(text)
    .split('`')
    .map((part, i) => (i % 2 ? el('code', part) : document.createTextNode(part)));
}

/**
 * A record's permalink to fix: a button opening it in the record lookup (its payload history shows what
 * the TMS sent), or, for a load update (no lookup by permalink), the permalink as text.
 */
function recordLink(kind, permalink) {
  const lookup = kindNamed(kind)?.lookup;
  if (!lookup) return el('code', permalink);
  const button = el('button', permalink, { type: 'button', 'data-lookup': lookup, title: 'Open in the record lookup' });
  button.addEventListener('click', () => openRecord(lookup, permalink));
  return button;
}

/** "To fix: a, b, c" (nothing when there is no example). */
function toFix(kind, permalinks) {
  if (!permalinks.length) return [];
  const line = el('p', 'To fix: ', { class: 'to-fix' });
  permalinks.forEach((permalink, i) => line.append(...(i ? [' '] : []), recordLink(kind, permalink)));
  return [line];
}

/**
 * One recommended field: how many of the kind's records leave it empty (its bar: the share present),
 * the writes that carried it (counted apart: a re-post is a write, not a record), what it feeds, the
 * records to fix.
 */
function coverageItem(kind, records, f, sourceName) {
  const item = el('li', undefined, {
    'data-field': f.field,
    'data-records-missing': String(f.recordsMissing),
    'data-present': String(f.present),
    'data-missing': String(f.missing),
  });
  const head = el('div', undefined, { class: 'coverage-head' });
  head.append(
    el('code', f.field),
    el('span', records ? `${f.recordsMissing} of ${counted(records, 'record')} missing (${percent(f.recordsMissing / records)})` : 'no records', {
      class: 'share',
    }),
  );
  // The bar draws what the share's text says (read by screen readers): hidden from them.
  const bar = el('div', undefined, { class: 'bar', 'aria-hidden': 'true' });
  const filled = el('span');
  filled.style.width = records ? `${((records - f.recordsMissing) / records) * 100}%` : '0';
  bar.append(filled);
  const writes = f.present + f.missing;
  const writesLine = el('p', writes ? `Writes${sourceName}: ${f.missing} of ${counted(writes, 'write')} left it empty` : `Writes${sourceName}: none`, {
    class: 'writes',
  });
  const feeds = el('p', 'Feeds: ', { class: 'feeds' });
  feeds.append(...withCode(f.feeds));
  item.append(head, bar, writesLine, feeds, ...toFix(kind, f.missingExamples));
  return item;
}

/**
 * One kind's card: its records and writes, the fields its records leave empty first (most records
 * first), the complete ones folded. A kind with nothing to fix is folded whole.
 */
function kindCard(k, sourceName) {
  const toMend = k.fields.filter((f) => f.recordsMissing > 0).sort((a, b) => b.recordsMissing - a.recordsMissing);
  const complete = k.fields.filter((f) => f.recordsMissing === 0);
  const card = el('details', undefined, {
    class: 'kind-quality',
    'data-kind': k.kind,
    'data-records': String(k.records),
    'data-writes': String(k.writes),
    'data-to-fix': String(toMend.length),
  });
  card.open = toMend.length > 0;
  const verdict = !k.records
    ? 'nothing written in the window'
    : toMend.length
      ? `${counted(toMend.length, 'field')} to fix`
      : 'every recommended field present';
  const summary = el('summary');
  summary.append(
    el('span', kindNamed(k.kind)?.title ?? k.kind, { class: 'kind-title' }),
    ` ${counted(k.records, 'record')} · ${counted(k.writes, 'write')}${sourceName} · `,
    el('span', verdict, { class: 'verdict', 'data-verdict': toMend.length ? 'fix' : 'ok' }),
  );
  card.append(summary);
  if (toMend.length) {
    const list = el('ul', undefined, { class: 'coverage' });
    list.append(...toMend.map((f) => coverageItem(k.kind, k.records, f, sourceName)));
    card.append(list);
  }
  if (complete.length) {
    const rest = el('details', undefined, { class: 'complete' });
    rest.open = !toMend.length && k.records > 0;
    rest.append(el('summary', k.records ? `${counted(complete.length, 'field')} present in every record` : `${counted(complete.length, 'recommended field')}`));
    const list = el('ul', undefined, { class: 'coverage' });
    list.append(...complete.map((f) => coverageItem(k.kind, k.records, f, sourceName)));
    rest.append(list);
    card.append(rest);
  }
  return card;
}

async function loadQuality(feedback) {
  const select = $('quality-source');
  const source = select.value || null;
  const sourceName = source ? ` (${select.selectedOptions[0].text})` : '';
  const { dataQuality } = await graphql(qualityQuery, { source }, { feedback });
  // What needs fixing first: the kinds with fields to fix, then the complete ones, then the empty ones (each in posting order).
  const rank = (k) => (k.fields.some((f) => f.recordsMissing > 0) ? 0 : k.records ? 1 : 2);
  const kinds = dataQuality.kinds.map((k, i) => ({ k, i })).sort((a, b) => rank(a.k) - rank(b.k) || a.i - b.i);
  $('quality-kinds').replaceChildren(...kinds.map(({ k }) => kindCard(k, sourceName)));
  const found = dataQuality.findings.filter((f) => f.count > 0).sort((a, b) => b.count - a.count);
  $('findings').replaceChildren(
    ...(found.length
      ? found.map((f) => {
          const item = el('li', undefined, { 'data-code': f.code, 'data-count': String(f.count) });
          item.append(el('code', f.code), ' ', ...withCode(f.message), ...toFix(f.kind, f.examples));
          return item;
        })
      : [el('li', 'None: no check found anything in the window.')]),
  );
  return '';
}

/** Opens a record in the lookup (its kind and permalink filled in) and shows it. */
function openRecord(kind, permalink) {
  $('lookup-kind').value = kind;
  labelLookup();
  $('permalink').value = permalink;
  $('lookup').scrollIntoView();
  void act(feedbackOf($('lookup-form')), (feedback) => lookUp(permalink, feedback));
}

/** The permalink field's label names the kind looked up ("Stop permalink"). */
function labelLookup() {
  const select = $('lookup-kind');
  $('permalink-label').textContent = `${select.options[select.selectedIndex].text} permalink`;
}

/** What the TMS sent for a record, newest first (its payload history), each body behind a disclosure. */
function payloadHistory(record, permalink, history, what) {
  const open = openBodies(record);
  const payloads = el('ol', undefined, { id: 'history', class: 'entries', 'aria-label': `What the TMS sent for this ${what}, newest first` });
  payloads.append(
    ...history.map((h) =>
      entry(
        [
          ['Received', when(h.receivedAt)],
          ['Source', h.source.toLowerCase()],
          ['Outcome', h.outcome.toLowerCase()],
          ['Changed', h.changed ? 'yes' : 'no'],
          ['Request id', h.requestId],
          // The parameters explain an outcome: a skipped write's sync_run_time is older than the stored one.
          ['Parameters', h.query === null ? 'none' : el('code', h.query)],
        ],
        bodyDisclosure(h.body, false, `${permalink}|${h.receivedAt}|${h.requestId}`, open),
      ),
    ),
  );
  return history.length ? payloads : el('p', `Nothing received for this ${what} is kept.`);
}

/** What the lookup reads of a record's payload history (the load's lookup spells it out: its query is one literal, tests read it). */
const historySelection = 'history(first: 20) { receivedAt source outcome changed requestId query body }';

/**
 * A permalink not found: permalinks end in the tenant's slug (`<id>-<company_permalink>`), so an id
 * without it is suggested with it, and a button looks the suggestion up.
 */
function notFound(what, permalink) {
  const suffix = `-${state.tenant}`;
  const record = $('record');
  if (!state.tenant || permalink.endsWith(suffix)) {
    record.replaceChildren();
    return new Error(`No ${what} ${permalink} in this tenant.`);
  }
  const suggested = `${permalink}${suffix}`;
  const retry = el('button', `Look up ${suggested}`, { type: 'button', id: 'suggested-permalink' });
  retry.addEventListener('click', () => openRecord($('lookup-kind').value, suggested));
  record.replaceChildren(retry);
  return new Error(`No ${what} ${permalink} in this tenant. Permalinks end in the tenant's slug (<id>${suffix}): did you mean ${suggested}?`);
}

/** A GraphQL type with its wrappers (non-null, list) taken off, and whether a list was among them. */
function unwrapped(type) {
  let list = false;
  let t = type;
  while (t.ofType) {
    if (t.kind === 'LIST') list = true;
    t = t.ofType;
  }
  if (t.kind === 'LIST') list = true;
  return { ...t, fields: t.fields ?? type.fields ?? type.ofType?.fields ?? null, list };
}

/** The stored fields and parents of each looked-up type, read once from the schema. */
const shapes = new Map();

/**
 * What a kind's record stores, from the GraphQL schema (itself derived from the kind's declaration):
 * its stored contract fields (each described "`<contract field>`: …", in the object's order) and its
 * parents (object fields without arguments: their permalink, and their name when they have one).
 */
async function shapeOf(typeName, feedback) {
  if (shapes.has(typeName)) return shapes.get(typeName);
  const { __type } = await graphql(
    `query ($t: String!) { __type(name: $t) { fields { name description args { name }
       type { kind name fields { name } ofType { kind name fields { name } ofType { kind name fields { name } } } } } } }`,
    { t: typeName },
    { feedback },
  );
  const stored = [];
  const parents = [];
  for (const field of __type.fields) {
    const type = unwrapped(field.type);
    const contract = /^`([a-z0-9_]+)`: /.exec(field.description ?? '');
    if (contract && field.name !== 'permalink' && type.kind !== 'OBJECT') stored.push({ name: field.name, label: contract[1], type: type.name });
    else if (type.kind === 'OBJECT' && !type.list && !field.args.length && type.fields?.some((f) => f.name === 'permalink')) {
      parents.push({ name: field.name, type: type.name, named: type.fields.some((f) => f.name === 'name') });
    }
  }
  const shape = { stored, parents };
  shapes.set(typeName, shape);
  return shape;
}

/** A stored value as text: date-times in local time, the rest as stored. */
const shown = (value, type) => (value === null || value === undefined ? '—' : type === 'DateTime' ? when(value) : String(value));

/** A record of any kind but a load in the lookup (a leg, a stop, a carrier): every field it stores (from the schema), its parents, and its payload history. */
async function lookUpOther(kind, permalink, feedback) {
  const what = $('lookup-kind').selectedOptions[0].text.toLowerCase();
  const shape = await shapeOf(recordKinds.find((k) => k.lookup === kind).type, feedback);
  const parents = shape.parents.map((p) => `${p.name} { permalink${p.named ? ' name' : ''} }`).join(' ');
  const data = await graphql(
    `query ($p: String!) { record: ${kind}(permalink: $p, includeDeleted: true) { permalink changedAt deletedAt
       ${shape.stored.map((f) => f.name).join(' ')} ${parents} ${historySelection} } }`,
    { p: permalink },
    { feedback },
  );
  const record = $('record');
  if (!data.record) throw notFound(what, permalink);
  const found = data.record;
  const summary = el('dl', undefined, { id: 'load-summary' });
  const pair = (name, value, key = name.toLowerCase()) => {
    const dd = el('dd', undefined, { 'data-field': key });
    if (value instanceof Node) dd.append(value);
    else dd.textContent = value ?? '—';
    summary.append(el('dt', name), dd);
  };
  pair('Kind', what);
  pair('Permalink', found.permalink);
  for (const f of shape.stored) pair(f.label, shown(found[f.name], f.type), f.label);
  for (const p of shape.parents) {
    const parent = found[p.name];
    if (!parent) pair(p.name, '—');
    else {
      const lookup = recordKinds.find((k) => k.type === p.type)?.lookup;
      const link = lookup
        ? el('button', parent.permalink, { type: 'button', class: 'link', title: 'Open in the record lookup' })
        : el('code', parent.permalink);
      if (lookup) link.addEventListener('click', () => openRecord(lookup, parent.permalink));
      const value = el('span');
      value.append(...(p.named && parent.name ? [`${parent.name} `] : []), link);
      pair(p.name, value);
    }
  }
  pair('Changed', when(found.changedAt));
  pair('Deleted', found.deletedAt ? when(found.deletedAt) : 'no');
  record.replaceChildren(summary, el('h3', 'Payload history'), payloadHistory(record, found.permalink, found.history, what));
}

async function lookUp(permalink, feedback) {
  const kind = $('lookup-kind').value;
  if (kind !== 'load') return lookUpOther(kind, permalink, feedback);
  const { load } = await graphql(
    `query ($p: String!) { load(permalink: $p, includeDeleted: true) { permalink tmsId status phase customerName bolNumber changedAt deletedAt
       legs { permalink sequence carrier { name } stops { permalink sequence type city state appointmentStart arrivedAt } }
       updates(first: 20) { type occurredAt status phase city state latitude longitude message }
       phaseHistory { fromPhase toPhase changedAt }
       history(first: 20) { receivedAt source outcome changed requestId query body } } }`,
    { p: permalink },
    { feedback },
  );
  const record = $('record');
  if (!load) throw notFound('load', permalink);
  const summary = el('dl', undefined, { id: 'load-summary' });
  for (const [name, value] of [
    ['Permalink', load.permalink],
    ['Status', load.status],
    ['Phase', load.phase],
    ['Customer', load.customerName],
    ['BOL', load.bolNumber],
    ['Changed', when(load.changedAt)],
    ['Deleted', load.deletedAt ? when(load.deletedAt) : 'no'],
  ]) {
    summary.append(el('dt', name), el('dd', value ?? '—', { 'data-field': name.toLowerCase() }));
  }
  const deleted = load.deletedAt ? [el('p', `Deleted: the TMS deleted this load on ${when(load.deletedAt)}.`, { id: 'load-deleted', class: 'deleted' })] : [];
  const updates = load.updates.map((u) => row([when(u.occurredAt), u.type, u.status, u.phase, where(u), u.message]));
  const phaseHistory = el('ol');
  for (const change of load.phaseHistory) phaseHistory.append(el('li', `${when(change.changedAt)}: ${change.fromPhase ?? '—'} → ${change.toPhase}`));
  const payloads = payloadHistory(record, load.permalink, load.history, 'load');
  record.replaceChildren(
    ...deleted,
    summary,
    el('h3', 'Events'),
    table('events', updates),
    el('h3', 'Phase history'),
    phaseHistory,
    el('h3', 'Payload history'),
    payloads,
  );
}

/** Runs a form's action on submit, its outcome shown in the form. */
function onSubmit(form, work) {
  $(form).addEventListener('submit', (event) => {
    event.preventDefault();
    void act(feedbackOf($(form)), work);
  });
}

document.addEventListener('DOMContentLoaded', () => {
  for (const placeholder of document.querySelectorAll('[data-table]')) placeholder.replaceWith(table(placeholder.dataset.table));
  onSubmit('sign-in-form', (feedback) => signIn($('key').value.trim(), feedback));
  $('sign-out').addEventListener('click', signOut);
  $('tenant-picker').addEventListener('change', (event) =>
    act($('tenants-feedback'), async () => {
      state.tenant = event.target.value;
      sessionStorage.setItem(tenantStorage, state.tenant);
      await refresh();
    }),
  );
  onSubmit('create-tenant', async (feedback) => {
    const template = $('new-template').value.trim();
    const { createTenant } = await graphql(
      'mutation ($slug: String!, $name: String!, $t: String) { createTenant(slug: $slug, name: $name, tmsUrlTemplate: $t) { apiKey tenant { slug } } }',
      { slug: $('new-slug').value.trim(), name: $('new-name').value, t: template || null },
      { tenant: null, feedback },
    );
    showKey(createTenant.tenant.slug, createTenant.apiKey);
    await loadTenants();
    return `Created ${createTenant.tenant.slug}.`;
  });
  onSubmit('rate-form', async (feedback) => {
    await graphql(
      'mutation ($slug: String!, $r: Int, $b: Int) { setTenantRateLimit(slug: $slug, recordsPerSecond: $r, burst: $b) { slug } }',
      { slug: state.tenant, r: numberOrNull($('rate')), b: numberOrNull($('burst')) },
      { tenant: null, feedback },
    );
    await loadTenants();
    return `Rate limit of ${state.tenant} set.`;
  });
  onSubmit('stale-form', async (feedback) => {
    const minutes = numberOrNull($('stale-minutes'));
    await graphql(
      'mutation ($slug: String!, $src: IngestSource!, $s: Int) { setTenantStaleInterval(slug: $slug, source: $src, seconds: $s) { slug } }',
      { slug: state.tenant, src: $('stale-source').value, s: minutes === null ? null : Math.round(minutes * 60) },
      { tenant: null, feedback },
    );
    await refresh();
    return `Stale interval of ${state.tenant} set.`;
  });
  $('copy-key').addEventListener('click', () =>
    act(feedbackOf($('new-key')), async () => {
      await navigator.clipboard.writeText($('new-key-value').textContent);
      return 'Key copied.';
    }),
  );
  // The lookup's kinds; the load's (its own view, lookUp) first chosen.
  $('lookup-kind').replaceChildren(...recordKinds.filter((k) => k.lookup).map((k) => el('option', k.label, { value: k.lookup })));
  $('lookup-kind').value = 'load';
  onSubmit('lookup-form', (feedback) => lookUp($('permalink').value.trim(), feedback));
  $('lookup-kind').addEventListener('change', labelLookup);
  onSubmit('quality-form', (feedback) => loadQuality(feedback));
  const saved = sessionStorage.getItem(keyStorage);
  if (saved) void act(feedbackOf($('sign-in-form')), (feedback) => signIn(saved, feedback));
});
