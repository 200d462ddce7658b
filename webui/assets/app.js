// cairn's page: browse, search and curate a project's memories, watch
// its events live, preview context blocks, and keep the project tidy.
// Memory text only ever reaches the page through textContent (el and
// marked below); nothing a memory holds is parsed as HTML.

import { call, callServer, request, qs, events, setToken, whenUnauthorized, ApiError } from './api.js';

const $ = (id) => document.getElementById(id);
const PAGE = 50;

// el makes an element; children are nodes or strings (as text).
function el(tag, props = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(props)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') e.className = v;
    else if (k === 'text') e.textContent = v;
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v === true ? '' : v);
  }
  for (const c of children) if (c !== null && c !== undefined) e.append(c);
  return e;
}

// marked returns text as nodes with the words of terms in <mark>.
function marked(text, terms) {
  const frag = document.createDocumentFragment();
  if (!terms.length || !text) { frag.append(text || ''); return frag; }
  const re = new RegExp('(' + terms.map(t => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|') + ')', 'gi');
  let at = 0;
  for (const m of text.matchAll(re)) {
    if (m.index > at) frag.append(text.slice(at, m.index));
    frag.append(el('mark', { text: m[0] }));
    at = m.index + m[0].length;
  }
  frag.append(text.slice(at));
  return frag;
}

function termsOf(q) {
  return [...new Set(q.toLowerCase().split(/[^\p{L}\p{N}_]+/u).filter(w => w.length > 1))];
}

// One formatter for every time shown: Date's toLocaleString builds a new
// one each call, which made the first page's 50 times take ~100 ms.
const timeFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'short', timeStyle: 'medium' });
const dayFormat = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric', timeZone: 'UTC' });
const fmtTime = (t) => t ? timeFormat.format(new Date(t)) : '';
const short = (id) => (id || '').slice(0, 12);

function status(msg) { $('status').textContent = msg || ''; }
function fail(e) {
  if (e && e.name === 'AbortError') return;
  status(e instanceof ApiError ? e.message : 'Error: ' + (e && e.message || e));
}

let toastTimer = null;
function toast(text, actionText, action) {
  $('toast-text').textContent = text;
  const b = $('toast-action');
  b.hidden = !actionText;
  b.textContent = actionText || '';
  b.onclick = () => { $('toast').hidden = true; action && action(); };
  $('toast').hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { $('toast').hidden = true; }, actionText ? 10000 : 3000);
}

function confirmDialog(text, okText) {
  return new Promise((resolve) => {
    const d = $('confirm');
    $('confirm-text').textContent = text;
    $('confirm-ok').textContent = okText || 'Confirm';
    d.returnValue = '';
    d.addEventListener('close', () => resolve(d.returnValue === 'ok'), { once: true });
    d.showModal();
  });
}

// ---- project and token ----

const state = { project: '', view: 'memories', offset: 0, current: null, stopEvents: null, unseen: 0, stale: new Set() };

function api(method, path, opts) { return call(state.project, method, path, opts); }

whenUnauthorized(() => { $('token-bar').hidden = false; $('token').focus(); });
$('token-form').addEventListener('submit', (e) => {
  e.preventDefault();
  setToken($('token').value.trim());
  $('token-bar').hidden = true;
  openProject(state.project);
});

$('project-form').addEventListener('submit', (e) => {
  e.preventDefault();
  openProject($('project').value.trim());
});

// openProject shows a project. The first page of its memories is asked
// for first and alone; the event stream, the type counts of the filters
// and the other views' data follow once it is shown.
async function openProject(name) {
  if (!name) return;
  state.project = name;
  localStorage.setItem('cairn-project', name);
  $('project').value = name;
  document.title = 'cairn · ' + name;
  status('');
  state.offset = 0;
  if (state.stopEvents) state.stopEvents();
  state.stopEvents = null;
  $('feed').replaceChildren();
  await refreshList();
  if (state.project !== name) return;
  state.stopEvents = events(name, onEvent, (s) => { $('live-state').textContent = s; });
  loadTypes();
  if (state.view === 'housekeeping') loadHousekeeping();
}

// ---- projects ----

