package server

// The HTTP side in process, with the real MCP client. Bad clients tried:
// sessions for many distinct ?project= values (state must stay bounded),
// more sessions than the bound while all are in use, 80 clients at once,
// a session id used with another project's token or none, bodies and
// query strings that are not UTF-8, a request naming another host, a
// cross-origin write. Connections: conns_test.go.

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cairn-dev/cairn"
)

func mcpClient(t *testing.T, url string) *mcp.ClientSession {
	t.Helper()
	cs, err := connectMCP(t.Context(), url, "")
	if err != nil {
		t.Fatalf("connecting to %s: %v", url, err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

// connectMCP connects the real MCP client to url, sending token when set.
func connectMCP(ctx context.Context, url, token string) (*mcp.ClientSession, error) {
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	tr := &mcp.StreamableClientTransport{Endpoint: url}
	if token != "" {
		tr.HTTPClient = &http.Client{Transport: bearer{token}}
	}
	return mcp.NewClient(&mcp.Implementation{Name: "cairn-test", Version: "v0"}, nil).Connect(ctx, tr, nil)
}

// bearer sends a token with every request.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

// rawMCP posts a JSON-RPC body to the MCP endpoint url with the session
// id and token given (each when not empty) and returns the status and
// body of the answer.
func rawMCP(t *testing.T, url, session, token, body string) (int, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), "POST", url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if session != "" {
		req.Header.Set(sessionHeader, session)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func searchText(t *testing.T, cs *mcp.ClientSession, query string) string {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "search", Arguments: map[string]any{"query": query}})
	if err != nil || res.IsError {
		t.Fatalf("search %q: %v %+v", query, err, res)
	}
	return res.Content[0].(*mcp.TextContent).Text
}

// openHTTP opens a server that also answers HTTP on a loopback port;
// configure, when set, changes its config.
func openHTTP(t *testing.T, configure func(*Config)) *testServer {
	t.Helper()
	return openServer(t, func(c *Config) {
		c.Addr = "127.0.0.1:0"
		if configure != nil {
			configure(c)
		}
	})
}

// url is the server's HTTP address with path.
func (s *testServer) url(path string) string { return "http://" + s.Addr() + path }

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

// Sessions for more projects than the server keeps: the sessions unused
// longest are closed and the servers dropped, so the state stays bounded;
// the newest sessions still work.
func TestServerKeepsBoundedMCPStateForManyProjects(t *testing.T) {
	t.Parallel()
	lim := Limits{MCPSessions: 8, MCPProjects: 4, MCPSessionIdle: time.Nanosecond}
	s := openHTTP(t, func(c *Config) { c.Limits = lim })
	var sessions []*mcp.ClientSession
	for i := range lim.MCPSessions + 4 {
		sessions = append(sessions, mcpClient(t, s.url(fmt.Sprintf("/mcp?project=p%03d", i))))
	}
	live, servers := s.mcp.counts()
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

// Eighty clients at once, each holding its session (and its stream of
// server messages) while it calls tools: none is cut off.
func TestEightyMCPClientsAtOnceAreAllAnswered(t *testing.T) {
	t.Parallel()
	s := openHTTP(t, nil)
	const clients = 80
	errs := make(chan error, clients)
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			cs, err := connectMCP(t.Context(), s.url("/mcp"), "")
			if err != nil {
				errs <- fmt.Errorf("client %d: %w", i, err)
				return
			}
			defer cs.Close()
			for range 3 {
				res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "search", Arguments: map[string]any{"query": "flaky clock"}})
				if err != nil || res.IsError {
					errs <- fmt.Errorf("client %d: %v %+v", i, err, res)
					return
				}
			}
		}()
	}
	close(start)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// At the bound of sessions, when every session was used within
