package main

// `cairn serve`'s MCP over streamable HTTP and REST API, through the real
// binary.
//
// Bad input tried here: a non-loopback --addr without --allow-remote, a
// remote server without any token, requests to it without a token or for
// another project, an
// address that is not host:port, an explicit --addr already in use, a
// request naming another host (DNS rebinding), a cross-site request from a
// web page, an invalid ?project=, another project's ids over HTTP.

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cairn-dev/cairn/server"
)

// httpServe is a running `cairn serve` binary.
type httpServe struct {
	url, db, dir string
	proc         *os.Process

	mu     sync.Mutex
	stderr strings.Builder
}

func (h *httpServe) log() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.stderr.String()
}

// startHTTPServe runs `cairn serve --addr 127.0.0.1:0` for project p in a
// short folder (Unix socket paths are limited) and returns once it
// answers MCP at the URL it printed. The server is stopped with SIGINT
// when the test ends, and must exit 0.
func startHTTPServe(t testing.TB, project string, extra ...string) *httpServe {
	t.Helper()
	return startHTTPServeIn(t, serveDir(t), project, extra...)
}

// serveDir is a short folder for a server's database, removed at the end
// of the test; its database is dir/c.db.
func serveDir(t testing.TB) string {
	t.Helper()
	needBinary(t)
	dir, err := os.MkdirTemp("", "cs")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// startHTTPServeIn is startHTTPServe with the database dir/c.db.
func startHTTPServeIn(t testing.TB, dir, project string, extra ...string) *httpServe {
	t.Helper()
	return startHTTPServeDB(t, dir, filepath.Join(dir, "c.db"), project, extra...)
}

// startHTTPServeDB is startHTTPServe with the database db (a file or a
// postgres:// URL), run in dir.
func startHTTPServeDB(t testing.TB, dir, db, project string, extra ...string) *httpServe {
	t.Helper()
	h := &httpServe{db: db, dir: dir}
	args := append([]string{"--db", h.db, "--project", project, "serve", "--addr", "127.0.0.1:0"}, extra...)
	cmd := exec.Command(cairnBin, args...)
	cmd.Dir = dir
	cmd.Env = binEnv(dir)
	errPipe, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	h.proc = cmd.Process
	urls := make(chan string, 1)
	copied := make(chan struct{})
	go func() {
		defer close(copied)
		sc := bufio.NewScanner(errPipe)
		for sc.Scan() {
			line := sc.Text()
			h.mu.Lock()
			h.stderr.WriteString(line + "\n")
			h.mu.Unlock()
			if _, rest, ok := strings.Cut(line, "MCP over streamable HTTP at "); ok {
				urls <- strings.Fields(rest)[0]
			}
		}
	}()
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		done := make(chan error, 1)
		go func() { <-copied; done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("cairn serve exited with %v: %s", err, h.log())
			}
		case <-time.After(15 * time.Second):
			cmd.Process.Kill()
			t.Errorf("cairn serve did not stop on SIGINT: %s", h.log())
		}
	})
	select {
	case h.url = <-urls:
	case <-time.After(20 * time.Second):
		t.Fatalf("cairn serve printed no MCP address: %s", h.log())
	}
	return h
}

func (h *httpServe) connect(t *testing.T, query string) *mcp.ClientSession {
	t.Helper()
	cs := mcpClient(t, &mcp.StreamableClientTransport{Endpoint: h.url + query})
	t.Cleanup(func() { cs.Close() })
	return cs
}

func TestServeAnswersMCPOverHTTP(t *testing.T) {
	t.Parallel()
	h := startHTTPServe(t, "shop")
	if !strings.HasPrefix(h.url, "http://127.0.0.1:") || !strings.HasSuffix(h.url, "/mcp") {
		t.Fatalf("MCP URL %q", h.url)
	}
	cs := h.connect(t, "")
	id := exerciseMCP(t, cs)

	// The context's use is recorded by serve's batching writer, and
	// applied to the use count within its FoldWait (5 s).
	deadline := time.Now().Add(20 * time.Second)
	for {
		r := runBin(t.Context(), h.dir, "", "--db", h.db, "--project", "shop", "show", "--json", id)
		var m struct {
			UseCount int `json:"use_count"`
		}
		json.Unmarshal([]byte(r.stdout), &m)
		if m.UseCount == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the use of %s was not recorded: %v", id, r)
		}
		time.Sleep(100 * time.Millisecond)
	}

	// ?project= names another project: it sees none of shop's memories.
	other := h.connect(t, "?project=garden")
	if r := callTool(t, other, "get", map[string]any{"ids": []string{id}}); !r.IsError || !strings.Contains(toolText(r), "project garden") {
		t.Fatalf("garden's get of shop's memory: %s", toolText(r))
	}
	var w struct{ Project string }
	structured(t, callTool(t, other, "remember", map[string]any{"content": "Garden memories stay in the garden."}), &w)
	if w.Project != "garden" {
		t.Fatalf("remembered into %q", w.Project)
	}
	var found struct{ Results []struct{ ID string } }
	structured(t, callTool(t, cs, "search", map[string]any{"query": "garden memories"}), &found)
	if len(found.Results) != 0 {
		t.Fatalf("shop found garden's memory: %+v", found)
	}

	// A bad ?project= is refused before any session starts.
	resp, err := http.Post(h.url+"?project=%00bad", "application/json", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"0"}}}`))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("a bad project got HTTP %d", resp.StatusCode)
	}
}

func TestServeHTTPRefusesOtherHostsAndCrossSiteRequests(t *testing.T) {
	t.Parallel()
	h := startHTTPServe(t, "shop")
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"x","version":"0"}}}`
	post := func(mod func(*http.Request)) int {
		req, _ := http.NewRequestWithContext(t.Context(), http.MethodPost, h.url, strings.NewReader(init))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		mod(req)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp.StatusCode
	}
	if code := post(func(*http.Request) {}); code != http.StatusOK {
		t.Fatalf("a plain initialize got HTTP %d", code)
	}
	// DNS rebinding: a page of evil.example resolved to 127.0.0.1.
	if code := post(func(r *http.Request) { r.Host = "evil.example:7421" }); code != http.StatusForbidden {
		t.Errorf("a request for another host got HTTP %d", code)
	}
	// A web page of another origin posting to the local server.
	if code := post(func(r *http.Request) {
		r.Header.Set("Origin", "https://evil.example")
		r.Header.Set("Sec-Fetch-Site", "cross-site")
	}); code != http.StatusForbidden {
		t.Errorf("a cross-site request got HTTP %d", code)
	}
}

