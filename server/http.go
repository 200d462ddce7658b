package server

// The HTTP side: the MCP server (package mcpserver) over streamable HTTP
// at /mcp, the REST API (package httpapi) at /api/ with the project's
// events as server-sent events (package eventstream), and the web page
// (package webui) at /, sharing the engine and the batched use recording
// with the Unix socket.
//
// A loopback address needs no token. A non-loopback one is refused unless
// Config.AllowRemote, and then needs a token on every /api and /mcp
// request. Requests from web pages of other origins are refused (CSRF),
// and so are requests to a loopback address that name another host (DNS
// rebinding); the page needs no token itself, and sends the user's token
// to the API.
//
// /mcp serves the server's own project; /mcp?project=NAME serves project
// NAME. A session belongs to the project and the token it started with
// (mcp.go). Who may hold connections is the gate's (conns.go).

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/engine"
	"github.com/cairn-dev/cairn/eventstream"
	"github.com/cairn-dev/cairn/httpapi"
	"github.com/cairn-dev/cairn/local"
	"github.com/cairn-dev/cairn/mcpserver"
	"github.com/cairn-dev/cairn/webui"
)

// EventsPattern is where a project's events are served.
const EventsPattern = "GET /api/projects/{project}/events"

// Limits bound what HTTP clients may hold; zero fields take the defaults
// (DefaultLimits).
type Limits struct {
	// Header is how long a client has to send a request's headers, Body
	// its body; Idle how long a connection is kept between requests.
	Header, Body, Idle time.Duration
	// Conns bounds the connections open at once. At the bound, a new
	// connection takes the place of the one that has waited longest for
	// its request (or its body) to come; one is refused (503) only when
	// every connection is being answered.
	Conns int
	// PerClient bounds the untrusted connections of one address, and
	// Reserve is how many of Conns only trusted connections may take:
	// those from this machine (loopback) and those that sent a valid
	// token.
	PerClient, Reserve int
	// Streams bounds the long-lived requests (event streams, MCP's GET
	// streams) at once, so that they cannot take every connection; more
	// are refused (503).
	Streams int
	// MCPSessions bounds the MCP sessions that live at once: at the
	// bound a new session ends the one unused longest, if it has been
	// unused for MCPSessionIdle; otherwise the new one is refused (503).
	// MCPProjects bounds the projects that keep an MCP server. A session
	// unused for MCPSessionTimeout ends (a project server unused as long
	// is dropped).
	MCPSessions       int
	MCPProjects       int
	MCPSessionIdle    time.Duration
	MCPSessionTimeout time.Duration
}

// DefaultLimits are the limits of a zero Limits. An idle connection costs
// the server about 26 KiB of memory and an MCP session about 15 KiB (500
// of the one and 1,000 of the other measured on `cairn serve`): at most
// about 13 MiB and 15 MiB in all, and up to 32 MiB more while the 512
// connections send headers of 64 KiB.
var DefaultLimits = Limits{
	Header: 5 * time.Second, Body: 30 * time.Second, Idle: time.Minute,
	Conns: 512, PerClient: 64, Reserve: 64, Streams: 256,
	MCPSessions: 1024, MCPProjects: 32, MCPSessionIdle: time.Minute, MCPSessionTimeout: 30 * time.Minute,
}

// maxHeaderBytes bounds a request's headers (Go's default is 1 MiB): a
// token and a few fields need far less, and many connections sending
// large headers slowly would hold that much each.
const maxHeaderBytes = 64 << 10

func (l Limits) withDefaults() Limits {
	d := DefaultLimits
	out := Limits{
		Header: cmp.Or(l.Header, d.Header), Body: cmp.Or(l.Body, d.Body), Idle: cmp.Or(l.Idle, d.Idle),
		Conns: cmp.Or(l.Conns, d.Conns), PerClient: cmp.Or(l.PerClient, d.PerClient), Reserve: cmp.Or(l.Reserve, d.Reserve),
		Streams:     cmp.Or(l.Streams, d.Streams),
		MCPSessions: cmp.Or(l.MCPSessions, d.MCPSessions), MCPProjects: cmp.Or(l.MCPProjects, d.MCPProjects),
		MCPSessionIdle: cmp.Or(l.MCPSessionIdle, d.MCPSessionIdle), MCPSessionTimeout: cmp.Or(l.MCPSessionTimeout, d.MCPSessionTimeout),
	}
	// A reserve cannot take every connection, nor streams all of them.
	out.Reserve = min(out.Reserve, out.Conns/2)
	out.Streams = min(out.Streams, max(out.Conns/2, 1))
	return out
}