// MCPSessionIdle, a new one is refused (503) rather than cutting off a
// client in use.
func TestNewMCPSessionIsRefusedWhenEverySessionIsInUse(t *testing.T) {
	t.Parallel()
	s := openHTTP(t, func(c *Config) { c.Limits = Limits{MCPSessions: 2} })
	a, b := mcpClient(t, s.url("/mcp")), mcpClient(t, s.url("/mcp"))
	st, body := rawMCP(t, s.url("/mcp"), "", "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"1"}}}`)
	if st != http.StatusServiceUnavailable || errorCodeOf([]byte(body)) != cairn.EUNAVAILABLE {
		t.Errorf("a third session: %d %s, want 503 and the JSON error", st, body)
	}
	for _, cs := range []*mcp.ClientSession{a, b} {
		searchText(t, cs, "flaky clock")
	}
}

// A session belongs to the project and token that began it: project B's
// token, on B's endpoint, with A's session id reads nothing of A's; nor
// does a request without a token. On a server other machines reach, as
// on loopback.
func TestMCPSessionBelongsToItsProjectAndToken(t *testing.T) {
	t.Parallel()
	for _, remote := range []bool{false, true} {
		t.Run(fmt.Sprintf("remote=%v", remote), func(t *testing.T) {
			t.Parallel()
			s := newServer(t, nil)
			addMemory(t, s.eng, &cairn.Memory{Project: "alpha", Content: "Alpha's deploy key rotates on Mondays."})
			tokA, _, err := s.eng.CreateToken(t.Context(), "alpha", "a", false)
			if err != nil {
				t.Fatal(err)
			}
			tokB, _, err := s.eng.CreateToken(t.Context(), "beta", "b", false)
			if err != nil {
				t.Fatal(err)
			}
			gate := newConnGate(s.cfg.Limits)
			hs, _, err := s.newHTTPServer(remote, gate)
			if err != nil {
				t.Fatal(err)
			}
			ts := httptest.NewUnstartedServer(hs.Handler)
			ts.Config = hs
			ts.Start()
			t.Cleanup(ts.Close)
			a, err := connectMCP(t.Context(), ts.URL+"/mcp?project=alpha", tokA)
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			if text := searchText(t, a, "deploy key"); !strings.Contains(text, "Mondays") {
				t.Fatalf("A's own session: %q", text)
			}
			call := `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"search","arguments":{"query":"deploy key"}}}`
			remember := `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"remember","arguments":{"content":"Planted by beta."}}}`
			for what, try := range map[string][2]string{
				"B's token on B's endpoint":    {"/mcp?project=beta", tokB},
				"no token on A's endpoint":     {"/mcp?project=alpha", ""},
				"B's token on A's endpoint":    {"/mcp?project=alpha", tokB},
				"A's token on B's endpoint":    {"/mcp?project=beta", tokA},
				"no token on the home project": {"/mcp", ""},
			} {
				for _, body := range []string{call, remember} {
					st, answer := rawMCP(t, ts.URL+try[0], a.ID(), try[1], body)
					if st != http.StatusForbidden && st != http.StatusUnauthorized {
						t.Errorf("%s with A's session: %d %s, want 403 (or 401 without a token where one is needed)", what, st, answer)
					}
					if strings.Contains(answer, "Mondays") {
						t.Errorf("%s with A's session read A's memory: %s", what, answer)
					}
				}
			}
			mems, _, err := s.eng.FindMemories(t.Context(), cairn.MemoryFilter{Project: "alpha"})
			if err != nil || len(mems) != 1 {
				t.Errorf("alpha's memories after the attempts: %d %v, want its one", len(mems), err)
			}
			// A's session still works for A.
			searchText(t, a, "deploy key")
		})
	}
}

// A body or a query that is not UTF-8 is refused with a 400 and the JSON
// error, on MCP, the REST API and the http hooks, instead of being stored with U+FFFD
// in place of the bad bytes; a cross-origin write gets the JSON error
// too.
func TestHTTPRefusesInvalidUTF8AndCrossOriginWritesWithTheJSONError(t *testing.T) {
	t.Parallel()
	s := openHTTP(t, nil)
	cs := mcpClient(t, s.url("/mcp"))
	bad := "{\"jsonrpc\":\"2.0\",\"id\":9,\"method\":\"tools/call\",\"params\":{\"name\":\"remember\",\"arguments\":{\"content\":\"caf\xe9 latte\"}}}"
	if st, body := rawMCP(t, s.url("/mcp"), cs.ID(), "", bad); st != 400 || errorCodeOf([]byte(body)) != cairn.EINVALID {
		t.Errorf("MCP with a Latin-1 byte: %d %s, want 400 and the JSON error", st, body)
	}
	post := func(path, body string, hdr ...string) (int, string) {
		req, _ := http.NewRequestWithContext(t.Context(), "POST", s.url(path), strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		for i := 0; i+1 < len(hdr); i += 2 {
			req.Header.Set(hdr[i], hdr[i+1])
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if st, body := post("/api/projects/p/memories", "{\"content\":\"caf\xe9 latte\"}"); st != 400 || errorCodeOf([]byte(body)) != cairn.EINVALID {
		t.Errorf("REST with a Latin-1 byte: %d %s", st, body)
	}
	// An http hook's payload too, which Claude Code sends as the body.
	hook := "{\"session_id\":\"s\",\"cwd\":\"/work/p\",\"hook_event_name\":\"UserPromptSubmit\",\"prompt\":\"the caf\xe9 clock\"}"
	if st, body := post("/hooks/claude/UserPromptSubmit", hook); st != 400 || errorCodeOf([]byte(body)) != cairn.EINVALID || !strings.Contains(body, "UTF-8") {
		t.Errorf("an http hook's payload with a Latin-1 byte: %d %s, want 400 and the JSON error saying UTF-8", st, body)
	}
	if st, body := post("/hooks/claude/UserPromptSubmit", strings.Replace(hook, "\xe9", "\u00e9", 1)); st != 200 {
		t.Errorf("the same payload in UTF-8: %d %s, want 200", st, body)
	}
	resp, err := http.Get(s.url("/api/projects/p/search?q=caf%E9"))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 400 || errorCodeOf(b) != cairn.EINVALID {
		t.Errorf("a query of Latin-1: %d %s", resp.StatusCode, b)
	}
	mems, _, _ := s.eng.FindMemories(t.Context(), cairn.MemoryFilter{Project: "p"})
	for _, m := range mems {
		if strings.Contains(m.Content, "latte") {
			t.Errorf("stored %q", m.Content)
		}
	}
	if st, body := post("/api/projects/p/memories", `{"content":"x"}`, "Sec-Fetch-Site", "cross-site"); st != 403 || errorCodeOf([]byte(body)) != cairn.EFORBIDDEN {
		t.Errorf("a cross-origin write: %d %s, want 403 and the JSON error", st, body)
	}
}

// A server other machines reach never reads the project's folder for a
// context block, through REST or for its MCP servers: the folder is this
// machine's user's, and a token holder elsewhere is not that user. On
// loopback without tokens it does.
func TestContextBlocksReadTheFolderOnlyOnAServerWithoutTokens(t *testing.T) {
	t.Parallel()
	for _, remote := range []bool{false, true} {
		t.Run(fmt.Sprintf("remote=%v", remote), func(t *testing.T) {
			t.Parallel()
			var asked atomic.Int32
			folder := t.TempDir()
			s := newServer(t, func(c *Config) {
				c.Root = func(string) string { asked.Add(1); return folder }
			})
			tok, _, err := s.eng.CreateToken(t.Context(), "p", "a", false)
			if err != nil {
				t.Fatal(err)
			}
			hs, _, err := s.newHTTPServer(remote, newConnGate(s.cfg.Limits))
			if err != nil {
				t.Fatal(err)
			}
			ts := httptest.NewUnstartedServer(hs.Handler)
			ts.Config = hs
			ts.Start()
			t.Cleanup(ts.Close)
			req, err := http.NewRequestWithContext(t.Context(), "POST", ts.URL+"/api/projects/p/context",
				strings.NewReader(`{"prompt":"why is the auth test flaky with the fake clock?"}`))
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", "application/json")
			req.Header.Set("Authorization", "Bearer "+tok)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK || !strings.Contains(string(b), "fake clock") {
				t.Fatalf("context: %d %s", resp.StatusCode, b)
			}
			if n := asked.Load(); remote && n != 0 {
				t.Errorf("a server other machines reach read the project's folder %d times (its MCP server and a REST block)", n)
			} else if !remote && n == 0 {
				t.Error("a loopback server without tokens did not read the project's folder for a block")
			}
		})
	}
}

// A server whose port may move first asks for the port its database's
// last server had, when that is one the configured port may move to.
func TestServePrefersTheRecordedPortNearTheConfiguredOne(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ base, recorded, want string }{
		{"127.0.0.1:7421", "", "127.0.0.1:7421"},
		{"127.0.0.1:7421", "127.0.0.1:7423", "127.0.0.1:7423"},
		{"127.0.0.1:7421", "127.0.0.1:7421", "127.0.0.1:7421"},
		{"127.0.0.1:7421", "127.0.0.1:7420", "127.0.0.1:7421"}, // below: another configuration's
		{"127.0.0.1:7421", "127.0.0.1:9000", "127.0.0.1:7421"}, // far: another configuration's
		{"127.0.0.1:7421", "localhost:7422", "127.0.0.1:7421"}, // another host
		{"127.0.0.1:8000", "127.0.0.1:8001", "127.0.0.1:8001"},
	} {
		if got := preferredAddr(tc.base, tc.recorded, 100); got != tc.want {
			t.Errorf("preferredAddr(%q, %q, 100) = %q, want %q", tc.base, tc.recorded, got, tc.want)
		}
	}
}
