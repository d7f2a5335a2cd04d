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
  rejections: ['Recent rejections table', 'Newest first', ['When', 'Source', 'Kind', 'Code', 'Fields', 'Message', 'Permalink', 'Rejected body']],
  mappings: ['Status mapping table', 'Current mapping', ['TMS status', 'Phase', 'Updated']],
  events: ['Events', 'Events (load updates), newest first', ['When', 'Type', 'Status', 'Phase', 'Where', 'Message']],
  history: ['Payload history', 'What the TMS sent for this load, newest first', ['Received', 'Source', 'Outcome', 'Changed', 'Request id', 'Body']],
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

function say(text) {
  $('message').textContent = text;
}

async function graphql(query, variables = {}, tenant = state.tenant) {
  const headers = { 'content-type': 'application/json', 'x-api-key': state.key };
  if (state.admin && tenant) headers['x-tenant'] = tenant;
  const res = await fetch('/graphql', { method: 'POST', headers, body: JSON.stringify({ query, variables }) });
  const body = await res.json();
  if (body.errors && body.errors.length) {
    const error = body.errors[0];
    throw new Error(`${error.message}${error.extensions && error.extensions.code ? ` (${error.extensions.code})` : ''}`);
  }
  return body.data;
}

const when = (iso) => (iso ? new Date(iso).toLocaleString() : 'never');

async function signIn(key) {
  state.key = key;
  try {
    const data = await graphql('{ tenants { slug } }', {}, null);
    state.admin = true;
    state.tenant = sessionStorage.getItem(tenantStorage) || (data.tenants[0] && data.tenants[0].slug) || null;
  } catch {
    state.admin = false;
    try {
      state.tenant = (await graphql('{ viewer { slug } }')).viewer.slug;
    } catch (error) {
      state.key = null;
      say(`Sign-in failed: ${error.message}`);
      return;
    }
  }
  sessionStorage.setItem(keyStorage, key);
  say('');
  $('sign-in').hidden = true;
  $('sign-out').hidden = false;
  $('admin').hidden = !state.admin;
  await refresh();
}

function signOut() {
  sessionStorage.removeItem(keyStorage);
  sessionStorage.removeItem(tenantStorage);
  location.reload();
}

async function refresh() {
  $('who').textContent = state.admin ? `Admin${state.tenant ? `, showing tenant ${state.tenant}` : ''}` : `Tenant ${state.tenant}`;
  if (state.admin) await loadTenants();
  for (const id of ['health', 'rejections-section', 'statuses', 'lookup']) $(id).hidden = !state.tenant;
  if (state.tenant) await loadTenantView();
}

async function loadTenants() {
  const { tenants } = await graphql(
    '{ tenants { slug name activeKeyCount rateLimit { recordsPerSecond burst } staleAfterSeconds { pull webhook unspecified } } }',
    {},
    null,
  );
  const picker = $('tenant-picker');
  picker.replaceChildren(...tenants.map((t) => el('option', `${t.slug} (${t.name})`, { value: t.slug })));
  if (!tenants.some((t) => t.slug === state.tenant)) state.tenant = tenants[0] ? tenants[0].slug : null;
  picker.value = state.tenant || '';
  $('tenant-settings').hidden = !state.tenant;
  const body = $('tenants').tBodies[0];
  body.replaceChildren(
    ...tenants.map((t) => {
      const actions = el('span');
      const rotate = el('button', 'Rotate key', { type: 'button', 'aria-label': `Rotate key of ${t.slug}` });
      rotate.addEventListener('click', () => act(() => rotateKey(t.slug)));
      const revoke = el('button', 'Revoke keys', { type: 'button', 'aria-label': `Revoke keys of ${t.slug}` });
      revoke.addEventListener('click', () => act(() => revokeKeys(t.slug)));
      actions.append(rotate, ' ', revoke);
      const rate = t.rateLimit.recordsPerSecond === null ? 'default' : t.rateLimit.recordsPerSecond === 0 ? 'off' : `${t.rateLimit.recordsPerSecond}/s`;
      const stale = `${t.staleAfterSeconds.pull} / ${t.staleAfterSeconds.webhook} / ${t.staleAfterSeconds.unspecified} s`;
      return row([t.slug, t.name, t.activeKeyCount, rate, stale, actions]);
    }),
  );
}

