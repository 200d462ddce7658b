package main

// `cairn serve`'s HTTP side: the MCP server (package mcpserver) over
// streamable HTTP at /mcp, sharing the resident session (its open store,
// postings cache and batched use recording) with the Unix socket.
//
// The REST API (package httpapi) is served beside it at /api/, with the
// same limits and the same cross-origin and DNS rebinding protection.
//
// It listens on loopback by default (127.0.0.1:7421), where no token is
// needed. A non-loopback address is refused unless --allow-remote is
// given and at least one token exists (cairn token create): such a server
// needs a token on every /api and /mcp request. Requests from web pages
// of other origins are refused (CSRF), and so are requests to a loopback
// address that name another host (DNS rebinding).
//
// /mcp serves the project of `cairn serve` (its --project, or its working
// directory's); /mcp?project=NAME serves project NAME, with the user's
// configuration only. A session keeps the project it started with.
//
// GET /api/projects/{project}/events streams the project's events
// (serve_events.go), under the same loopback, Host and cross-origin rules.
//
// The web page (package webui) is served at / under the same Host check;
// it needs no token itself, and sends the user's token to the API.

import (
	"cmp"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/engine"
	"github.com/cairn-dev/cairn/eventstream"
	"github.com/cairn-dev/cairn/httpapi"
	"github.com/cairn-dev/cairn/local"
	"github.com/cairn-dev/cairn/recall"
	"github.com/cairn-dev/cairn/webui"
)

// defaultHTTPAddr is where `cairn serve` answers MCP over HTTP unless told
// otherwise.
const defaultHTTPAddr = "127.0.0.1:7421"

// httpFlags are serve's HTTP flags.
type httpFlags struct {
	fs          *flagSet
	addr        string
	allowRemote bool
}

// registerHTTPFlags adds --addr and --allow-remote to serve's flags.
func registerHTTPFlags(fs *flagSet) *httpFlags {
	h := &httpFlags{fs: fs}
	fs.StringVar(&h.addr, "addr", defaultHTTPAddr, "answer MCP over streamable HTTP at http://`host:port`/mcp (\"off\": no HTTP)")
	fs.BoolVar(&h.allowRemote, "allow-remote", false, "allow --addr to be a non-loopback address; every request must then send a token (cairn token create)")
	return h
}

// explicit reports whether --addr was given.
func (h *httpFlags) explicit() bool {
	set := false
	h.fs.Visit(func(f *flag.Flag) { set = set || f.Name == "addr" })
	return set
}

// checkHTTPAddr refuses an address that is not loopback unless remote
// access was asked for, and reports whether it is remote.
func checkHTTPAddr(addr string, allowRemote bool) (remote bool, err error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false, usagef("serve: --addr %q is not host:port (e.g. 127.0.0.1:7421)", addr)
	}
	if host == "localhost" {
		return false, nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return false, nil
	}
	if !allowRemote {
		return true, usagef("serve: --addr %s is not a loopback address; anyone who can reach it could read and change the memories. Use 127.0.0.1, or add --allow-remote (requests then need a token: cairn token create)", addr)
	}
	return true, nil
}

// checkTokens refuses a remote server when no token exists: it would
// refuse every request.
func checkTokens(ctx context.Context, s *session, addr string) error {
	toks, err := s.eng.FindTokens(ctx)
	if err != nil {
		return err
	}
	if len(toks) == 0 {
		return usagef("serve: --addr %s is reachable from other machines, and every request to it needs a token, but none exists; create one first with `cairn token create --project NAME`", addr)
	}
	return nil
}

// Limits of MCP over HTTP. A client that sends its headers or body too
// slowly, or keeps a connection idle, is cut off; connections beyond
// defaultHTTPLimits.conns are closed as soon as they are accepted; at most
// maxMCPSessions sessions live at once (a new one ends the one unused
// longest), and at most maxProjectServers projects keep an MCP server.
type httpLimits struct {
	header, body, idle time.Duration
	conns              int
}

var defaultHTTPLimits = httpLimits{header: 10 * time.Second, body: 30 * time.Second, idle: 2 * time.Minute, conns: 128}

const (
	maxMCPSessions    = 64
	maxProjectServers = 32
	// mcpSessionTimeout ends a session that made no request for that long
	// (the SDK's StreamableHTTPOptions.SessionTimeout); a project server
	// unused for as long is dropped.
	mcpSessionTimeout = 30 * time.Minute
)