func TestServeRefusesANonLoopbackAddressUnlessAllowed(t *testing.T) {
	needBinary(t)
	t.Parallel()
	dir, err := os.MkdirTemp("", "cs")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	db := filepath.Join(dir, "c.db")
	for _, tc := range []struct {
		addr string
		code int
		want string
	}{
		{"0.0.0.0:0", exitUsage, "--allow-remote"},
		{":0", exitUsage, "--allow-remote"},
		{"192.0.2.1:7421", exitUsage, "not a loopback address"},
		{"localhost", exitUsage, "host:port"},
	} {
		ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
		r := runBin(ctx, dir, "", "--db", db, "--project", "p", "serve", "--addr", tc.addr)
		cancel()
		if r.code != tc.code || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("--addr %s: want exit %d mentioning %q, got %v", tc.addr, tc.code, tc.want, r)
		}
		if _, err := os.Stat(server.SocketPath(db)); err == nil {
			t.Errorf("--addr %s: the socket was left behind", tc.addr)
		}
	}
}

func TestServeWithAnExplicitAddressInUseFails(t *testing.T) {
	needBinary(t)
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	dir, err := os.MkdirTemp("", "cs")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(dir)
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	r := runBin(ctx, dir, "", "--db", filepath.Join(dir, "c.db"), "--project", "p", "serve", "--addr", ln.Addr().String())
	if r.code != exitFailure || !strings.Contains(r.stderr, "cannot listen on "+ln.Addr().String()) {
		t.Fatalf("want a failure naming the address: %v", r)
	}
}

// TestServeAllowRemoteNeedsATokenAndListensOnAllInterfaces starts a remote
// server without any token (refused), then with one: its /api and /mcp
// refuse requests without the token.
func TestServeAllowRemoteNeedsATokenAndListensOnAllInterfaces(t *testing.T) {
	t.Parallel()
	dir := serveDir(t)
	db := filepath.Join(dir, "c.db")
	r := runBin(t.Context(), dir, "", "--db", db, "--project", "p", "serve", "--addr", "0.0.0.0:0", "--allow-remote")
	if r.code != exitUsage || !strings.Contains(r.stderr, "needs a token, but none exists") || !strings.Contains(r.stderr, "cairn token create") {
		t.Fatalf("a remote server without tokens: want exit 2 saying to create a token, got %v", r)
	}
	r = runBin(t.Context(), dir, "", "--db", db, "--project", "p", "token", "create", "--name", "remote")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "cairn_") {
		t.Fatalf("token create: %v", r)
	}
	token := strings.TrimSpace(r.stdout)
	h := startHTTPServeIn(t, dir, "p", "--addr", "0.0.0.0:0", "--allow-remote")
	if !strings.HasPrefix(h.url, "http://0.0.0.0:") && !strings.HasPrefix(h.url, "http://[::]:") {
		t.Fatalf("listening at %s", h.url)
	}
	base := "http://127.0.0.1:" + h.url[strings.LastIndex(h.url, ":")+1:len(h.url)-len("/mcp")]
	get := func(path, tok string) int {
		t.Helper()
		req, _ := http.NewRequestWithContext(t.Context(), "GET", base+path, nil)
		if tok != "" {
			req.Header.Set("Authorization", "Bearer "+tok)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if st := get("/api/projects/p/stats", ""); st != http.StatusUnauthorized {
		t.Errorf("/api without a token: %d, want 401", st)
	}
	if st := get("/mcp", ""); st != http.StatusUnauthorized {
		t.Errorf("/mcp without a token: %d, want 401", st)
	}
	if st := get("/api/projects/p/stats", token); st != http.StatusOK {
		t.Errorf("/api with the token: %d, want 200", st)
	}
	if st := get("/api/projects/other/stats", token); st != http.StatusForbidden {
		t.Errorf("/api of another project with the token: %d, want 403", st)
	}
	if strings.Contains(h.log(), token) {
		t.Errorf("the server logged the token: %s", h.log())
	}
}
