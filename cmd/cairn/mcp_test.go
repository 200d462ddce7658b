package main

// `cairn mcp`: the real binary over stdio, driven by the SDK's client
// through the command transport, and by hand for the bytes on stdout.
//
// Bad input tried here: unknown tool arguments, empty content, content over
// 64 KiB, FTS-hostile queries ("\"unbalanced", "a OR", "*", "NEAR("), an id
// that does not exist, an id of another project (the memory exists in the
// same database), a bad resource URI, a request that is not JSON, an
// unexpected positional argument.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cairn-dev/cairn/server"
)

// mcpClient connects the SDK's client to a transport.
func mcpClient(t *testing.T, tr mcp.Transport) *mcp.ClientSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "cairn-test", Version: "v0"}, nil).Connect(ctx, tr, nil)
	if err != nil {
		t.Fatalf("connecting: %v", err)
	}
	return cs
}

// callTool calls a tool; a protocol error fails the test.
func callTool(t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		t.Fatalf("%s: protocol error %v", tool, err)
	}
	return res
}

func toolText(res *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

// structured decodes a successful tool result's structured content.
func structured(t *testing.T, res *mcp.CallToolResult, v any) {
	t.Helper()
	if res.IsError {
		t.Fatalf("tool error: %s", toolText(res))
	}
	b, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("structured content %s: %v", b, err)
	}
}

// exerciseMCP runs what every transport must do: list the tools with
// their annotations, remember, search, get, context, read a memory and an
// export resource, refuse bad input with tool errors, forget. It returns
// the id of a memory it leaves stored.
func exerciseMCP(t *testing.T, cs *mcp.ClientSession) string {
	t.Helper()
	tools, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*mcp.Tool{}
	var names []string
	for _, tl := range tools.Tools {
		byName[tl.Name] = tl
		names = append(names, tl.Name)
	}
	if helped := strings.Split(mcpTools, ", "); !slices.Equal(sorted(helped), sorted(names)) {
		t.Errorf("cairn help names the MCP tools %v; the server offers %v", sorted(helped), sorted(names))
	}
	for _, name := range []string{"remember", "search", "get", "context", "update", "forget", "memory"} {
		if byName[name] == nil || byName[name].Annotations == nil {
			t.Fatalf("tool %s missing or without annotations; have %v", name, byName)
		}
	}
	if !byName["search"].Annotations.ReadOnlyHint || byName["forget"].Annotations.ReadOnlyHint {
		t.Fatalf("annotations: search %+v, forget %+v", byName["search"].Annotations, byName["forget"].Annotations)
	}

	var w struct{ ID, Status, Project string }
	structured(t, callTool(t, cs, "remember", map[string]any{"type": "pitfall",
		"content": "The flaky auth test shares one fake clock between goroutines.", "files": []string{"internal/auth/session_test.go"}}), &w)
	if w.Status != "created" || !idRE.MatchString(w.ID) {
		t.Fatalf("remember: %+v", w)
	}
	var found struct {
		Results []struct{ ID, Snippet string }
	}
	structured(t, callTool(t, cs, "search", map[string]any{"query": "flaky clock"}), &found)
	if len(found.Results) == 0 || found.Results[0].ID != w.ID || !strings.Contains(found.Results[0].Snippet, "fake clock") {
		t.Fatalf("search: %+v", found)
	}
	var got struct {
		Memories []struct{ ID, Content string }
	}
	structured(t, callTool(t, cs, "get", map[string]any{"ids": []string{w.ID}}), &got)
	if len(got.Memories) != 1 || got.Memories[0].Content != "The flaky auth test shares one fake clock between goroutines." {
		t.Fatalf("get: %+v", got)
	}
	block := callTool(t, cs, "context", map[string]any{"prompt": "fix the flaky auth test", "session": "s-mcp"})
	if block.IsError || !strings.Contains(toolText(block), w.ID) {
		t.Fatalf("context lacks %s: %s", w.ID, toolText(block))
	}

	res, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "cairn://memory/" + w.ID})
	if err != nil || !strings.Contains(res.Contents[0].Text, "fake clock") {
		t.Fatalf("memory resource: %v %+v", err, res)
	}
	res, err = cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "cairn://export/pitfall"})
	if err != nil || strings.Count(res.Contents[0].Text, "\n") != 1 || !strings.Contains(res.Contents[0].Text, w.ID) {
		t.Fatalf("export resource: %v %+v", err, res)
	}
	if _, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "cairn://memory/../../etc/passwd"}); err == nil {
		t.Fatal("a bad resource URI was read")
	}

	for _, bad := range []struct {
		tool string
		args map[string]any
	}{
		{"remember", map[string]any{"content": "x", "colour": "blue"}},                    // unknown argument
		{"remember", map[string]any{"content": ""}},                                       // empty content
		{"remember", map[string]any{"content": strings.Repeat("big ", 16*1024+1)}},        // over 64 KiB
		{"get", map[string]any{"ids": []string{"mem-0000000000000000"}}},                  // no such id
		{"update", map[string]any{"id": "mem-0000000000000000", "title": "nothing here"}}, // no such id
	} {
		if r := callTool(t, cs, bad.tool, bad.args); !r.IsError {
			t.Errorf("%s %.80v: want a tool error, got %s", bad.tool, bad.args, toolText(r))
		}
	}
	for _, q := range []string{`"unbalanced`, "a OR", "NEAR(", "flaky*"} {
		if r := callTool(t, cs, "search", map[string]any{"query": q}); r.IsError {
			t.Errorf("search %q: %s", q, toolText(r))
		}
	}

	var gone struct{ ID string }
	structured(t, callTool(t, cs, "remember", map[string]any{"content": "Temporary: delete me."}), &gone)
	structured(t, callTool(t, cs, "forget", map[string]any{"id": gone.ID}), &struct{}{})
	if r := callTool(t, cs, "get", map[string]any{"ids": []string{gone.ID}}); !r.IsError {
		t.Fatalf("get after forget: %s", toolText(r))
	}
	return w.ID
}