// startHTTP starts MCP over HTTP for the resident session s and returns
// the address it listens on ("" when HTTP is off) and the function that
// stops it (waiting for requests in flight); call it before s.uses is
// closed. An address given with --addr that cannot be used is an error;
// the default address being taken (by another cairn serve, say) only a
// warning.
func startHTTP(ctx context.Context, m *Main, g *globals, s *session, h *httpFlags) (addr string, stop func(), err error) {
	if h.addr == "off" || h.addr == "" {
		return "", func() {}, nil
	}
	remote, err := checkHTTPAddr(h.addr, h.allowRemote)
	if err != nil {
		return "", nil, err
	}
	if remote {
		if err := checkTokens(ctx, s, h.addr); err != nil {
			return "", nil, err
		}
	}
	ln, err := net.Listen("tcp", h.addr)
	if err != nil {
		if !h.explicit() {
			fmt.Fprintf(m.Stderr, "cairn: not serving MCP over HTTP: %v (give --addr HOST:PORT for another address)\n", err)
			return "", func() {}, nil
		}
		return "", nil, cairn.WrapError(cairn.EUNAVAILABLE, err, "cannot listen on %s", h.addr)
	}
	mh, err := newMCPHTTP(m, s, s.recordUse, g.project)
	if err != nil {
		ln.Close()
		return "", nil, err
	}
	api := newAPI(m, s, g.project, remote)
	events := eventstream.New(s.eng, &eventstream.Options{Active: s.touch})
	api.Handle(eventsPattern, events) // the API's host, origin and token checks
	// The web page, under the API's host check; it reads and writes only
	// through the API. A server that needs tokens does not name its
	// project to a page loaded without one.
	pageOpts := webui.Options{Project: g.project}
	if remote {
		pageOpts.Project = ""
	}
	page := webui.New(pageOpts)
	api.Handle("GET /{$}", page)
	api.Handle("GET /ui/", page)
	var mcpHandler http.Handler = mh
	if remote {
		mcpHandler = api.Guard(func(r *http.Request) string { return cmp.Or(r.URL.Query().Get("project"), g.project) }, mh)
	}
	hs := newHTTPServer(mcpHandler, api, defaultHTTPLimits)
	hs.RegisterOnShutdown(events.Shutdown) // streams end with their last seq
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := hs.Serve(&limitListener{Listener: ln, max: defaultHTTPLimits.conns}); err != nil && !errors.Is(err, http.ErrServerClosed) {
			fmt.Fprintf(m.Stderr, "cairn: MCP over HTTP stopped: %v\n", err)
		}
	}()
	fmt.Fprintf(m.Stderr, "cairn: MCP over streamable HTTP at http://%s/mcp for project %s (another project: ?project=NAME)\n", ln.Addr(), g.project)
	fmt.Fprintf(m.Stderr, "cairn: REST API at http://%s/api/projects/%s/ (described at /api/openapi.json)\n", ln.Addr(), url.PathEscape(g.project))
	if remote {
		fmt.Fprintf(m.Stderr, "cairn: every request needs Authorization: Bearer TOKEN (cairn token list)\n")
	}
	fmt.Fprintf(m.Stderr, "cairn: web page at http://%s/\n", ln.Addr())
	fmt.Fprintf(m.Stderr, "cairn: events as server-sent events at http://%s%s\n", ln.Addr(), strings.Replace(eventsPattern, "GET ", "", 1))
	return ln.Addr().String(), func() {
		sctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		if hs.Shutdown(sctx) != nil {
			hs.Close() // streams still open after the grace period
		}
		<-done
	}, nil
}

// newHTTPServer serves mcp at /mcp and api at /api/ with lim's timeouts
// (the connection cap is the listener's). There is no whole-request
// ReadTimeout: it would also end the long-lived event streams of GET /mcp;
// a request's body gets lim.body instead.
func newHTTPServer(mcp, api http.Handler, lim httpLimits) *http.Server {
	mux := http.NewServeMux()
	csrf := http.NewCrossOriginProtection()
	mux.Handle("/mcp", csrf.Handler(bodyDeadline(mcp, lim.body)))
	if api != nil {
		mux.Handle("/api/", csrf.Handler(bodyDeadline(api, lim.body)))
		mux.Handle("/", csrf.Handler(api)) // the web page (webui), registered on api
	}
	return &http.Server{Handler: mux, ReadHeaderTimeout: lim.header, IdleTimeout: lim.idle}
}