async function loadProjects() {
  try {
    const out = await callServer('GET', '/projects');
    const ol = $('projects'), names = $('project-names');
    ol.replaceChildren();
    names.replaceChildren();
    for (const p of out.projects) {
      names.append(el('option', { value: p.name }));
      ol.append(el('li', { 'data-project': p.name, class: p.name === state.project ? 'current' : null },
        el('button', { type: 'button', onclick: () => { location.hash = 'memories'; openProject(p.name); } },
          el('div', { class: 'item-title', text: p.name }),
          el('div', { class: 'item-meta', text: p.memories + (p.memories === 1 ? ' memory' : ' memories') + ' · last activity ' + fmtTime(p.last_activity) }))));
    }
    if (!out.projects.length) ol.append(el('li', { class: 'muted', text: 'No project has memories yet.' }));
  } catch (e) { fail(e); }
}
$('project').addEventListener('focus', () => { if (!$('project-names').children.length) loadProjects(); });

// ---- views ----

function show(view) {
  if (!['memories', 'live', 'context', 'housekeeping', 'projects'].includes(view)) view = 'memories';
  state.view = view;
  for (const s of document.querySelectorAll('main > section')) s.hidden = s.dataset.view !== view;
  for (const a of document.querySelectorAll('nav a')) {
    if (a.dataset.view === view) a.setAttribute('aria-current', 'page'); else a.removeAttribute('aria-current');
  }
  if (view === 'live') { state.unseen = 0; $('live-count').hidden = true; }
  if (view === 'housekeeping' && state.project) loadHousekeeping();
  if (view === 'projects') loadProjects();
}
window.addEventListener('hashchange', () => show(location.hash.slice(1)));

// ---- memories: list, search, page ----

let listCtl = null;
let searchTimer = null;

function filters() {
  const conf = $('f-conf').value;
  return {
    type: $('f-type').value, tag: $('f-tag').value.trim(), session: $('f-session').value.trim(),
    agent: $('f-agent').value.trim(), source: $('f-source').value, never_used: $('f-use').value === 'never' || undefined,
    stale: $('f-stale').value === 'stale' || undefined, expiry: $('f-expiry').value,
    min_confidence: conf, after: $('f-after').value, before: $('f-before').value, sort: $('f-sort').value,
    // The project's own memories by default: its index pages them
    // without reading the rest.
    global: $('f-scope').value === 'all',
  };
}

async function loadTypes() {
  try {
    const st = await api('GET', '/stats');
    const sel = $('f-type'), cur = sel.value;
    sel.replaceChildren(el('option', { value: '', text: 'any' }));
    for (const t of Object.keys(st.by_type).sort()) sel.append(el('option', { value: t, text: t + ' (' + st.by_type[t] + ')' }));
    sel.value = cur;
  } catch (e) { fail(e); }
}

// refreshList shows the current page. A page is asked for without its
// total (one more memory than shown says whether there is a next page);
// the count of every match follows, once the page is shown.
async function refreshList() {
  if (!state.project) return;
  if (listCtl) listCtl.abort();
  listCtl = new AbortController();
  const signal = listCtl.signal;
  const q = $('q').value.trim();
  const f = filters();
  try {
    if (q) {
      state.stale = new Set();
      const found = await api('GET', '/search' + qs({ q, limit: 100, type: f.type, tag: f.tag, after: f.after, before: f.before, agent: f.agent, no_global: !f.global }), { signal });
      if (signal.aborted) return;
      const hits = found.filter(hitFilter(f));
      renderList(hits, termsOf(q));
      $('list-info').textContent = hits.length + (found.length === 100 ? '+' : '') + ' found, best first' +
        (f.stale ? ' (staleness is not checked in a search)' : '');
      $('page-info').textContent = '';
      $('prev').disabled = $('next').disabled = true;
    } else {
      const path = '/memories' + qs({ ...f, limit: PAGE + 1, offset: state.offset, skip_total: true });
      const out = await (firstPage(path) || api('GET', path, { signal }));
      if (signal.aborted) return; // a newer list was asked for meanwhile
      const more = out.memories.length > PAGE;
      const mems = out.memories.slice(0, PAGE);
      state.stale = new Set(out.stale || []);
      renderList(mems, []);
      const last = state.offset + mems.length;
      const range = mems.length ? (state.offset + 1) + '–' + last : '';
      $('list-info').textContent = mems.length ? '' : '0 memories';
      $('page-info').textContent = range;
      $('prev').disabled = state.offset === 0;
      $('next').disabled = !more;
      if (mems.length && (more || state.offset > 0)) {
        countList(f, range, signal);
      } else {
        $('list-info').textContent = last + (last === 1 ? ' memory' : ' memories');
      }
    }
    status('');
  } catch (e) { fail(e); }
}