func TestMCPStdioServesTheProjectOfItsWorkingDirectory(t *testing.T) {
	needBinary(t)
	t.Parallel()
	dir := t.TempDir()
	work := filepath.Join(dir, "webshop")
	if err := os.Mkdir(work, 0o755); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "c.db")
	// Another project's memory in the same database.
	other := strings.TrimSpace(runBin(t.Context(), dir, "", "--db", db, "--project", "other", "add", "Other project: the flaky auth clock is theirs.").stdout)

	cmd := exec.Command(cairnBin, "mcp", "--db", db) // no --project: the working directory names it
	cmd.Dir = work
	cmd.Env = binEnv(dir)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cs := mcpClient(t, &mcp.CommandTransport{Command: cmd})
	id := exerciseMCP(t, cs)
	if r := callTool(t, cs, "get", map[string]any{"ids": []string{other}}); !r.IsError || !strings.Contains(toolText(r), "not found") {
		t.Fatalf("get of another project's memory: %s", toolText(r))
	}
	if err := cs.Close(); err != nil {
		t.Fatalf("closing: %v (stderr %s)", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "project webshop") {
		t.Fatalf("stderr does not name the project: %s", stderr.String())
	}
	// The memory belongs to webshop, and the context's use was recorded
	// (batched, written before the process exited).
	r := runBin(t.Context(), dir, "", "--db", db, "--project", "webshop", "show", "--json", id)
	var m struct {
		Project  string `json:"project"`
		UseCount int    `json:"use_count"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &m); err != nil || m.Project != "webshop" || m.UseCount != 1 {
		t.Fatalf("show after the MCP session: %+v %v", m, r)
	}
}

func TestMCPStdoutCarriesOnlyProtocol(t *testing.T) {
	needBinary(t)
	t.Parallel()
	dir := t.TempDir()
	cmd := exec.Command(cairnBin, "--db", filepath.Join(dir, "c.db"), "--project", "p", "mcp")
	cmd.Env = binEnv(dir)
	requests := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"remember","arguments":{"content":"raw bytes test"}}}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"get","arguments":{"ids":["mem-0000000000000000"]}}}`,
		`{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"no_such_tool","arguments":{}}}`,
	}, "\n") + "\n"
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	timer := time.AfterFunc(20*time.Second, func() { cmd.Process.Kill() })
	defer timer.Stop()
	// A client keeps its end open until it has its answers; every line
	// on stdout must be a JSON-RPC message.
	if _, err := io.WriteString(stdin, requests); err != nil {
		t.Fatal(err)
	}
	answered := map[float64]map[string]any{}
	sc := bufio.NewScanner(stdout)
	sc.Buffer(nil, 1<<20)
	for len(answered) < 4 && sc.Scan() {
		var msg map[string]any
		if err := json.Unmarshal(sc.Bytes(), &msg); err != nil || msg["jsonrpc"] != "2.0" {
			t.Fatalf("stdout line is not JSON-RPC: %q", sc.Text())
		}
		if id, ok := msg["id"].(float64); ok {
			answered[id] = msg
		}
	}
	stdin.Close()
	rest, _ := io.ReadAll(stdout)
	if err := cmd.Wait(); err != nil {
		t.Fatalf("cairn mcp did not exit cleanly at the end of its input: %v\n%s", err, errb.String())
	}
	if len(bytes.TrimSpace(rest)) != 0 {
		t.Fatalf("more on stdout after the answers: %q", rest)
	}
	for _, id := range []float64{1, 2, 3, 4} {
		if answered[id] == nil {
			t.Fatalf("no answer to request %v; stderr:\n%s", id, errb.String())
		}
	}
	if res, _ := answered[3]["result"].(map[string]any); res["isError"] != true {
		t.Errorf("a bad id was not a tool error: %v", answered[3])
	}
	if answered[4]["error"] == nil {
		t.Errorf("an unknown tool was not a protocol error: %v", answered[4])
	}
	if !strings.Contains(errb.String(), "MCP server for project p") {
		t.Errorf("stderr: %s", errb.String())
	}
}