// newAPI returns the REST API over the resident session s. home is
// serve's own project: its working directory's configuration applies to
// its context blocks; other projects get the user's configuration only.
// remote makes a token necessary on every request.
func newAPI(m *Main, s *session, home string, remote bool) *httpapi.Server {
	other := *m
	other.Getwd = func() (string, error) { return "", errors.New("not the project's folder") }
	root := ""
	if wd, err := m.Getwd(); err == nil && wd != "" {
		root = projectRoot(wd)
	}
	return httpapi.New(httpapi.Options{
		Service: func(project string, now time.Time) httpapi.Service {
			s.touch() // a request keeps a server started with --idle alive
			return atTime(s.eng.WithProject(project), now)
		},
		Context: func(ctx context.Context, call recall.Call) (*recall.Answer, error) {
			if call.Config == nil {
				cm := &other
				if call.Project == home {
					cm = m
				}
				l, err := cm.loadConfig()
				if err != nil {
					return nil, err
				}
				call.Config = l.Config
			}
			if call.Project == home && call.Root == "" {
				call.Root = root
			}
			return recall.AnswerCall(ctx, s.eng.WithProject(call.Project), call, s.recordUse)
		},
		Root: func(project string) string {
			if project == home {
				return root // serve's own folder: the stale marks of the web page
			}
			return ""
		},
		Tokens:       s.eng,
		RequireToken: remote,
		Logger:       slog.New(slog.NewTextHandler(m.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
	})
}

// bodyDeadline gives a request d to send its body; the deadline is lifted
// once the body is read, so that the answer may stream for longer.
func bodyDeadline(h http.Handler, d time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body != nil && r.Body != http.NoBody {
			rc := http.NewResponseController(w)
			if rc.SetReadDeadline(time.Now().Add(d)) == nil {
				r.Body = &deadlineBody{ReadCloser: r.Body, rc: rc}
			}
		}
		h.ServeHTTP(w, r)
	})
}

// deadlineBody lifts the connection's read deadline at the end of the body.
type deadlineBody struct {
	io.ReadCloser
	rc   *http.ResponseController
	done bool
}

func (b *deadlineBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF && !b.done {
		b.done = true
		b.rc.SetReadDeadline(time.Time{})
	}
	return n, err
}

// limitListener closes the connections accepted beyond max open ones at
// once, so that a flood of connections costs the server nothing but the
// accepts.
type limitListener struct {
	net.Listener
	max  int
	open atomic.Int64
}

func (l *limitListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if l.open.Add(1) > int64(l.max) {
			l.open.Add(-1)
			c.Close()
			continue
		}
		return &countedConn{Conn: c, l: l}, nil
	}
}

type countedConn struct {
	net.Conn
	l    *limitListener
	once sync.Once
}

func (c *countedConn) Close() error {
	c.once.Do(func() { c.l.open.Add(-1) })
	return c.Conn.Close()
}

// mcpHTTP is MCP over streamable HTTP for any project of the database:
// the SDK's handler, with bounded state. The SDK keeps every session
// until it is deleted or idle for its SessionTimeout, and cairn keeps an
// MCP server per project; here at most maxMCPSessions sessions live (a
// new one closes the one unused longest) and at most maxProjectServers
// servers are kept (least recently used first out; a dropped server lives
// on only while sessions use it).
type mcpHTTP struct {
	handler  http.Handler
	servers  *projectServers
	maxSess  int
	mu       sync.Mutex
	lastUsed map[string]time.Time     // by session id
	live     map[*mcp.Server]struct{} // servers that may have sessions
}

// newMCPHTTP returns the handler of /mcp; home is serve's own project,
// served when no ?project= is given.
func newMCPHTTP(m *Main, s *session, record func(context.Context, []string, string) error, home string) (*mcpHTTP, error) {
	mh := &mcpHTTP{
		servers:  &projectServers{m: m, s: s, record: record, home: home, max: maxProjectServers, idle: mcpSessionTimeout},
		maxSess:  maxMCPSessions,
		lastUsed: map[string]time.Time{},
		live:     map[*mcp.Server]struct{}{},
	}
	if _, err := mh.servers.get(home); err != nil {
		return nil, err
	}
	mh.handler = mcp.NewStreamableHTTPHandler(func(r *http.Request) *mcp.Server {
		project := r.URL.Query().Get("project")
		if project == "" {
			project = home
		}
		srv, err := mh.servers.get(project)
		if err != nil {
			return nil // 400 Bad Request
		}
		mh.makeRoom(srv)
		return srv
	}, &mcp.StreamableHTTPOptions{SessionTimeout: mcpSessionTimeout})
	return mh, nil
}

const sessionHeader = "Mcp-Session-Id"