// hitFilter applies to search hits the filters the search route does
// not take (it ranks by type, tag, dates and agent).
function hitFilter(f) {
  const now = Date.now(), conf = Number(f.min_confidence || 0);
  return (m) => {
    const exp = m.expires_at ? Date.parse(m.expires_at) : 0;
    return (!f.source || m.source === f.source) && (!f.never_used || !m.use_count) &&
      (!f.session || m.created_by_session_id === f.session) && (m.confidence ?? 0) >= conf &&
      (!f.expiry || (exp && (f.expiry === 'any' || (f.expiry === 'expired' ? exp <= now : exp > now && exp <= now + 7 * 864e5))));
  };
}

// firstPage answers the page's first list request from the request the
// server started with the page (<link id=first-page>, the same address),
// once: null when it does not apply.
function firstPage(path) {
  const link = $('first-page');
  if (!link) return null;
  link.remove();
  const href = link.getAttribute('href'), at = href.indexOf('/memories?');
  if (at < 0 || href.slice(at) !== path || decodeURIComponent(href.slice('/api/projects/'.length, at)) !== state.project) return null;
  return request(href, 'GET');
}

async function countList(f, range, signal) {
  try {
    const out = await api('GET', '/memories' + qs({ ...f, limit: 1 }), { signal });
    $('list-info').textContent = out.total + ' memories';
    $('page-info').textContent = range + ' of ' + out.total;
  } catch (e) { fail(e); }
}

function renderList(mems, terms) {
  const list = $('list');
  list.replaceChildren();
  for (const m of mems) {
    const meta = [m.type, m.scope === 'global' ? 'global' : null, 'confidence ' + (m.confidence ?? 0).toFixed(2),
      'used ' + (m.use_count || 0) + '×', m.score !== undefined ? 'score ' + m.score.toFixed(3) : null, fmtTime(m.created_at)]
      .filter(Boolean).join(' · ');
    const li = el('li', { 'data-id': m.id, class: state.current === m.id ? 'current' : null },
      el('button', { type: 'button', onclick: () => openMemory(m.id) },
        el('div', { class: 'item-title' }, m.pinned ? el('span', { class: 'tag pin', text: 'pinned' }) : null,
          state.stale.has(m.id) ? el('span', { class: 'tag stale', text: 'possibly stale' }) : null, marked(m.title || '(no title)', terms)),
        el('div', { class: 'snippet' }, marked((m.content || '').slice(0, 300), terms)),
        el('div', { class: 'item-meta', text: meta })));
    list.append(li);
  }
  if (!mems.length) list.append(el('li', { class: 'muted', text: 'Nothing here.' }));
}

$('q').addEventListener('input', () => {
  clearTimeout(searchTimer);
  searchTimer = setTimeout(() => { state.offset = 0; refreshList(); }, 60);
});
$('filters').addEventListener('submit', (e) => { e.preventDefault(); refreshList(); });
for (const id of ['f-scope', 'f-type', 'f-tag', 'f-session', 'f-agent', 'f-source', 'f-use', 'f-stale', 'f-expiry', 'f-conf', 'f-after', 'f-before', 'f-sort']) {
  $(id).addEventListener('change', () => { state.offset = 0; refreshList(); });
}
$('prev').addEventListener('click', () => { state.offset = Math.max(0, state.offset - PAGE); refreshList(); });
$('next').addEventListener('click', () => { state.offset += PAGE; refreshList(); });
// Arrows move between the items of a list.
for (const id of ['list', 'projects']) {
  $(id).addEventListener('keydown', (e) => {
    if (e.key !== 'ArrowDown' && e.key !== 'ArrowUp') return;
    const buttons = [...$(id).querySelectorAll('li > button')];
    const i = buttons.indexOf(document.activeElement);
    const j = e.key === 'ArrowDown' ? Math.min(i + 1, buttons.length - 1) : Math.max(i - 1, 0);
    if (buttons[j]) { buttons[j].focus(); e.preventDefault(); }
  });
}

// ---- one memory ----

function prop(dl, name, value) {
  if (value === undefined || value === null || value === '' || (Array.isArray(value) && !value.length)) return;
  dl.append(el('dt', { text: name }), el('dd', { text: Array.isArray(value) ? value.join(', ') : String(value) }));
}

