package server

// Claude Code's http hooks: POST /hooks/claude/{event} with the hook's
// JSON as the body answers what `cairn hook claude EVENT` prints for the
// same JSON (package hook/inject decides for both), with no process
// started. Claude Code reads a 2xx answer's body as a command hook's
// standard output (empty: nothing added) and takes any other status, a
// refused connection or a timeout as a non-blocking error: the session
// goes on without the block.
//
// The project is the payload's cwd's (its git top-level folder's name),
// unless the X-Cairn-Project header names one (Claude Code fills it from
// CAIRN_PROJECT when the hook lists it in allowedEnvVars); X-Cairn-Task
// is CAIRN_TASK, an agent loop's task. X-Cairn-Timeout is the hook's
// timeout in seconds, as in settings.json: the answer comes before it,
// empty when the block is not ready in time (Claude Code would drop a
// late answer, and count it as an error). wire.NowHeader sets the clock of
// the call, as the REST API's.
//
// The same route answers on the server's Unix socket, where the command
// hooks of this machine hand it the payload they read, as it is, and
// print the answer as it is: one implementation, and a command hook that
// neither decodes nor encodes a block.

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/hook"
	"github.com/cairn-dev/cairn/hook/inject"
	"github.com/cairn-dev/cairn/httpapi"
	"github.com/cairn-dev/cairn/local"
	"github.com/cairn-dev/cairn/redact"
	"github.com/cairn-dev/cairn/wire"
)

// HookPattern is where Claude Code's http hooks are answered.
const HookPattern = "POST /hooks/claude/{event}"

// HookSocketPattern is where the socket answers the command hooks of
// this machine: Claude Code's and Codex's (agent claude or codex).
const HookSocketPattern = "POST /hooks/{agent}/{event}"

// HookEvents are the events answered over HTTP: those that add context
// while the session runs. SessionStart stays a command hook (it starts
// the server), and so do the events that capture.
var HookEvents = []hook.Event{hook.UserPromptSubmit, hook.PreToolUse, hook.PostToolUseFailure, hook.SubagentStart}

// HookDatabaseHeader carries the session's CAIRN_DB, after "CAIRN_DB="
// (so that the header is there when the variable is empty), and
// HookDatabaseFileHeader its CAIRN_DB_FILE: which database the session's
// hooks use (Config.HookDatabase). A request without it comes from an
// older install and is not checked.
const (
	HookDatabaseHeader     = "X-Cairn-Database"
	HookDatabaseFileHeader = "X-Cairn-Database-File"
	hookDatabasePrefix     = "CAIRN_DB="
)

// DefaultHookTimeout is the time an http hook is answered within when
// its request does not say its timeout (X-Cairn-Timeout).
const DefaultHookTimeout = 10 * time.Second

// maxHookPayload bounds a hook's body, as the command hook bounds its
// standard input: a payload carries a failed tool's whole output.
const maxHookPayload = 16 << 20

// hookCall is what the hook route read before the API's checks: they
// need the project, which the payload names.
type hookCall struct {
	agent    string // claude or codex
	onSocket bool   // a command hook's, handed over on the socket
	event    hook.Event
	payload  *hook.Payload
	project  string
	root     string // the git top-level folder of the payload's cwd
	task     string
	timeout  time.Duration
	now      time.Time // the request's clock (wire.NowHeader); zero: the server's
}

type hookCallKey struct{}

// hookHandler answers HookPattern: it reads the event and the payload,
// finds the project, and answers through the API's host and token checks
// for that project.
// onSocket: the calls of the command hooks of this machine, which the log
// names as such.
func (s *Server) hookHandler(api *httpapi.Server, onSocket bool) http.Handler {
	guarded := api.Guard(func(r *http.Request) string {
		return r.Context().Value(hookCallKey{}).(*hookCall).project
	}, http.HandlerFunc(s.answerHook))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.touch()
		call, err := s.readHookCall(w, r, onSocket)
		if err != nil {
			api.Fail(w, r, err)
			return
		}
		guarded.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), hookCallKey{}, call)))
	})
}

