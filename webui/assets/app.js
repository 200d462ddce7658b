// cairn's page: browse, search and curate a project's memories, watch
// its events live, preview context blocks, and keep the project tidy.
// Memory text only ever reaches the page through textContent (el and
// marked below); nothing a memory holds is parsed as HTML.

import { call, qs, events, setToken, whenUnauthorized, ApiError } from './api.js';

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

const fmtTime = (t) => t ? new Date(t).toLocaleString() : '';
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

const state = { project: '', view: 'memories', offset: 0, total: 0, current: null, stopEvents: null, unseen: 0 };

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

function openProject(name) {
  if (!name) return;
  state.project = name;
  localStorage.setItem('cairn-project', name);
  $('project').value = name;
  document.title = 'cairn · ' + name;
  status('');
  state.offset = 0;
  if (state.stopEvents) state.stopEvents();
  $('feed').replaceChildren();
  state.stopEvents = events(name, onEvent, (s) => { $('live-state').textContent = s; });
  loadTypes();
  refreshList();
  if (state.view === 'housekeeping') loadHousekeeping();
}

// ---- views ----

function show(view) {
  if (!['memories', 'live', 'context', 'housekeeping'].includes(view)) view = 'memories';
  state.view = view;
  for (const s of document.querySelectorAll('main > section')) s.hidden = s.dataset.view !== view;
  for (const a of document.querySelectorAll('nav a')) {
    if (a.dataset.view === view) a.setAttribute('aria-current', 'page'); else a.removeAttribute('aria-current');
  }
  if (view === 'live') { state.unseen = 0; $('live-count').hidden = true; }
  if (view === 'housekeeping' && state.project) loadHousekeeping();
}
window.addEventListener('hashchange', () => show(location.hash.slice(1)));

// ---- memories: list, search, page ----

let listCtl = null;
let searchTimer = null;

function filters() {
  const conf = $('f-conf').value;
  return {
    type: $('f-type').value, tag: $('f-tag').value.trim(), session: $('f-session').value.trim(),
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

async function refreshList() {
  if (!state.project) return;
  if (listCtl) listCtl.abort();
  listCtl = new AbortController();
  const signal = listCtl.signal;
  const q = $('q').value.trim();
  const f = filters();
  try {
    if (q) {
      const hits = await api('GET', '/search' + qs({ q, limit: 100, type: f.type, tag: f.tag, after: f.after, before: f.before, no_global: !f.global }), { signal });
      renderList(hits, termsOf(q));
      $('list-info').textContent = hits.length + (hits.length === 100 ? '+' : '') + ' found, best first';
      $('page-info').textContent = '';
      $('prev').disabled = $('next').disabled = true;
    } else {
      const out = await api('GET', '/memories' + qs({ ...f, limit: PAGE, offset: state.offset }), { signal });
      state.total = out.total;
      renderList(out.memories, []);
      const last = Math.min(state.offset + out.memories.length, out.total);
      $('list-info').textContent = out.total + ' memories';
      $('page-info').textContent = out.total ? (state.offset + 1) + '–' + last + ' of ' + out.total : '';
      $('prev').disabled = state.offset === 0;
      $('next').disabled = last >= out.total;
    }
    status('');
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
        el('div', { class: 'item-title' }, m.pinned ? el('span', { class: 'tag pin', text: 'pinned' }) : null, marked(m.title || '(no title)', terms)),
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
for (const id of ['f-scope', 'f-type', 'f-tag', 'f-session', 'f-conf', 'f-after', 'f-before', 'f-sort']) {
  $(id).addEventListener('change', () => { state.offset = 0; refreshList(); });
}
$('prev').addEventListener('click', () => { state.offset = Math.max(0, state.offset - PAGE); refreshList(); });
$('next').addEventListener('click', () => { state.offset += PAGE; refreshList(); });
$('list').addEventListener('keydown', (e) => {
  if (e.key !== 'ArrowDown' && e.key !== 'ArrowUp') return;
  const buttons = [...$('list').querySelectorAll('li > button')];
  const i = buttons.indexOf(document.activeElement);
  const j = e.key === 'ArrowDown' ? Math.min(i + 1, buttons.length - 1) : Math.max(i - 1, 0);
  if (buttons[j]) { buttons[j].focus(); e.preventDefault(); }
});

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

// loadChain shows the memories that replace m, newest last.
async function loadChain(m, box) {
  let cur = m;
  const seen = new Set([m.id]);
  const items = [];
  while (cur.superseded_by && !seen.has(cur.superseded_by) && items.length < 10) {
    try { cur = await api('GET', '/memories/' + encodeURIComponent(cur.superseded_by)); } catch (_) { break; }
    seen.add(cur.id);
    items.push(cur);
  }
  if (!items.length) { box.replaceChildren(el('p', { class: 'muted', text: m.superseded_by ? 'Replaced by ' + m.superseded_by + ' (gone).' : 'Not superseded.' })); return; }
  const ol = el('ol', { class: 'list compact' });
  for (const n of items) ol.append(el('li', {}, el('button', { type: 'button', onclick: () => openMemory(n.id) }, 'replaced by: ', n.title || n.id)));
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

async function loadHousekeeping() {
  try {
    const [st, used, recent, act] = await Promise.all([
      api('GET', '/stats'),
      api('GET', '/memories' + qs({ sort: 'used', limit: 10, global: false })),
      api('GET', '/memories' + qs({ sort: 'recent', limit: 10, global: false })),
      api('GET', '/activity' + qs({ limit: 20 })),
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
    compactList($('h-used'), used.memories.filter(m => m.use_count > 0), m => m.use_count + '×');
    compactList($('h-low'), recent.memories.filter(m => m.last_used_at), m => fmtTime(m.last_used_at));
    const ol = $('h-activity');
    ol.replaceChildren();
    for (const a of act.entries) ol.append(el('li', {}, el('span', { class: 'action', text: a.action }), ' ' + short(a.memory_id) + ' · ' + fmtTime(a.at)));
  } catch (e) { fail(e); }
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
  const keys = { '1': 'memories', '2': 'live', '3': 'context', '4': 'housekeeping' };
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