func (mh *mcpHTTP) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	mh.servers.s.touch() // a request keeps a server started with --idle alive
	if id := r.Header.Get(sessionHeader); id != "" {
		mh.touch(id)
	}
	mh.handler.ServeHTTP(w, r)
	if id := w.Header().Get(sessionHeader); id != "" && r.Header.Get(sessionHeader) == "" {
		mh.touch(id) // a session was made
	}
}

func (mh *mcpHTTP) touch(id string) {
	mh.mu.Lock()
	defer mh.mu.Unlock()
	if _, ok := mh.lastUsed[id]; ok || len(mh.lastUsed) < 2*mh.maxSess {
		mh.lastUsed[id] = time.Now()
	}
}

// sessions returns the live sessions; call with mh.mu held. It forgets
// servers without sessions that are no longer kept, and the use times of
// sessions that ended.
func (mh *mcpHTTP) sessions() []*mcp.ServerSession {
	var all []*mcp.ServerSession
	ids := map[string]bool{}
	for srv := range mh.live {
		n := 0
		for ss := range srv.Sessions() {
			all = append(all, ss)
			ids[ss.ID()] = true
			n++
		}
		if n == 0 && !mh.servers.kept(srv) {
			delete(mh.live, srv)
		}
	}
	for id := range mh.lastUsed {
		if !ids[id] {
			delete(mh.lastUsed, id)
		}
	}
	return all
}

// makeRoom closes the sessions unused longest while a new session of srv
// would make more than maxSess.
func (mh *mcpHTTP) makeRoom(srv *mcp.Server) {
	mh.mu.Lock()
	mh.live[srv] = struct{}{}
	all := mh.sessions()
	var victims []*mcp.ServerSession
	if extra := len(all) + 1 - mh.maxSess; extra > 0 {
		// A session never seen again since it began counts as unused
		// since the zero time: it goes first.
		slices.SortFunc(all, func(a, b *mcp.ServerSession) int {
			return mh.lastUsed[a.ID()].Compare(mh.lastUsed[b.ID()])
		})
		victims = all[:extra]
	}
	mh.mu.Unlock()
	for _, ss := range victims {
		ss.Close()
	}
}

// counts reports the live sessions and the servers kept, for tests.
func (mh *mcpHTTP) counts() (sessions, servers int) {
	mh.mu.Lock()
	sessions = len(mh.sessions())
	mh.mu.Unlock()
	return sessions, mh.servers.len()
}

// projectServers are the MCP servers of the projects asked for over HTTP,
// made on first use and shared by their sessions: at most max, least
// recently used first out, and none unused for idle.
type projectServers struct {
	m      *Main
	s      *session
	record func(context.Context, []string, string) error
	home   string // serve's own project: its working directory's configuration applies
	max    int
	idle   time.Duration

	mu     sync.Mutex
	byName map[string]*projectServer
}

type projectServer struct {
	srv      *mcp.Server
	lastUsed time.Time
}

func (ps *projectServers) get(project string) (*mcp.Server, error) {
	if !cairn.ValidProject(project) {
		return nil, cairn.Errorf(cairn.EINVALID, "project %q is not valid", project)
	}
	ps.mu.Lock()
	defer ps.mu.Unlock()
	now := time.Now()
	if ps.byName == nil {
		ps.byName = map[string]*projectServer{}
	}
	for name, e := range ps.byName {
		if now.Sub(e.lastUsed) > ps.idle && name != project {
			delete(ps.byName, name)
		}
	}
	if e := ps.byName[project]; e != nil {
		e.lastUsed = now
		return e.srv, nil
	}
	srv, err := newMCPServer(ps.m, local.New(ps.s.eng, project, ps.record), project, project == ps.home)
	if err != nil {
		return nil, err
	}
	if len(ps.byName) >= ps.max {
		oldest := ""
		for name, e := range ps.byName {
			if oldest == "" || e.lastUsed.Before(ps.byName[oldest].lastUsed) {
				oldest = name
			}
		}
		delete(ps.byName, oldest)
	}
	ps.byName[project] = &projectServer{srv: srv, lastUsed: now}
	return srv, nil
}

// kept reports whether srv is one of the servers kept.
func (ps *projectServers) kept(srv *mcp.Server) bool {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	for _, e := range ps.byName {
		if e.srv == srv {
			return true
		}
	}
	return false
}

func (ps *projectServers) len() int {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	return len(ps.byName)
}

// atTime is eng at now, the clock a request asked for; eng itself when
// now is zero.
func atTime(eng *engine.Engine, now time.Time) *engine.Engine {
	if now.IsZero() {
		return eng
	}
	return eng.WithClock(func() time.Time { return now })
}
