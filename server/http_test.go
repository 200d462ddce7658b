package server

// The HTTP side in process, with the real MCP client. Bad clients tried:
// sessions for many distinct ?project= values (state must stay bounded),
// a client that sends half its headers and stalls, one that sends half
// its body and stalls, more connections than the cap, a request naming
// another host.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cairn-dev/cairn"
)

func mcpClient(t *testing.T, url string) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "cairn-test", Version: "v0"}, nil).Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url}, nil)
	if err != nil {
		t.Fatalf("connecting to %s: %v", url, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// startMCPHTTP serves /mcp of a fresh server in process with lim.
func startMCPHTTP(t *testing.T, lim Limits) (*mcpHTTP, *httptest.Server) {
	t.Helper()
	s := newServer(t, func(c *Config) { c.Limits = lim })
	mh, err := s.newMCPHTTP()
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewUnstartedServer(nil)
	ts.Config = newHTTPServer(mh, nil, s.cfg.Limits)
	ts.Listener = &limitListener{Listener: ts.Listener, max: s.cfg.Limits.Conns}
	ts.Start()
	t.Cleanup(ts.Close)
	return mh, ts
}

// MCP over HTTP answers the server's own project, and another one asked
// for with ?project=, from the same database.
func TestServerAnswersMCPOverHTTPForAnyProject(t *testing.T) {
	t.Parallel()
	s := openServer(t, func(c *Config) { c.Addr = "127.0.0.1:0" })
	addMemory(t, s.eng, &cairn.Memory{Project: "other", Content: "Another project's flaky clock."})
	if !strings.HasPrefix(s.Status().MCP, "http://127.0.0.1:") {
		t.Fatalf("status MCP %q", s.Status().MCP)
	}
	for project, want := range map[string]string{"": "one fake clock", "?project=other": "Another project"} {
		cs := mcpClient(t, "http://"+s.Addr()+"/mcp"+project)
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "search", Arguments: map[string]any{"query": "flaky clock"}})
		if err != nil || res.IsError {
			t.Fatalf("%s: %v %+v", project, err, res)
		}
		text := res.Content[0].(*mcp.TextContent).Text
		if !strings.Contains(text, want) {
			t.Errorf("%s: %q lacks %q", project, text, want)
		}
	}
	// A request naming another host (DNS rebinding) is refused.
	req, _ := http.NewRequestWithContext(t.Context(), "GET", "http://"+s.Addr()+"/api/projects/p/stats", nil)
	req.Host = "attacker.example:80"
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden && resp.StatusCode != http.StatusMisdirectedRequest && resp.StatusCode != http.StatusBadRequest {
		t.Errorf("another Host: %d, want a refusal", resp.StatusCode)
	}
}

// Sessions for more projects than the server keeps: the oldest sessions
// are closed and the servers dropped, so the state stays bounded; the
// newest sessions still work.
func TestServerKeepsBoundedMCPStateForManyProjects(t *testing.T) {
	t.Parallel()
	lim := Limits{MCPSessions: 8, MCPProjects: 4}
	mh, ts := startMCPHTTP(t, lim)
	var sessions []*mcp.ClientSession
	for i := range lim.MCPSessions + 4 {
		sessions = append(sessions, mcpClient(t, fmt.Sprintf("%s/mcp?project=p%03d", ts.URL, i)))
	}
	live, servers := mh.counts()
	if live > lim.MCPSessions || servers > lim.MCPProjects {
		t.Fatalf("%d sessions and %d project servers live; at most %d and %d expected", live, servers, lim.MCPSessions, lim.MCPProjects)
	}
	if _, err := sessions[0].ListTools(t.Context(), nil); err == nil {
		t.Error("the oldest session still answers after more than the cap were opened")
	}
	if _, err := sessions[len(sessions)-1].CallTool(t.Context(), &mcp.CallToolParams{Name: "search", Arguments: map[string]any{"query": "clock"}}); err != nil {
		t.Errorf("the newest session: %v", err)
	}
}

// readUntilClosed reads from conn until the server closes it, and fails
// the test when it is still open after a generous while.
func readUntilClosed(t *testing.T, conn net.Conn, what string) {
	t.Helper()
	conn.SetReadDeadline(time.Now().Add(20 * time.Second))
	_, err := io.Copy(io.Discard, conn)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Errorf("%s: the server kept the connection open", what)
	}
}

func TestServerClosesSlowAndSurplusHTTPConnections(t *testing.T) {
	t.Parallel()
	lim := Limits{Header: 200 * time.Millisecond, Body: 200 * time.Millisecond, Idle: 200 * time.Millisecond, Conns: 3}
	_, ts := startMCPHTTP(t, lim)
	addr := ts.Listener.Addr().String()
	dial := func() net.Conn {
		t.Helper()
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	// Half the headers, then nothing.
	slowHead := dial()
	fmt.Fprintf(slowHead, "POST /mcp HTTP/1.1\r\nHost: %s\r\n", addr)
	// All the headers and half the body, then nothing.
	slowBody := dial()
	fmt.Fprintf(slowBody, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 200\r\n\r\n{\"jsonrpc\":", addr)
	// A third fills the cap; a fourth is over it.
	full := dial()
	over := dial()
	readUntilClosed(t, over, "a connection over the cap")
	readUntilClosed(t, slowHead, "a client stalling in its headers")
	readUntilClosed(t, slowBody, "a client stalling in its body")
	readUntilClosed(t, full, "an idle connection")
}
