// The REST API and the event stream of the server that served the page.
// Every request names the project in its path and sends the token the
// user gave, if any.

let token = sessionStorage.getItem('cairn-token') || '';
let onUnauthorized = () => {};

export function setToken(t) {
  token = t;
  if (t) sessionStorage.setItem('cairn-token', t); else sessionStorage.removeItem('cairn-token');
}

export function whenUnauthorized(fn) { onUnauthorized = fn; }

function headers(extra) {
  const h = Object.assign({}, extra);
  if (token) h['Authorization'] = 'Bearer ' + token;
  return h;
}

// ApiError carries the API's error code and its one-sentence message.
export class ApiError extends Error {
  constructor(status, code, message) { super(message); this.status = status; this.code = code; }
}

export function projectPath(project, path) {
  return '/api/projects/' + encodeURIComponent(project) + path;
}

// call sends one request to a project's route and returns the decoded
// JSON answer (or the Response itself with opts.raw).
export function call(project, method, path, opts = {}) {
  return request(projectPath(project, path), method, opts);
}

// callServer is call for the routes of no project (/api/projects).
export function callServer(method, path, opts = {}) {
  return request('/api' + path, method, opts);
}

// request is call with the whole address of the route.
export async function request(url, method, opts = {}) {
  const init = { method, headers: headers(opts.headers), signal: opts.signal };
  if (opts.json !== undefined) {
    init.body = JSON.stringify(opts.json);
    init.headers['Content-Type'] = 'application/json';
  } else if (opts.body !== undefined) {
    init.body = opts.body;
  }
  const res = await fetch(url, init);
  if (!res.ok) {
    let code = 'internal', message = res.status + ' ' + res.statusText;
    try { const b = await res.json(); code = b.error.code; message = b.error.message; } catch (_) { /* not JSON */ }
    if (res.status === 401) onUnauthorized(message);
    throw new ApiError(res.status, code, message);
  }
  if (opts.raw) return res;
  return res.json();
}

export function qs(params) {
  const u = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (v !== undefined && v !== null && v !== '') u.set(k, String(v));
  }
  const s = u.toString();
  return s ? '?' + s : '';
}

// events follows the project's event stream, calling onEvent(event) for
// each event and onState(text) when the connection changes. It reads the
// stream with fetch (so that a token can be sent), resumes after the last
// seq it saw when the connection drops, and stops when stop() is called.
export function events(project, onEvent, onState) {
  const ctl = new AbortController();
  let last = null, stopped = false, wait = 500;
  (async () => {
    while (!stopped) {
      try {
        const h = headers({ Accept: 'text/event-stream' });
        if (last !== null) h['Last-Event-ID'] = String(last);
        const res = await fetch(projectPath(project, '/events'), { headers: h, signal: ctl.signal });
        if (!res.ok) {
          if (res.status === 401) onUnauthorized('this server needs a token');
          throw new Error('the event stream answered ' + res.status);
        }
        onState('live');
        wait = 500;
        const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
        let buf = '';
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          buf += value;
          let i;
          while ((i = buf.indexOf('\n\n')) >= 0) {
            const frame = buf.slice(0, i);
            buf = buf.slice(i + 2);
            let id = null, name = 'message', data = '';
            for (const line of frame.split('\n')) {
              if (line.startsWith(':')) continue;
              const c = line.indexOf(':');
              const field = c < 0 ? line : line.slice(0, c);
              const val = c < 0 ? '' : line.slice(c + 1).replace(/^ /, '');
              if (field === 'id') id = val;
              else if (field === 'event') name = val;
              else if (field === 'data') data += (data ? '\n' : '') + val;
            }
            if (id !== null && id !== '') last = id;
            if (data && name !== 'shutdown') {
              try { onEvent(JSON.parse(data)); } catch (_) { /* a frame that is not an event */ }
            }
          }
        }
        onState('reconnecting…');
      } catch (e) {
        if (stopped) return;
        onState('disconnected (' + e.message + '); retrying…');
      }
      await new Promise(r => setTimeout(r, wait));
      wait = Math.min(wait * 2, 10000);
    }
  })();
  return () => { stopped = true; ctl.abort(); };
}