function showKey(slug, apiKey) {
  $('new-key-tenant').textContent = slug;
  $('new-key-value').textContent = apiKey;
  $('new-key').hidden = false;
}

async function rotateKey(slug) {
  const { rotateTenantKey } = await graphql('mutation ($slug: String!) { rotateTenantKey(slug: $slug) { apiKey tenant { slug } } }', { slug }, null);
  showKey(rotateTenantKey.tenant.slug, rotateTenantKey.apiKey);
  await loadTenants();
}

async function revokeKeys(slug) {
  const { revokeTenantKeys } = await graphql('mutation ($slug: String!) { revokeTenantKeys(slug: $slug) }', { slug }, null);
  say(`Revoked ${revokeTenantKeys} key(s) of ${slug}.`);
  await loadTenants();
}

const numberOrNull = (input) => (input.value.trim() === '' ? null : Number(input.value));

async function act(work) {
  try {
    await work();
  } catch (error) {
    say(error.message);
  }
}

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
  const rejections = $('rejections').tBodies[0];
  const open = openBodies(rejections);
  rejections.replaceChildren(
    ...data.ingestHealth.recentRejections.map((r) =>
      row([when(r.at), r.source.toLowerCase(), r.kind, r.code, fieldIssues(r), r.message, r.permalink, rejectedBody(r, open)]),
    ),
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
    card.querySelector('.last').textContent = `Last received: ${when(source.lastReceivedAt)} · stale after ${source.staleAfterSeconds} s`;
    card.querySelector('.dry-runs').textContent =
      `dry runs: ${total(source.dryRun.lastHour)} in the last hour / ${total(source.dryRun.lastDay)} in the last day`;
    drawChart(card.querySelector('canvas'), source);
  }
}

function drawChart(canvas, source) {
  const labels = source.series.map((p) => new Date(p.start).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit' }));
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
        scales: { x: { stacked: true }, y: { stacked: true, beginAtZero: true, ticks: { precision: 0 } } },
      },
    }),
  );
}

function renderStatuses(unmapped, mappings) {
  $('unmapped').replaceChildren(
    ...(unmapped.length
      ? unmapped.map((u) => {
          const item = el('li');
          const select = el('select', undefined, { 'aria-label': `Phase for ${u.status}` });
          select.append(...phases.map((p) => el('option', p, { value: p })));
          const button = el('button', 'Map', { type: 'button', 'aria-label': `Map ${u.status}` });
          button.addEventListener('click', () =>
            act(async () => {
              await graphql('mutation ($s: String!, $p: Phase!) { setStatusMapping(status: $s, phase: $p) { status phase } }', {
                s: u.status,
                p: select.value,
              });
              say(`"${u.status}" is now ${select.value}; its loads are re-phased.`);
              await loadTenantView();
            }),
          );
          item.append(el('span', `${u.status} (${u.loadCount} load${u.loadCount === 1 ? '' : 's'}) `), select, ' ', button);
          return item;
        })
      : [el('li', 'None: every stored load status has a phase.')]),
  );
  $('mappings').tBodies[0].replaceChildren(...mappings.map((m) => row([m.status, m.phase, when(m.updatedAt)])));
}