async function openMemory(id) {
  state.current = id;
  for (const li of $('list').children) li.classList.toggle('current', li.dataset.id === id);
  const pane = $('detail');
  try {
    const [m, act] = await Promise.all([
      api('GET', '/memories/' + encodeURIComponent(id)),
      api('GET', '/activity' + qs({ memory: id, limit: 100 })),
    ]);
    renderMemory(m, act);
    pane.focus();
  } catch (e) {
    fail(e);
    if (e instanceof ApiError && e.status === 404) pane.replaceChildren(el('p', { class: 'muted', text: 'This memory is gone.' }));
  }
}

function renderMemory(m, act) {
  const pane = $('detail');
  const dl = el('dl', { class: 'props' });
  prop(dl, 'id', m.id);
  prop(dl, 'type', m.type);
  prop(dl, 'scope', m.scope);
  prop(dl, 'key', m.key);
  prop(dl, 'tags', m.tags);
  prop(dl, 'files', m.file_refs);
  prop(dl, 'confidence', (m.confidence ?? 0).toFixed(2));
  prop(dl, 'source', m.source);
  prop(dl, 'agent', m.created_by_agent);
  prop(dl, 'hat', m.created_by_hat);
  prop(dl, 'task', m.created_by_task_id);
  prop(dl, 'session', m.created_by_session_id);
  prop(dl, 'created', fmtTime(m.created_at));
  prop(dl, 'updated', fmtTime(m.updated_at));
  prop(dl, 'last used', fmtTime(m.last_used_at));
  prop(dl, 'verified', fmtTime(m.verified_at));
  prop(dl, 'expires', fmtTime(m.expires_at));
  prop(dl, 'used', (m.use_count || 0) + ' times');
  prop(dl, 'pinned', m.pinned ? 'yes' : null);
  prop(dl, 'flag', m.flag);
  prop(dl, 'files changed', state.stale.has(m.id) ? 'possibly stale: a file it refers to changed since it was written or verified' : null);
  const btn = (text, fn, cls) => el('button', { type: 'button', class: cls, onclick: fn, text });
  const actions = el('div', { class: 'actions' },
    btn('Edit (e)', () => editMemory(m)),
    btn(m.pinned ? 'Unpin' : 'Pin', () => act1(m, m.pinned ? 'unpin' : 'pin', 'POST')),
    btn('Verify', () => act1(m, 'verify', 'POST')),
    btn('Promote to global', () => act1(m, 'promote', 'POST', { scope: 'global' })),
    btn('Supersede…', () => supersede(m)),
    btn('Delete', () => deleteMemory(m), 'danger'));
  const used = act.entries.filter(a => a.action === 'used');
  const history = el('ol', { class: 'feed compact' });
  for (const a of act.entries) {
    history.append(el('li', {}, el('span', { class: 'action', text: a.action }), ' ' + fmtTime(a.at),
      a.session_id ? ' · session ' + a.session_id : '', a.detail ? ' · ' + a.detail : ''));
  }
  const injected = el('ol', { class: 'feed compact' });
  for (const a of used) injected.append(el('li', { text: fmtTime(a.at) + (a.session_id ? ' · session ' + a.session_id : ' · no session') }));
  const chain = el('div', { class: 'chain' });
  pane.replaceChildren(
    el('h2', { text: m.title || '(no title)' }),
    actions,
    el('div', { class: 'content', id: 'memory-content', text: m.content }),
    dl,
    el('h3', { text: 'Supersede chain' }), chain,
    el('h3', { text: 'Injected into (' + used.length + (act.total > act.entries.length ? '+' : '') + ')' }), used.length ? injected : el('p', { class: 'muted', text: 'Not injected yet.' }),
    el('h3', { text: 'History' }), history);
  pane.dataset.id = m.id;
  loadChain(m, chain);
}