// CheckAddr checks an HTTP address: host:port, and loopback unless
// allowRemote. It reports whether the address is reachable from other
// machines. EINVALID says what is wrong.
func CheckAddr(addr string, allowRemote bool) (remote bool, err error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false, cairn.Errorf(cairn.EINVALID, "the address %q is not host:port (e.g. 127.0.0.1:7421)", addr)
	}
	if host == "localhost" {
		return false, nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return false, nil
	}
	if !allowRemote {
		return true, cairn.Errorf(cairn.EINVALID, "the address %s is not a loopback address; anyone who can reach it could read and change the memories", addr)
	}
	return true, nil
}

// startHTTP listens on Config.Addr, when set, and serves MCP, REST,
// events and the page there.
func (s *Server) startHTTP(ctx context.Context) error {
	if s.cfg.Addr == "" {
		return nil
	}
	remote, err := CheckAddr(s.cfg.Addr, s.cfg.AllowRemote)
	if err != nil {
		return err
	}
	remote = remote || s.cfg.testRemote
	addr := s.cfg.Addr
	if s.cfg.AddrTries > 0 {
		addr = preferredAddr(addr, RecordedAddr(s.cfg.Path), s.cfg.AddrTries)
	}
	ln, err := listenFrom(addr, s.cfg.AddrTries)
	if err != nil {
		if s.cfg.AddrOptional {
			fmt.Fprintf(s.cfg.Log, "cairn: not serving HTTP: %v (give --addr HOST:PORT for another address)\n", err)
			return nil
		}
		return cairn.WrapError(cairn.EUNAVAILABLE, err, "cannot listen on %s", s.cfg.Addr)
	}
	if a := ln.Addr().String(); a != addr {
		if _, port, _ := net.SplitHostPort(addr); port != "0" {
			fmt.Fprintf(s.cfg.Log, "cairn: %s is taken; answering HTTP at %s\n", addr, a)
		}
	}
	// Where the hooks, the installer and the next server find it.
	if err := recordAddr(s.cfg.Path, ln.Addr().String()); err != nil {
		fmt.Fprintf(s.cfg.Log, "cairn: cannot record the HTTP address: %v\n", err)
	}
	gate := newConnGate(s.cfg.Limits)
	if s.cfg.localPeer != nil {
		gate.local = s.cfg.localPeer
	}
	hs, events, err := s.newHTTPServer(remote, gate)
	if err != nil {
		ln.Close()
		return err
	}
	s.gate, s.httpSrv, s.httpAddr, s.httpDone = gate, hs, ln.Addr().String(), make(chan struct{})
	hs.RegisterOnShutdown(events.Shutdown) // streams end with their last seq
	go func() {
		defer close(s.httpDone)
		if err := hs.Serve(&gateListener{Listener: ln, gate: gate}); err != nil && !errors.Is(err, http.ErrServerClosed) {
			fmt.Fprintf(s.cfg.Log, "cairn: MCP over HTTP stopped: %v\n", err)
		}
	}()
	return nil
}

// listenFrom listens on addr, or, when its port is taken, on the first
// free one of the tries ports that follow it.
func listenFrom(addr string, tries int) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err == nil || tries <= 0 || !errors.Is(err, syscall.EADDRINUSE) {
		return ln, err
	}
	host, p, _ := net.SplitHostPort(addr)
	port, perr := strconv.Atoi(p)
	if perr != nil || port == 0 {
		return nil, err
	}
	for i := 1; i <= tries && port+i <= 65535; i++ {
		ln, nerr := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(port+i)))
		if nerr == nil {
			return ln, nil
		}
		if !errors.Is(nerr, syscall.EADDRINUSE) {
			return nil, nerr
		}
	}
	return nil, fmt.Errorf("%w, and so are the %d ports after it", err, tries)
}

// AddrPath is the file that records the HTTP address of the server of
// the database at path: the last one it listened on, kept after it stops
// so that the next server asks for the same port first (the http hooks
// in Claude Code's settings name it).
func AddrPath(path string) string { return path + ".serve.addr" }

// recordAddr writes addr to AddrPath(path), replacing what was there.
func recordAddr(path, addr string) error {
	f := AddrPath(path)
	if b, err := os.ReadFile(f); err == nil && strings.TrimSpace(string(b)) == addr {
		return nil
	}
	tmp := f + ".tmp"
	if err := os.WriteFile(tmp, []byte(addr+"\n"), 0o600); err != nil {
		return err
	}
	return os.Rename(tmp, f)
}