func TestMCPRefusesPositionalArguments(t *testing.T) {
	c := newCLI(t)
	r := c.run("", "mcp", "myproject")
	if r.code != exitUsage || !strings.Contains(r.stderr, "--project") {
		t.Fatalf("want a usage error naming --project: %v", r)
	}
}

// `cairn mcp` is answered by the server of its database, named by the
// socket next to the database file or by --server: what it remembers is
// written by the server, the use of a context block is recorded by it,
// and no database is opened where the process was told the database is.
// The socket here is a link to the server's socket beside a path where no
// database exists: a process that opened the database itself would
// create one there and store the memory in it.
func TestMCPIsAnsweredByTheServerOfItsDatabase(t *testing.T) {
	needBinary(t)
	t.Parallel()
	c, _ := startServe(t)
	dir, err := os.MkdirTemp("", "cm") // short: a socket's path has at most 100 bytes
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	linked := filepath.Join(dir, "linked.db")
	if err := os.MkdirAll(filepath.Dir(server.SocketPath(linked)), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(server.SocketPath(c.db), server.SocketPath(linked)); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, db string
		server   []string
		by       string
	}{
		{"socket", linked, nil, "answered by the cairn serve of its socket"},
		{"named", filepath.Join(dir, "named.db"), []string{"--server", "unix:" + server.SocketPath(c.db)}, "answered by the server unix:"},
	} {
		cmd := exec.Command(cairnBin, append(append([]string{"--db", tc.db, "--project", c.project}, tc.server...), "mcp")...)
		cmd.Dir = dir
		cmd.Env = binEnv(dir)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		cs := mcpClient(t, &mcp.CommandTransport{Command: cmd})
		content := "The " + tc.name + " server answers the heron MCP session."
		var w struct{ ID, Status, Project string }
		structured(t, callTool(t, cs, "remember", map[string]any{"type": "decision", "content": content}), &w)
		if w.Status != "created" || w.Project != c.project {
			t.Fatalf("%s: remember: %+v", tc.name, w)
		}
		if block := callTool(t, cs, "context", map[string]any{"prompt": "heron MCP session", "session": "s-" + tc.name}); block.IsError || !strings.Contains(toolText(block), w.ID) {
			t.Fatalf("%s: context lacks %s: %s", tc.name, w.ID, toolText(block))
		}
		// The memory tool creates a file only if new (a create-only
		// write, which the server answers too).
		file := "/memories/heron-" + tc.name + ".md"
		if r := callTool(t, cs, "memory", map[string]any{"command": "create", "path": file, "file_text": "Heron notes.\n"}); r.IsError {
			t.Fatalf("%s: memory create: %s", tc.name, toolText(r))
		}
		if r := callTool(t, cs, "memory", map[string]any{"command": "view", "path": file}); r.IsError || !strings.Contains(toolText(r), "Heron notes.") {
			t.Fatalf("%s: memory view: %s", tc.name, toolText(r))
		}
		if err := cs.Close(); err != nil {
			t.Fatalf("%s: closing: %v (stderr %s)", tc.name, err, stderr.String())
		}
		if !strings.Contains(stderr.String(), tc.by) {
			t.Errorf("%s: stderr does not say the server answered: %s", tc.name, stderr.String())
		}
		if _, err := os.Stat(tc.db); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s: cairn mcp made a database at %s (%v)", tc.name, tc.db, err)
		}
		// The memory is in the server's database, read without the server.
		show := exec.Command(cairnBin, "--db", c.db, "--project", c.project, "show", "--json", w.ID)
		show.Env = append(binEnv(dir), "CAIRN_NO_SERVER=1")
		if out, err := show.Output(); err != nil || !strings.Contains(string(out), content) {
			t.Fatalf("%s: the server's database lacks the memory: %v %s", tc.name, err, out)
		}
		// The server records the block's use (in its own batches), and
		// applies it to the use count within its FoldWait (5 s).
		deadline := time.Now().Add(20 * time.Second)
		for {
			if n, _ := c.show(w.ID)["use_count"].(float64); n == 1 {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: the use of the context block was not recorded: %v", tc.name, c.show(w.ID))
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// A socket beside the database that no server answers on (a server that
// stopped without removing it) leaves the database to `cairn mcp`, as to
// every other command.
func TestMCPOpensTheDatabaseWhenTheSocketDoesNotAnswer(t *testing.T) {
	needBinary(t)
	t.Parallel()
	dir, err := os.MkdirTemp("", "cm") // short: a socket's path has at most 100 bytes
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	db := filepath.Join(dir, "c.db")
	if err := os.WriteFile(server.SocketPath(db), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(cairnBin, "--db", db, "--project", "p", "mcp")
	cmd.Dir = dir
	cmd.Env = binEnv(dir)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cs := mcpClient(t, &mcp.CommandTransport{Command: cmd})
	var w struct{ ID, Status string }
	structured(t, callTool(t, cs, "remember", map[string]any{"content": "No server answers this heron database."}), &w)
	if err := cs.Close(); err != nil {
		t.Fatalf("closing: %v (stderr %s)", err, stderr.String())
	}
	if strings.Contains(stderr.String(), "answered by") {
		t.Errorf("stderr names a server: %s", stderr.String())
	}
	show := exec.Command(cairnBin, "--db", db, "--project", "p", "show", "--json", w.ID)
	show.Env = append(binEnv(dir), "CAIRN_NO_SERVER=1")
	if out, err := show.Output(); err != nil || !strings.Contains(string(out), "heron database") {
		t.Fatalf("the database lacks the memory: %v %s", err, out)
	}
}

func sorted(xs []string) []string {
	ys := slices.Clone(xs)
	slices.Sort(ys)
	return ys
}