// loadChain shows the supersede chain through m, both ways: what m
// replaces (older, first) and what replaces it (newer, last), with m
// itself in its place.
async function loadChain(m, box) {
  let chain;
  try { chain = (await api('GET', '/memories/' + encodeURIComponent(m.id) + '/chain')).memories; } catch (e) { fail(e); return; }
  if (chain.length <= 1) {
    box.replaceChildren(el('p', { class: 'muted', text: m.superseded_by ? 'Replaced by ' + m.superseded_by + ' (gone).' : 'Supersedes nothing, superseded by nothing.' }));
    return;
  }
  const at = chain.findIndex(c => c.id === m.id);
  const ol = el('ol', { class: 'list compact chain-list' });
  chain.forEach((c, i) => {
    let role = i < at ? 'older' : 'newer';
    if (c.superseded_by === m.id) role = 'superseded by this one';
    else if (m.superseded_by === c.id) role = 'supersedes this one';
    if (c.id === m.id) {
      ol.append(el('li', { class: 'current', 'aria-current': 'true' }, el('div', { class: 'chain-self' },
        el('span', { class: 'tag', text: 'this memory' }), ' ', m.title || m.id)));
      return;
    }
    ol.append(el('li', { 'data-role': role }, el('button', { type: 'button', onclick: () => openMemory(c.id) },
      el('span', { class: 'tag', text: role }), ' ', c.title || c.id, el('span', { class: 'item-meta', text: ' ' + c.type + ' · ' + fmtTime(c.created_at) }))));
  });
  box.replaceChildren(ol);
}

async function act1(m, what, method, body) {
  try {
    const n = await api(method, '/memories/' + encodeURIComponent(m.id) + '/' + what, body ? { json: body } : {});
    toast(what + ': done');
    await openMemory(n.id);
    refreshList();
  } catch (e) { fail(e); }
}

async function supersede(m) {
  const by = prompt('Id of the memory that replaces this one:');
  if (!by) return;
  act1(m, 'supersede', 'POST', { by: by.trim() });
}

function editMemory(m) {
  const f = el('form', { class: 'edit', autocomplete: 'off' });
  const field = (label, name, value, tag = 'input') => {
    const input = el(tag, { name });
    input.value = value ?? '';
    f.append(el('label', {}, label, input));
    return input;
  };
  field('Title', 'title', m.title);
  field('Content', 'content', m.content, 'textarea');
  field('Type', 'type', m.type);
  field('Tags (comma-separated)', 'tags', (m.tags || []).join(','));
  field('Files (comma-separated globs)', 'file_refs', (m.file_refs || []).join(','));
  field('Confidence (0–1)', 'confidence', m.confidence);
  const nt = el('input', { type: 'checkbox', name: 'new_type' });
  f.append(el('label', {}, el('span', {}, nt, ' the type is new (not a typo)')));
  f.append(el('div', { class: 'actions' }, el('button', { type: 'submit', text: 'Save' }),
    el('button', { type: 'button', text: 'Cancel', onclick: () => openMemory(m.id) })));
  f.addEventListener('keydown', (e) => { if (e.key === 'Escape') openMemory(m.id); });
  f.addEventListener('submit', async (e) => {
    e.preventDefault();
    const d = new FormData(f);
    const list = (s) => s.split(',').map(x => x.trim()).filter(Boolean);
    const body = {};
    if (d.get('title') !== (m.title || '')) body.title = d.get('title');
    if (d.get('content') !== m.content) body.content = d.get('content');
    if (d.get('type') !== m.type) body.type = d.get('type');
    if (d.get('tags') !== (m.tags || []).join(',')) body.tags = list(d.get('tags'));
    if (d.get('file_refs') !== (m.file_refs || []).join(',')) body.file_refs = list(d.get('file_refs'));
    const c = Number(d.get('confidence'));
    if (String(d.get('confidence')) !== String(m.confidence)) {
      if (!(c >= 0 && c <= 1)) { status('Confidence is a number from 0 to 1.'); return; }
      body.confidence = c;
      // Typing a lower number here is the person's own act of lowering it.
      if (c < (m.confidence ?? 0)) body.lower_confidence = true;
    }
    if (!Object.keys(body).length) { openMemory(m.id); return; }
    if (nt.checked) body.new_type = true;
    try {
      await api('PATCH', '/memories/' + encodeURIComponent(m.id), { json: body });
      toast('Saved');
      await openMemory(m.id);
      refreshList();
    } catch (e2) { fail(e2); }
  });
  $('detail').replaceChildren(el('h2', { text: 'Edit ' + short(m.id) }), f);
  f.querySelector('[name=title]').focus();
}

async function deleteMemory(m) {
  if (!(await confirmDialog('Delete “' + (m.title || m.id) + '”? You can undo it for a few seconds.', 'Delete'))) return;
  try {
    await api('DELETE', '/memories/' + encodeURIComponent(m.id));
    $('detail').replaceChildren(el('p', { class: 'muted', text: 'Deleted.' }));
    delete $('detail').dataset.id;
    state.current = null;
    refreshList();
    toast('Deleted “' + (m.title || m.id) + '”.', 'Undo', () => restore(m));
  } catch (e) { fail(e); }
}