// ReserveAddr chooses the address the server of the database at path
// will listen on when it starts, and records it (AddrPath) so that the
// server asks for it first: addr, or when something listens there, the
// first free one of the tries ports after it. It returns the address
// chosen. An address that cannot be recorded (the database's folder does
// not exist yet) is chosen all the same.
func ReserveAddr(path, addr string, tries int) string {
	ln, err := listenFrom(addr, tries)
	if err != nil {
		return addr
	}
	chosen := ln.Addr().String()
	ln.Close()
	recordAddr(path, chosen)
	return chosen
}

// preferredAddr is where a server whose port may move (tries ports after
// base's) listens first: the port its database's last server had,
// recorded, when it is one of those, else base.
func preferredAddr(base, recorded string, tries int) string {
	bh, bp, err1 := net.SplitHostPort(base)
	rh, rp, err2 := net.SplitHostPort(recorded)
	if err1 != nil || err2 != nil || bh != rh {
		return base
	}
	b, err1 := strconv.Atoi(bp)
	r, err2 := strconv.Atoi(rp)
	if err1 != nil || err2 != nil || r < b || r > b+tries {
		return base
	}
	return recorded
}

// RecordedAddr is the HTTP address the server of the database at path
// last listened on, "" when none was recorded or the record is not a
// loopback host:port.
func RecordedAddr(path string) string {
	b, err := os.ReadFile(AddrPath(path))
	if err != nil || len(b) > 300 {
		return ""
	}
	addr := strings.TrimSpace(string(b))
	if remote, err := CheckAddr(addr, false); err != nil || remote {
		return ""
	}
	if _, port, _ := net.SplitHostPort(addr); port == "0" || port == "" {
		return ""
	}
	return addr
}

// URL is the address of the HTTP side of the server of the database at
// path (http://HOST:PORT/): the running server's, else the one it last
// listened on; "" when neither is known.
func URL(ctx context.Context, path string) string {
	if st, err := ask(ctx, SocketPath(path), http.MethodGet, "/serve/status"); err == nil && st.URL != "" {
		return st.URL
	}
	if a := RecordedAddr(path); a != "" {
		return "http://" + a + "/"
	}
	return ""
}

// stopHTTP stops the HTTP side, waiting up to 3 s for requests in flight.
func (s *Server) stopHTTP() {
	if s.httpSrv == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	if s.httpSrv.Shutdown(ctx) != nil {
		s.httpSrv.Close() // streams still open after the grace period
	}
	<-s.httpDone
}

// newHTTPServer returns the HTTP side: MCP at /mcp, the REST API and its
// events at /api/, the page at /, with the limits' timeouts, its
// connections admitted by gate. remote makes a token necessary on every
// /api and /mcp request. There is no whole-request ReadTimeout: it would
// also end the long-lived streams (events, GET /mcp); a request's body
// gets Limits.Body instead.
func (s *Server) newHTTPServer(remote bool, gate *connGate) (*http.Server, *eventstream.Handler, error) {
	lim := s.cfg.Limits
	api := s.newAPI(remote, false, gate)
	mh, err := s.newMCPHTTP(api.Fail, remote)
	if err != nil {
		return nil, nil, err
	}
	s.mcp = mh
	streams := newStreamLimit(lim.Streams, api.Fail)
	events := eventstream.New(s.eng, &eventstream.Options{Active: s.touch})
	api.Handle(EventsPattern, streams.hold(events)) // the API's host, origin and token checks
	// The web page, under the API's host check; it reads and writes only
	// through the API. A server that needs tokens does not name its
	// project to a page loaded without one.
	pageOpts := webui.Options{Project: s.cfg.Project}
	if remote {
		pageOpts.Project = ""
	}
	page := webui.New(pageOpts)
	api.Handle("GET /{$}", page)
	api.Handle("GET /ui/", page)
	// A token sent to /mcp is checked as the API checks it (required when
	// remote), and binds the session it begins.
	mcpHandler := api.Guard(func(r *http.Request) string { return cmp.Or(r.URL.Query().Get("project"), s.cfg.Project) }, streams.hold(mh))

	mux := http.NewServeMux()
	csrf := http.NewCrossOriginProtection()
	csrf.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		api.Fail(w, r, cairn.Errorf(cairn.EFORBIDDEN, "a request from a web page of another origin may not change anything here (cross-origin requests are refused)"))
	}))
	mux.Handle("/mcp", csrf.Handler(bodyDeadline(mcpHandler, lim.Body)))
	mux.Handle("/api/", csrf.Handler(bodyDeadline(api, lim.Body)))
	mux.Handle(HookPattern, csrf.Handler(bodyDeadline(s.hookHandler(api, false), lim.Body)))
	mux.Handle("/", csrf.Handler(api)) // the web page (webui), registered on api
	hs := &http.Server{
		Handler: mux, ReadHeaderTimeout: lim.Header, IdleTimeout: lim.Idle, MaxHeaderBytes: maxHeaderBytes,
		ConnState: gate.connState, ConnContext: connContext,
		ErrorLog: log.New(s.cfg.Log, "cairn: http: ", 0),
	}
	return hs, events, nil
}