// readHookCall reads a hook request: EINVALID for a payload that is not
// one JSON object in UTF-8, a timeout that is not a number of seconds, or a
// project that cannot be told; ENOTFOUND for an event not answered here.
func (s *Server) readHookCall(w http.ResponseWriter, r *http.Request, onSocket bool) (*hookCall, error) {
	agent := cmp.Or(r.PathValue("agent"), "claude")
	if agent != "claude" && agent != "codex" {
		return nil, cairn.Errorf(cairn.ENOTFOUND, "no hooks of %q are answered here: claude or codex", agent)
	}
	name := r.PathValue("event")
	ev, ok := hook.ParseEvent(name)
	if !ok || !slices.Contains(HookEvents, ev) {
		names := make([]string, len(HookEvents))
		for i, e := range HookEvents {
			names[i] = string(e)
		}
		return nil, cairn.Errorf(cairn.ENOTFOUND, "the hook event %q is not answered over HTTP; these are: %s (the others are command hooks: cairn install claude)",
			name, strings.Join(names, ", "))
	}
	call := &hookCall{agent: agent, event: ev, onSocket: onSocket, timeout: DefaultHookTimeout, task: strings.TrimSpace(r.Header.Get("X-Cairn-Task"))}
	now, err := wire.ParseTime(r.Header.Get(wire.NowHeader))
	if err != nil {
		return nil, cairn.Errorf(cairn.EINVALID, "the %s header: %v", wire.NowHeader, err)
	}
	call.now = now
	if v := strings.TrimSpace(r.Header.Get("X-Cairn-Timeout")); v != "" {
		sec, err := strconv.ParseFloat(v, 64)
		if err != nil || sec <= 0 || sec > 24*3600 {
			return nil, cairn.Errorf(cairn.EINVALID, "X-Cairn-Timeout %q is not the hook's timeout in seconds (such as 10)", v)
		}
		call.timeout = time.Duration(sec * float64(time.Second))
	}
	// As the API reads a body: too large, unreadable or not UTF-8 (which
	// the JSON decoder would turn into U+FFFD, searched and stored as
	// such) is refused with its error.
	data, err := httpapi.ReadBody(w, r, maxHookPayload)
	if err != nil {
		return nil, err
	}
	p, err := hook.Parse(data)
	if errors.Is(err, hook.ErrEmpty) {
		return nil, cairn.Errorf(cairn.EINVALID, "no hook payload: send the hook's JSON as the request body")
	}
	if err != nil {
		return nil, cairn.Errorf(cairn.EINVALID, "%s", err.Error())
	}
	call.payload = p
	if p.CWD != "" {
		call.root = p.CWD
		if s.cfg.ProjectRoot != nil {
			call.root = s.cfg.ProjectRoot(p.CWD)
		}
	}
	call.project = strings.TrimSpace(r.Header.Get("X-Cairn-Project"))
	if call.project == "" && call.root != "" {
		call.project = filepath.Base(call.root)
	}
	if call.project == "" {
		return nil, cairn.Errorf(cairn.EINVALID, "the hook payload has no cwd, and no X-Cairn-Project header names the project")
	}
	if !cairn.ValidProject(call.project) {
		return nil, cairn.Errorf(cairn.EINVALID, "project %q is not valid", call.project)
	}
	if err := s.checkHookDatabase(r, p.CWD); err != nil {
		if cairn.ErrorCode(err) == cairn.ECONFLICT {
			s.logHook(call, err)
		}
		return nil, err
	}
	return call, nil
}

// checkHookDatabase refuses a hook of a session whose hooks use another
// database than the server's (Config.HookDatabase).
func (s *Server) checkHookDatabase(r *http.Request, dir string) error {
	vals, ok := r.Header[HookDatabaseHeader]
	if !ok || s.cfg.HookDatabase == nil || s.cfg.Path == "" {
		return nil
	}
	db, ok := strings.CutPrefix(headerText(vals[0]), hookDatabasePrefix)
	if !ok {
		return cairn.Errorf(cairn.EINVALID, "%s %q does not begin with %s", HookDatabaseHeader, vals[0], hookDatabasePrefix)
	}
	file := headerText(r.Header.Get(HookDatabaseFileHeader))
	want, err := s.cfg.HookDatabase(dir, strings.TrimSpace(db), strings.TrimSpace(file))
	if err != nil {
		return cairn.Errorf(cairn.EINVALID, "cannot tell the database of the hook's session: %s", cairn.ErrorMessage(err))
	}
	if samePath(want, s.cfg.Path) {
		return nil
	}
	return cairn.Errorf(cairn.ECONFLICT, "this server answers the database %s, and the hook's session uses %s (its CAIRN_DB, else CAIRN_DB_FILE, else the default): "+
		"the servers of the two databases take turns at the port of the hook's URL; give each database its own CAIRN_SERVE_ADDR and run `cairn install claude --http` again",
		s.label(), want)
}

// headerText is a header's value as text: Claude Code sends a value's
// characters as single bytes (Latin-1), which are not UTF-8 beyond
// ASCII; a value that is valid UTF-8 is taken as it is.
func headerText(v string) string {
	if utf8.ValidString(v) {
		return v
	}
	rs := make([]rune, len(v))
	for i := range len(v) {
		rs[i] = rune(v[i])
	}
	return string(rs)
}

// samePath reports whether two paths name the same file: the same clean
// path, or files the operating system says are one.
func samePath(a, b string) bool {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	fa, err := os.Stat(a)
	if err != nil {
		return false
	}
	fb, err := os.Stat(b)
	return err == nil && os.SameFile(fa, fb)
}