// restore puts a deleted memory back as it was: an import keeps its id,
// project and times.
async function restore(m) {
  try {
    const rep = await api('POST', '/import', { body: JSON.stringify(m) + '\n', headers: { 'Content-Type': 'application/x-ndjson' } });
    if (rep.skipped && rep.skipped.length) throw new Error(rep.skipped[0].reason || 'the memory could not be restored');
    toast('Restored.');
    refreshList();
    openMemory(m.id);
  } catch (e) { fail(e); }
}

function newMemory() {
  const f = el('form', { class: 'edit', autocomplete: 'off', id: 'new-form' });
  const field = (label, name, tag = 'input', value = '') => {
    const input = el(tag, { name });
    input.value = value;
    f.append(el('label', {}, label, input));
    return input;
  };
  field('Title', 'title');
  field('Content', 'content', 'textarea');
  field('Type', 'type', 'input', 'context');
  field('Tags (comma-separated)', 'tags');
  f.append(el('div', { class: 'actions' }, el('button', { type: 'submit', text: 'Add' })));
  f.addEventListener('submit', async (e) => {
    e.preventDefault();
    const d = new FormData(f);
    if (!String(d.get('content')).trim()) { status('A memory needs content.'); return; }
    try {
      const out = await api('POST', '/memories', { json: { title: d.get('title'), content: d.get('content'), type: d.get('type'),
        tags: String(d.get('tags')).split(',').map(x => x.trim()).filter(Boolean) } });
      toast(out.status === 'created' ? 'Added ' + short(out.memory.id) : 'Already known: reinforced ' + short(out.memory.id));
      refreshList();
      openMemory(out.memory.id);
    } catch (e2) { fail(e2); }
  });
  $('detail').replaceChildren(el('h2', { text: 'New memory' }), f);
  f.querySelector('[name=title]').focus();
}
$('new-memory').addEventListener('click', newMemory);

// ---- live ----

let refreshTimer = null;
function onEvent(ev) {
  const li = el('li', { class: 'fresh', 'data-action': ev.action },
    el('span', { class: 'action', text: ev.action }), ' ',
    el('button', { type: 'button', onclick: () => { location.hash = 'memories'; openMemory(ev.memory_id); } }, ev.title || ev.memory_id),
    el('span', { class: 'muted', text: ' ' + (ev.type || '') + ' · ' + fmtTime(ev.at) + (ev.session_id ? ' · session ' + ev.session_id : '') }));
  const feed = $('feed');
  feed.prepend(li);
  while (feed.children.length > 200) feed.lastChild.remove();
  if (state.view !== 'live') { state.unseen++; $('live-count').textContent = String(state.unseen); $('live-count').hidden = false; }
  if (ev.action !== 'used' && !$('q').value.trim() && state.offset === 0) {
    clearTimeout(refreshTimer);
    refreshTimer = setTimeout(refreshList, 300);
  }
}

// ---- context preview ----

$('context-form').addEventListener('submit', async (e) => {
  e.preventDefault();
  const budget = $('c-budget').value;
  const files = $('c-files').value.split(',').map(x => x.trim()).filter(Boolean);
  const body = { prompt: $('c-prompt').value, files, hat: $('c-hat').value.trim(), agent: $('c-agent').value.trim(),
    task: $('c-task').value.trim(), session: $('c-session').value.trim(), explain: true, dry_run: true };
  if (budget) body.budget = Number(budget);
  try {
    const out = await api('POST', '/context', { json: body });
    $('c-block').textContent = out.block;
    $('c-explain').textContent = out.explain || '';
    $('c-tokens').textContent = '(' + out.tokens + ' tokens, ' + out.ids.length + ' memories)';
    status('');
  } catch (e2) { fail(e2); }
});

$('session-form').addEventListener('submit', async (e) => {
  e.preventDefault();
  try {
    const out = await api('GET', '/activity' + qs({ session: $('s-session').value.trim(), action: 'used', limit: 200 }));
    const ol = $('s-used');
    ol.replaceChildren();
    for (const a of out.entries) {
      ol.append(el('li', {}, el('button', { type: 'button', onclick: () => { location.hash = 'memories'; openMemory(a.memory_id); } },
        fmtTime(a.at) + ' · ' + a.memory_id + (a.detail ? ' · ' + a.detail : ''))));
    }
    if (!out.entries.length) ol.append(el('li', { class: 'muted', text: 'Nothing was injected into this session.' }));
  } catch (e2) { fail(e2); }
});