async function lookUp(permalink) {
  const { load } = await graphql(
    `query ($p: String!) { load(permalink: $p, includeDeleted: true) { permalink tmsId status phase customerName bolNumber changedAt deletedAt
       legs { permalink sequence carrier { name } stops { permalink sequence type city state appointmentStart arrivedAt } }
       updates(first: 20) { type occurredAt status phase city state message }
       phaseHistory { fromPhase toPhase changedAt }
       history(first: 20) { receivedAt source outcome changed requestId body } } }`,
    { p: permalink },
  );
  const record = $('record');
  if (!load) {
    record.replaceChildren(el('p', `No load ${permalink} in this tenant.`));
    return;
  }
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
  const updates = load.updates.map((u) => row([when(u.occurredAt), u.type, u.status, u.phase, [u.city, u.state].filter(Boolean).join(', '), u.message]));
  const phaseHistory = el('ol');
  for (const change of load.phaseHistory) phaseHistory.append(el('li', `${when(change.changedAt)}: ${change.fromPhase ?? '—'} → ${change.toPhase}`));
  const open = openBodies(record);
  const payloads = load.history.map((h) => {
    const key = `${load.permalink}|${h.receivedAt}|${h.requestId}`;
    return row([
      when(h.receivedAt),
      h.source.toLowerCase(),
      h.outcome.toLowerCase(),
      h.changed ? 'yes' : 'no',
      h.requestId,
      bodyDisclosure(h.body, false, key, open),
    ]);
  });
  record.replaceChildren(
    ...deleted,
    summary,
    el('h3', 'Events'),
    table('events', updates),
    el('h3', 'Phase history'),
    phaseHistory,
    el('h3', 'Payload history'),
    load.history.length ? table('history', payloads) : el('p', 'Nothing received for this load is kept.'),
  );
}

document.addEventListener('DOMContentLoaded', () => {
  for (const placeholder of document.querySelectorAll('[data-table]')) placeholder.replaceWith(table(placeholder.dataset.table));
  $('sign-in-form').addEventListener('submit', (event) => {
    event.preventDefault();
    void signIn($('key').value.trim());
  });
  $('sign-out').addEventListener('click', signOut);
  $('tenant-picker').addEventListener('change', (event) =>
    act(async () => {
      state.tenant = event.target.value;
      sessionStorage.setItem(tenantStorage, state.tenant);
      await refresh();
    }),
  );
  $('create-tenant').addEventListener('submit', (event) => {
    event.preventDefault();
    void act(async () => {
      const template = $('new-template').value.trim();
      const { createTenant } = await graphql(
        'mutation ($slug: String!, $name: String!, $t: String) { createTenant(slug: $slug, name: $name, tmsUrlTemplate: $t) { apiKey tenant { slug } } }',
        { slug: $('new-slug').value.trim(), name: $('new-name').value, t: template || null },
        null,
      );
      showKey(createTenant.tenant.slug, createTenant.apiKey);
      await loadTenants();
    });
  });
  $('set-rate').addEventListener('click', () =>
    act(async () => {
      await graphql(
        'mutation ($slug: String!, $r: Int, $b: Int) { setTenantRateLimit(slug: $slug, recordsPerSecond: $r, burst: $b) { slug } }',
        { slug: state.tenant, r: numberOrNull($('rate')), b: numberOrNull($('burst')) },
        null,
      );
      say(`Rate limit of ${state.tenant} set.`);
      await loadTenants();
    }),
  );
  $('set-stale').addEventListener('click', () =>
    act(async () => {
      await graphql(
        'mutation ($slug: String!, $src: IngestSource!, $s: Int) { setTenantStaleInterval(slug: $slug, source: $src, seconds: $s) { slug } }',
        { slug: state.tenant, src: $('stale-source').value, s: numberOrNull($('stale-seconds')) },
        null,
      );
      say(`Stale interval of ${state.tenant} set.`);
      await refresh();
    }),
  );
  $('copy-key').addEventListener('click', () =>
    act(async () => {
      await navigator.clipboard.writeText($('new-key-value').textContent);
      say('Key copied.');
    }),
  );
  $('lookup-form').addEventListener('submit', (event) => {
    event.preventDefault();
    void act(() => lookUp($('permalink').value.trim()));
  });
  const saved = sessionStorage.getItem(keyStorage);
  if (saved) void signIn(saved);
});