// newAPI returns the REST API over the engine; remote makes a token
// necessary on every request. A request with a valid token makes the
// connection it came on trusted by gate (nil: none). Only the Unix
// socket's API (owner) serves the token routes: its file is the
// database owner's alone, while a TCP port, even on loopback, is open to
// every user of the machine and to token holders.
func (s *Server) newAPI(remote, owner bool, gate *connGate) *httpapi.Server {
	var authenticated func(*http.Request, *cairn.Token)
	if gate != nil {
		authenticated = func(r *http.Request, _ *cairn.Token) {
			if c := connOf(r); c != nil {
				gate.trust(c)
			}
		}
	}
	// A block reads the project's folder only for this machine's user: a
	// server other machines reach answers token holders elsewhere, whose
	// folder this is not (httpapi leaves a block's folder unset there too).
	blockRoot := s.cfg.Root
	if remote {
		blockRoot = nil
	}
	return httpapi.New(httpapi.Options{
		Service: func(project string, now time.Time) httpapi.Service {
			s.touch() // a request keeps a server with an idle time alive
			return local.New(atTime(s.eng, now), project, &local.Options{Record: s.RecordUse, Root: blockRoot})
		},
		Root:           s.cfg.Root,
		CheckSettings:  s.cfg.CheckSettings,
		SettingsStored: s.cfg.SettingsStored,
		Tokens:         s.eng,
		ManageTokens:   owner,
		RequireToken:   remote,
		Authenticated:  authenticated,
		Logger:         s.logger,
	})
}

// newMCPServer returns the MCP server of project. remote: it answers
// token holders on other machines, whose folder the project's is not, so
// its blocks do not read it.
func (s *Server) newMCPServer(project string, remote bool) (*mcp.Server, error) {
	root := ""
	if !remote {
		root = s.cfg.Root(project)
	}
	return mcpserver.New(mcpserver.Options{
		Service: local.New(s.eng, project, &local.Options{Record: s.RecordUse}),
		Project: project,
		Root:    root,
		Version: s.cfg.Version,
		Logger:  s.logger,
	})
}

// bodyDeadline gives a request d to send its body; the deadline is lifted
// once the body is read, so that the answer may stream for longer. While
// the body comes, the gate may close the connection to make room.
func bodyDeadline(h http.Handler, d time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Body != nil && r.Body != http.NoBody {
			rc := http.NewResponseController(w)
			if rc.SetReadDeadline(time.Now().Add(d)) == nil {
				body := &deadlineBody{ReadCloser: r.Body, rc: rc, conn: connOf(r)}
				if body.conn != nil {
					body.conn.gate.readingBody(body.conn, true)
				}
				r.Body = body
			}
		}
		h.ServeHTTP(w, r)
	})
}

// deadlineBody lifts the connection's read deadline at the end of the body.
type deadlineBody struct {
	io.ReadCloser
	rc   *http.ResponseController
	conn *gatedConn
	done bool
}

func (b *deadlineBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF && !b.done {
		b.done = true
		b.rc.SetReadDeadline(time.Time{})
		if b.conn != nil {
			b.conn.gate.readingBody(b.conn, false)
		}
	}
	return n, err
}

// streamLimit bounds the long-lived requests (GET streams) at once.
type streamLimit struct {
	slots chan struct{}
	fail  func(http.ResponseWriter, *http.Request, error)
}

func newStreamLimit(n int, fail func(http.ResponseWriter, *http.Request, error)) *streamLimit {
	return &streamLimit{slots: make(chan struct{}, n), fail: fail}
}

// hold answers a GET through h when a stream's slot is free, else 503;
// other methods go through h as they are.
func (l *streamLimit) hold(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodGet {
			h.ServeHTTP(w, r)
			return
		}
		select {
		case l.slots <- struct{}{}:
			defer func() { <-l.slots }()
			h.ServeHTTP(w, r)
		default:
			l.fail(w, r, cairn.Errorf(cairn.EUNAVAILABLE, "the server has %d streams open, its most; try again later", cap(l.slots)))
		}
	})
}

// atTime is eng at now, the clock a request asked for; eng itself when
// now is zero.
func atTime(eng *engine.Engine, now time.Time) *engine.Engine {
	if now.IsZero() {
		return eng
	}
	return eng.WithClock(func() time.Time { return now })
}