// ---- housekeeping ----

function compactList(box, mems, note) {
  box.replaceChildren();
  for (const m of mems) {
    box.append(el('li', {}, el('button', { type: 'button', onclick: () => { location.hash = 'memories'; openMemory(m.id); } },
      el('span', { class: 'item-title', text: m.title || '(no title)' }), el('span', { class: 'item-meta', text: ' ' + note(m) }))));
  }
  if (!mems.length) box.append(el('li', { class: 'muted', text: 'None.' }));
}

// A count of a list: one memory asked for, and the total.
function countOf(params) { return api('GET', '/memories' + qs({ global: false, limit: 5, ...params })); }

function countInto(id, out) { $(id).textContent = '(' + out.total + ')'; }

async function loadHousekeeping() {
  try {
    const [st, weeks, used, recent, act, never, soon, expired] = await Promise.all([
      api('GET', '/stats'),
      api('GET', '/stats/created' + qs({ weeks: 12 })),
      api('GET', '/memories' + qs({ sort: 'used', limit: 10, global: false, skip_total: true })),
      api('GET', '/memories' + qs({ sort: 'recent', limit: 10, global: false, skip_total: true })),
      api('GET', '/activity' + qs({ limit: 20 })),
      countOf({ never_used: true, sort: 'oldest' }),
      countOf({ expiry: 'soon', sort: 'oldest' }),
      countOf({ expiry: 'expired', limit: 1 }),
    ]);
    $('h-total').textContent = st.total + ' memories in the project, ' + st.global_total + ' global';
    const max = Math.max(1, ...Object.values(st.by_type));
    const bars = $('h-bytype');
    bars.replaceChildren();
    for (const [t, n] of Object.entries(st.by_type).sort((a, b) => b[1] - a[1])) {
      const fill = el('div', { class: 'bar-fill' });
      fill.style.width = (100 * n / max).toFixed(1) + '%';
      bars.append(el('li', {}, el('span', { text: t }), el('div', {}, fill), el('span', { text: String(n) })));
    }
    renderWeeks(weeks.periods, Object.entries(st.by_type).sort((a, b) => b[1] - a[1]).map(x => x[0]));
    compactList($('h-used'), used.memories.filter(m => m.use_count > 0), m => m.use_count + '×');
    compactList($('h-low'), recent.memories.filter(m => m.last_used_at), m => fmtTime(m.last_used_at));
    compactList($('h-never'), never.memories, m => 'since ' + fmtTime(m.created_at));
    countInto('h-never-n', never);
    compactList($('h-soon'), soon.memories, m => 'expires ' + fmtTime(m.expires_at));
    countInto('h-soon-n', soon);
    $('h-expired').textContent = expired.total + ' expired (cleanup removes them)';
    const ol = $('h-activity');
    ol.replaceChildren();
    for (const a of act.entries) ol.append(el('li', {}, el('span', { class: 'action', text: a.action }), ' ' + short(a.memory_id) + ' · ' + fmtTime(a.at)));
  } catch (e) { fail(e); }
  // Stale needs the project's folder, which the server may not know.
  try {
    const stale = await countOf({ stale: true });
    compactList($('h-stale'), stale.memories, m => (m.file_refs || []).join(', '));
    countInto('h-stale-n', stale);
  } catch (e) {
    $('h-stale-n').textContent = '';
    $('h-stale').replaceChildren(el('li', { class: 'muted', text: e instanceof ApiError ? 'Not known here: ' + e.message : String(e) }));
  }
}