// answerHook answers a hook call that passed the checks: what the command
// hook prints, within the call's timeout, or nothing. Whatever fails is
// logged and costs the session only the block.
func (s *Server) answerHook(w http.ResponseWriter, r *http.Request) {
	call := r.Context().Value(hookCallKey{}).(*hookCall)
	// Answer a little before the timeout: the answer still has to travel.
	budget := call.timeout - min(call.timeout/10, 500*time.Millisecond)
	ctx, cancel := context.WithTimeout(r.Context(), budget)
	defer cancel()
	type answer struct {
		out []byte
		err error
	}
	done := make(chan answer, 1)
	s.hooks.run(s.done, func() {
		defer func() {
			if v := recover(); v != nil {
				done <- answer{err: fmt.Errorf("internal error: %v", v)}
			}
		}()
		out, err := inject.Answer(ctx, call.event, call.payload, s.hookEnv(ctx, call))
		done <- answer{out, err}
	})
	var a answer
	select {
	case a = <-done:
	case <-ctx.Done():
		select {
		case a = <-done: // ready just in time
		default:
			a.err = fmt.Errorf("gave up after %v: the hook's timeout is %v", budget, call.timeout)
		}
	}
	if a.err != nil {
		s.logHook(call, a.err)
	}
	if a.out == nil {
		w.WriteHeader(http.StatusOK)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(a.out)))
	w.WriteHeader(http.StatusOK)
	w.Write(a.out)
}

// hookEnv is what package inject needs of a hook call answered here.
func (s *Server) hookEnv(ctx context.Context, call *hookCall) *inject.Env {
	root := ""
	if call.root != "" && filepath.Base(call.root) == call.project {
		root = call.root
	}
	var dataDir, state string
	if s.cfg.Path != "" {
		dataDir, state = filepath.Dir(s.cfg.Path), s.cfg.Path+".state.json"
	}
	return &inject.Env{
		Agent: call.agent, Project: call.project, Root: root, CWDRoot: call.root,
		Home: s.cfg.Home, Task: call.task, State: state, DataDir: dataDir,
		Config: func() (*cairn.Settings, error) {
			if s.cfg.SyncFolder != nil && call.root != "" {
				s.cfg.SyncFolder(ctx, call.root, call.project)
			}
			// The block is built here, with the project's settings.
			return s.eng.SettingsOf(ctx, call.project)
		},
		Service: local.New(atTime(s.eng, call.now), call.project, &local.Options{Record: s.RecordUse}),
		Log:     func(err error) { s.logHook(call, err) },
	}
}

// logHook writes one line about a hook call's error to the server's log,
// redacted as the command hook's log lines are.
func (s *Server) logHook(call *hookCall, err error) {
	session := ""
	if call.payload != nil && call.payload.SessionID != "" {
		session = " session " + redact.Text(call.payload.SessionID)
	}
	msg := redact.Text(strings.Join(strings.Fields(err.Error()), " "))
	if len(msg) > 2000 {
		msg = cairn.CutBytes(msg, 2000) + "…" // a log line stays valid UTF-8
	}
	kind := "cairn: http hook"
	if call.onSocket {
		kind = "hook" // a command hook's, answered here: its own line's words
	}
	fmt.Fprintf(s.cfg.Log, "%s %s %s%s: %s\n", kind, call.agent, call.event.Kebab(), session, msg)
}

// hookWorkers are the goroutines that build the http hooks' answers, kept
// between calls. A hook's answer is built apart from its request, so that
// the request can answer empty at its timeout; on a goroutine started for
// it, the answer grew the new goroutine's stack from its first size to
// the tens of KiB it needs, copying it each time, and after an idle every
// line of that is a cache miss: a kept worker's stack has the size
// already (a cold prompt call took 10% fewer last-level cache misses, a
// Bash call 4%; docs/performance.md, "A call after idle").
type hookWorkers struct {
	jobs chan func() // unbuffered: a send is taken by an idle worker
	idle atomic.Int32
}

// maxIdleHookWorkers is how many workers wait for calls: as many as
// sessions that call at once, which a server sees few of; a worker
// beyond them ends after its call.
const maxIdleHookWorkers = 8

// run runs job on an idle worker, or on a new one when none is idle.
// Workers end when done is closed.
func (h *hookWorkers) run(done <-chan struct{}, job func()) {
	select {
	case h.jobs <- job:
	default:
		go h.work(done, job)
	}
}

func (h *hookWorkers) work(done <-chan struct{}, job func()) {
	for {
		job()
		if h.idle.Add(1) > maxIdleHookWorkers {
			h.idle.Add(-1)
			return
		}
		select {
		case job = <-h.jobs:
			h.idle.Add(-1)
		case <-done:
			h.idle.Add(-1)
			return
		}
	}
}
