package main

// `cairn serve`'s HTTP side: the MCP server (package mcpserver) over
// streamable HTTP at /mcp, sharing the resident session (its open store,
// postings cache and batched use recording) with the Unix socket.
//
// It listens on loopback by default (127.0.0.1:7421): the memories are the
// user's, and MCP over HTTP has no authentication here. A non-loopback
// address is refused unless --allow-remote is given. Requests from web
// pages of other origins are refused (CSRF), and so are requests to a
// loopback address that name another host (DNS rebinding; the SDK's
// protection).
//
// /mcp serves the project of `cairn serve` (its --project, or its working
// directory's); /mcp?project=NAME serves project NAME, with the user's
// configuration only. A session keeps the project it started with.

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cairn-dev/cairn"
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
	fs.BoolVar(&h.allowRemote, "allow-remote", false, "allow --addr to be a non-loopback address (anyone who can reach it can read and change the memories)")
	return h
}

// explicit reports whether --addr was given.
func (h *httpFlags) explicit() bool {
	set := false
	h.fs.Visit(func(f *flag.Flag) { set = set || f.Name == "addr" })
	return set
}

// checkHTTPAddr refuses an address that is not loopback unless remote
// access was asked for.
func checkHTTPAddr(addr string, allowRemote bool) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return usagef("serve: --addr %q is not host:port (e.g. 127.0.0.1:7421)", addr)
	}
	if allowRemote || host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return usagef("serve: --addr %s is not a loopback address; anyone who can reach it could read and change the memories without a password. Use 127.0.0.1, or add --allow-remote", addr)
}

// startHTTP starts MCP over HTTP for the resident session s and returns
// the function that stops it (waiting for requests in flight); call it
// before s.uses is closed. An address given with --addr that cannot be
// used is an error; the default address being taken (by another cairn
// serve, say) only a warning.
func startHTTP(ctx context.Context, m *Main, g *globals, s *session, h *httpFlags) (stop func(), err error) {
	if h.addr == "off" || h.addr == "" {
		return func() {}, nil
	}
	if err := checkHTTPAddr(h.addr, h.allowRemote); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", h.addr)
	if err != nil {
		if !h.explicit() {
			fmt.Fprintf(m.Stderr, "cairn: not serving MCP over HTTP: %v (give --addr HOST:PORT for another address)\n", err)
			return func() {}, nil
		}
		return nil, cairn.WrapError(cairn.EUNAVAILABLE, err, "cannot listen on %s", h.addr)
	}
	gate := &useGate{s: s}
	servers := &projectServers{m: m, s: s, record: gate.record, home: g.project, byName: map[string]*mcp.Server{}}
	if _, err := servers.get(g.project); err != nil {
		ln.Close()
		return nil, err
	}
	handler := mcp.NewStreamableHTTPHandler(func(r *http.Request) *mcp.Server {
		project := r.URL.Query().Get("project")
		if project == "" {
			project = g.project
		}
		srv, err := servers.get(project)
		if err != nil {
			return nil // 400 Bad Request
		}
		return srv
	}, &mcp.StreamableHTTPOptions{SessionTimeout: 30 * time.Minute})
	mux := http.NewServeMux()
	mux.Handle("/mcp", http.NewCrossOriginProtection().Handler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.touch() // a request keeps a server started with --idle alive
		handler.ServeHTTP(w, r)
	})))
	hs := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := hs.Serve(ln); err != nil && !errors.Is(err, http.ErrServerClosed) {
			fmt.Fprintf(m.Stderr, "cairn: MCP over HTTP stopped: %v\n", err)
		}
	}()
	fmt.Fprintf(m.Stderr, "cairn: MCP over streamable HTTP at http://%s/mcp for project %s (another project: ?project=NAME)\n", ln.Addr(), g.project)
	return func() {
		sctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		if hs.Shutdown(sctx) != nil {
			hs.Close() // streams still open after the grace period
		}
		<-done
		gate.close()
	}, nil
}

// projectServers are the MCP servers of the projects asked for over HTTP,
// made on first use and shared by their sessions.
type projectServers struct {
	m      *Main
	s      *session
	record func(context.Context, []string, string) error
	home   string // serve's own project: its working directory's configuration applies

	mu     sync.Mutex
	byName map[string]*mcp.Server
}

// maxProjectServers bounds the servers kept; beyond it, each new session
// of a further project gets a server of its own.
const maxProjectServers = 256

func (ps *projectServers) get(project string) (*mcp.Server, error) {
	if !cairn.ValidProject(project) {
		return nil, cairn.Errorf(cairn.EINVALID, "project %q is not valid", project)
	}
	ps.mu.Lock()
	defer ps.mu.Unlock()
	if srv := ps.byName[project]; srv != nil {
		return srv, nil
	}
	srv, err := newMCPServer(ps.m, ps.s.eng, ps.record, project, project == ps.home)
	if err != nil {
		return nil, err
	}
	if len(ps.byName) < maxProjectServers {
		ps.byName[project] = srv
	}
	return srv, nil
}