// renderWeeks draws the memories created each week as stacked columns,
// one colour per type (the eight most common; the rest as "other").
function renderWeeks(periods, order) {
  const top = order.slice(0, 8);
  const colour = (t) => { const i = top.indexOf(t); return i < 0 ? 'c8' : 'c' + i; };
  const max = Math.max(1, ...periods.map(p => Object.values(p.by_type).reduce((a, b) => a + b, 0)));
  const box = $('h-weeks');
  box.replaceChildren();
  let all = 0;
  for (const p of periods) {
    const rank = (t) => { const i = top.indexOf(t); return i < 0 ? top.length : i; };
    const entries = Object.entries(p.by_type).sort((a, b) => rank(a[0]) - rank(b[0]));
    const n = entries.reduce((a, [, c]) => a + c, 0);
    all += n;
    const day = dayFormat.format(new Date(p.start));
    const label = 'week of ' + day + ': ' + n + (entries.length ? ' (' + entries.map(([t, c]) => t + ' ' + c).join(', ') + ')' : '');
    const col = el('div', { class: 'week', title: label });
    const stack = el('div', { class: 'stack-bar' });
    stack.style.height = (100 * n / max).toFixed(1) + '%';
    for (const [t, c] of entries) {
      const seg = el('div', { class: 'seg ' + colour(t) });
      seg.style.flexGrow = String(c);
      stack.append(seg);
    }
    col.append(el('span', { class: 'week-n', text: n ? String(n) : '' }), el('div', { class: 'week-area' }, stack), el('span', { class: 'week-day', text: day }));
    box.append(col);
  }
  box.setAttribute('aria-label', 'Memories created per week, the last ' + periods.length + ' weeks: ' + all + ' in all. ' +
    periods.map(p => Object.values(p.by_type).reduce((a, b) => a + b, 0)).join(', '));
  const legend = $('h-legend');
  legend.replaceChildren();
  const seen = new Set(periods.flatMap(p => Object.keys(p.by_type)));
  for (const t of top.filter(t => seen.has(t))) legend.append(el('li', {}, el('span', { class: 'swatch ' + colour(t) }), t));
  if ([...seen].some(t => !top.includes(t))) legend.append(el('li', {}, el('span', { class: 'swatch c8' }), 'other'));
  if (!all) legend.append(el('li', { class: 'muted', text: 'Nothing created in these weeks.' }));
}

$('cleanup-preview').addEventListener('click', async () => {
  try {
    const rep = await api('POST', '/cleanup');
    $('cleanup-out').textContent = JSON.stringify(rep, null, 2);
    $('cleanup-apply').disabled = false;
  } catch (e) { fail(e); }
});
$('cleanup-apply').addEventListener('click', async () => {
  if (!(await confirmDialog('Apply the cleanup shown? Removed memories stay in the activity log only.', 'Apply'))) return;
  try {
    const rep = await api('POST', '/cleanup?apply=true');
    $('cleanup-out').textContent = JSON.stringify(rep, null, 2);
    $('cleanup-apply').disabled = true;
    refreshList();
    loadHousekeeping();
  } catch (e) { fail(e); }
});
$('export').addEventListener('click', async () => {
  try {
    const res = await api('GET', '/export', { raw: true });
    const blob = await res.blob();
    const a = el('a', { href: URL.createObjectURL(blob), download: state.project + '.jsonl' });
    document.body.append(a);
    a.click();
    a.remove();
  } catch (e) { fail(e); }
});
$('import-form').addEventListener('submit', async (e) => {
  e.preventDefault();
  const file = $('import-file').files[0];
  if (!file) { status('Choose a file to import.'); return; }
  try {
    const rep = await api('POST', '/import', { body: file });
    $('import-out').textContent = JSON.stringify(rep, null, 2);
    refreshList();
    loadTypes();
  } catch (e2) { fail(e2); }
});

// ---- keyboard ----

document.addEventListener('keydown', (e) => {
  const t = e.target;
  const typing = t instanceof HTMLInputElement || t instanceof HTMLTextAreaElement || t instanceof HTMLSelectElement;
  if (typing || e.ctrlKey || e.metaKey || e.altKey || $('confirm').open) return;
  const keys = { '1': 'memories', '2': 'live', '3': 'context', '4': 'housekeeping', '5': 'projects' };
  if (e.key === '/') { location.hash = 'memories'; $('q').focus(); e.preventDefault(); }
  else if (e.key === 'n' && state.view === 'memories') { newMemory(); e.preventDefault(); }
  else if (e.key === 'e' && state.view === 'memories' && $('detail').dataset.id) {
    const id = $('detail').dataset.id;
    api('GET', '/memories/' + encodeURIComponent(id)).then(editMemory, fail);
    e.preventDefault();
  } else if (keys[e.key]) { location.hash = keys[e.key]; }
});

// ---- start ----

const home = document.querySelector('meta[name=cairn-project]').content;
show(location.hash.slice(1));
const start = home || localStorage.getItem('cairn-project') || '';
if (start) openProject(start); else { $('project').focus(); status('Name a project to open.'); }
