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
// NAME. A session keeps the project it started with.

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/config"
	"github.com/cairn-dev/cairn/engine"
	"github.com/cairn-dev/cairn/eventstream"
	"github.com/cairn-dev/cairn/httpapi"
	"github.com/cairn-dev/cairn/local"
	"github.com/cairn-dev/cairn/mcpserver"
	"github.com/cairn-dev/cairn/recall"
	"github.com/cairn-dev/cairn/webui"
)

// EventsPattern is where a project's events are served.
const EventsPattern = "GET /api/projects/{project}/events"

// Limits bound what HTTP clients may hold; zero fields take the defaults.
// A client that sends its headers (Header) or body (Body) too slowly, or
// keeps a connection idle (Idle), is cut off; connections beyond Conns
// are closed as soon as they are accepted; at most MCPSessions MCP
// sessions live at once (a new one ends the one unused longest), at most
// MCPProjects projects keep an MCP server, and a session unused for
// MCPSessionTimeout ends (a project server unused as long is dropped).
type Limits struct {
	Header, Body, Idle time.Duration
	Conns              int
	MCPSessions        int
	MCPProjects        int
	MCPSessionTimeout  time.Duration
}

// DefaultLimits are the limits of a zero Limits.
var DefaultLimits = Limits{
	Header: 10 * time.Second, Body: 30 * time.Second, Idle: 2 * time.Minute, Conns: 128,
	MCPSessions: 64, MCPProjects: 32, MCPSessionTimeout: 30 * time.Minute,
}

func (l Limits) withDefaults() Limits {
	d := DefaultLimits
	return Limits{
		Header: cmp.Or(l.Header, d.Header), Body: cmp.Or(l.Body, d.Body), Idle: cmp.Or(l.Idle, d.Idle),
		Conns: cmp.Or(l.Conns, d.Conns), MCPSessions: cmp.Or(l.MCPSessions, d.MCPSessions),
		MCPProjects: cmp.Or(l.MCPProjects, d.MCPProjects), MCPSessionTimeout: cmp.Or(l.MCPSessionTimeout, d.MCPSessionTimeout),
	}
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
	ln, err := net.Listen("tcp", s.cfg.Addr)
	if err != nil {
		if s.cfg.AddrOptional {
			fmt.Fprintf(s.cfg.Log, "cairn: not serving MCP over HTTP: %v (give --addr HOST:PORT for another address)\n", err)
			return nil
		}
		return cairn.WrapError(cairn.EUNAVAILABLE, err, "cannot listen on %s", s.cfg.Addr)
	}
	mh, err := s.newMCPHTTP()
	if err != nil {
		ln.Close()
		return err
	}
	api := s.newAPI(remote)
	events := eventstream.New(s.eng, &eventstream.Options{Active: s.touch})
	api.Handle(EventsPattern, events) // the API's host, origin and token checks
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
	var mcpHandler http.Handler = mh
	if remote {
		mcpHandler = api.Guard(func(r *http.Request) string { return cmp.Or(r.URL.Query().Get("project"), s.cfg.Project) }, mh)
	}
	hs := newHTTPServer(mcpHandler, api, s.cfg.Limits)
	hs.RegisterOnShutdown(events.Shutdown) // streams end with their last seq
	s.httpSrv, s.httpAddr, s.httpDone = hs, ln.Addr().String(), make(chan struct{})
	go func() {
		defer close(s.httpDone)
		if err := hs.Serve(&limitListener{Listener: ln, max: s.cfg.Limits.Conns}); err != nil && !errors.Is(err, http.ErrServerClosed) {
			fmt.Fprintf(s.cfg.Log, "cairn: MCP over HTTP stopped: %v\n", err)
		}
	}()
	return nil
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

// newHTTPServer serves mcp at /mcp and api at /api/ with lim's timeouts
// (the connection cap is the listener's). There is no whole-request
// ReadTimeout: it would also end the long-lived event streams of GET /mcp;
// a request's body gets lim.Body instead.
func newHTTPServer(mcp, api http.Handler, lim Limits) *http.Server {
	mux := http.NewServeMux()
	csrf := http.NewCrossOriginProtection()
	mux.Handle("/mcp", csrf.Handler(bodyDeadline(mcp, lim.Body)))
	if api != nil {
		mux.Handle("/api/", csrf.Handler(bodyDeadline(api, lim.Body)))
		mux.Handle("/", csrf.Handler(api)) // the web page (webui), registered on api
	}
	return &http.Server{Handler: mux, ReadHeaderTimeout: lim.Header, IdleTimeout: lim.Idle}
}

// newAPI returns the REST API over the engine; remote makes a token
// necessary on every request.
func (s *Server) newAPI(remote bool) *httpapi.Server {
	return httpapi.New(httpapi.Options{
		Service: func(project string, now time.Time) httpapi.Service {
			s.touch() // a request keeps a server with an idle time alive
			return atTime(s.eng.WithProject(project), now)
		},
		Context: func(ctx context.Context, call recall.Call) (*recall.Answer, error) {
			if call.Config == nil {
				cfg, err := s.cfg.Configuration(call.Project)
				if err != nil {
					return nil, err
				}
				call.Config = cfg
			}
			if call.Root == "" {
				call.Root = s.cfg.Root(call.Project)
			}
			return recall.AnswerCall(ctx, s.eng.WithProject(call.Project), call, s.RecordUse)
		},
		RecordUse:    s.RecordUse,
		Root:         s.cfg.Root,
		Tokens:       s.eng,
		RequireToken: remote,
		Logger:       s.logger,
	})
}

// newMCPServer returns the MCP server of project.
func (s *Server) newMCPServer(project string) (*mcp.Server, error) {
	return mcpserver.New(mcpserver.Options{
		Service: local.New(s.eng, project, s.RecordUse),
		Project: project,
		Root:    s.cfg.Root(project),
		Config:  func() (*config.Config, error) { return s.cfg.Configuration(project) },
		Version: s.cfg.Version,
		Logger:  s.logger,
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

// atTime is eng at now, the clock a request asked for; eng itself when
// now is zero.
func atTime(eng *engine.Engine, now time.Time) *engine.Engine {
	if now.IsZero() {
		return eng
	}
	return eng.WithClock(func() time.Time { return now })
}
