package main

// A third-party MCP client against cairn: the MCP Inspector's CLI mode
// (npm package @modelcontextprotocol/inspector), over stdio (`cairn mcp`)
// and over streamable HTTP (`cairn serve`).
//
// The inspector's command comes from CAIRN_TEST_MCP_INSPECTOR, split at
// white space, e.g. the installed bin:
//
//	npm install --prefix /tmp/mcpi --no-audit --no-fund @modelcontextprotocol/inspector@0.15.0
//	CAIRN_TEST_MCP_INSPECTOR=/tmp/mcpi/node_modules/.bin/mcp-inspector go test -run Inspector ./cmd/cairn
//
// (0.15.0 is the last release that runs on Node 20; later ones need 22.)
// Without the variable the tests are skipped.
//
// Bad input tried here: an id that does not exist (a tool error the
// inspector prints with isError, not a failure of the call), a resource
// URI that no template matches, a tool argument the schema does not know.

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// inspector runs the MCP Inspector's CLI against a server.
type inspector struct {
	t      *testing.T
	cmd    []string // the inspector's command
	target []string // the server: a command line, or a URL and its transport
	dir    string
}

func newInspector(t *testing.T, target ...string) *inspector {
	t.Helper()
	needBinary(t)
	v := os.Getenv("CAIRN_TEST_MCP_INSPECTOR")
	if strings.TrimSpace(v) == "" {
		t.Skip("set CAIRN_TEST_MCP_INSPECTOR to the MCP Inspector's command (e.g. the mcp-inspector bin of npm package @modelcontextprotocol/inspector@0.15.0) to run the third-party client tests")
	}
	return &inspector{t: t, cmd: strings.Fields(v), target: target, dir: t.TempDir()}
}

// run runs one method and returns the inspector's output, its exit status
// and its standard error.
func (in *inspector) run(method string, args ...string) (out map[string]any, code int, stderr string) {
	in.t.Helper()
	ctx, cancel := context.WithTimeout(in.t.Context(), 90*time.Second)
	defer cancel()
	argv := append(append(append([]string{}, in.cmd[1:]...), "--cli"), in.target...)
	argv = append(append(argv, "--method", method), args...) // --tool-arg takes every pair after it: last
	cmd := exec.CommandContext(ctx, in.cmd[0], argv...)
	cmd.Dir = in.dir
	var o, e strings.Builder
	cmd.Stdout, cmd.Stderr = &o, &e
	err := cmd.Run()
	if ctx.Err() != nil {
		in.t.Fatalf("inspector %s timed out: %s", method, e.String())
	}
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		in.t.Fatalf("running the inspector: %v", err)
	}
	if code == 0 {
		if err := json.Unmarshal([]byte(o.String()), &out); err != nil {
			in.t.Fatalf("inspector %s printed no JSON: %q (stderr %s)", method, o.String(), e.String())
		}
	}
	return out, code, e.String()
}

// ok runs a method that must succeed.
func (in *inspector) ok(method string, args ...string) map[string]any {
	in.t.Helper()
	out, code, stderr := in.run(method, args...)
	if code != 0 {
		in.t.Fatalf("inspector %s %v: exit %d: %s", method, args, code, stderr)
	}
	return out
}

// toolText is the text of a tools/call result as the inspector printed it.
func inspectorText(out map[string]any) string {
	var b strings.Builder
	content, _ := out["content"].([]any)
	for _, c := range content {
		if m, ok := c.(map[string]any); ok {
			s, _ := m["text"].(string)
			b.WriteString(s)
		}
	}
	return b.String()
}

// exerciseInspector lists the tools, remembers then searches a memory,
// reads it as a resource, drives every other tool (get, update, context,
// the memory tool, forget), and gets tool errors for a bad id, an unknown
// argument and a path outside /memories, and a failure for a bad resource
// URI.
func exerciseInspector(t *testing.T, in *inspector) {
	out := in.ok("tools/list")
	tools, _ := out["tools"].([]any)
	names := map[string]map[string]any{}
	for _, tl := range tools {
		m := tl.(map[string]any)
		names[m["name"].(string)] = m
	}
	for _, n := range []string{"remember", "search", "get", "context", "update", "verify", "forget", "memory"} {
		if names[n] == nil {
			t.Fatalf("tools/list lacks %s: %v", n, out)
		}
	}
	if ann, _ := names["search"]["annotations"].(map[string]any); ann["readOnlyHint"] != true {
		t.Errorf("search's annotations as the inspector sees them: %v", ann)
	}

	out = in.ok("tools/call", "--tool-name", "remember", "--tool-arg", "content=The heron flies at dawn over the flaky auth test.", "type=pitfall")
	if out["isError"] == true {
		t.Fatalf("remember: %v", out)
	}
	sc, _ := out["structuredContent"].(map[string]any)
	id, _ := sc["id"].(string)
	if !idRE.MatchString(id) || sc["status"] != "created" {
		t.Fatalf("remember answered %v", out)
	}

	out = in.ok("tools/call", "--tool-name", "search", "--tool-arg", "query=heron dawn")
	if !strings.Contains(inspectorText(out), id) {
		t.Fatalf("search did not find %s: %v", id, out)
	}

	out = in.ok("resources/read", "--uri", "cairn://memory/"+id)
	contents, _ := out["contents"].([]any)
	if len(contents) != 1 || !strings.Contains(contents[0].(map[string]any)["text"].(string), "heron flies at dawn") {
		t.Fatalf("resources/read: %v", out)
	}

	// Every other tool, with arguments typed from text as the inspector
	// does it (arrays as JSON, numbers and booleans by the schema's type).
	out = in.ok("tools/call", "--tool-name", "get", "--tool-arg", `ids=["`+id+`"]`)
	if !strings.Contains(inspectorText(out), "heron flies at dawn") {
		t.Fatalf("get: %v", out)
	}
	out = in.ok("tools/call", "--tool-name", "update", "--tool-arg", "id="+id, `tags=["birds","auth"]`, "confidence=0.8", "pinned=true")
	if m, _ := out["structuredContent"].(map[string]any)["memory"].(map[string]any); out["isError"] == true || m["confidence"] != 0.8 || m["pinned"] != true {
		t.Fatalf("update: %v", out)
	}
	out = in.ok("tools/call", "--tool-name", "context", "--tool-arg", "prompt=why does the auth test flake at dawn", "budget=400", `files=["internal/auth/auth_test.go"]`)
	if !strings.Contains(inspectorText(out), id) {
		t.Fatalf("context did not show %s: %v", id, out)
	}
	out = in.ok("tools/call", "--tool-name", "memory", "--tool-arg", "command=create", "path=/memories/heron.md", "file_text=Herons nest in colonies.")
	if inspectorText(out) != "File created successfully at: /memories/heron.md" {
		t.Fatalf("memory create: %v", out)
	}
	out = in.ok("tools/call", "--tool-name", "memory", "--tool-arg", "command=view", "path=/memories/heron.md")
	if !strings.Contains(inspectorText(out), "Herons nest in colonies.") {
		t.Fatalf("memory view: %v", out)
	}
	out = in.ok("tools/call", "--tool-name", "memory", "--tool-arg", "command=view", "path=/memories/../etc/passwd")
	if out["isError"] != true {
		t.Fatalf("memory view outside /memories: %v", out)
	}
	out = in.ok("tools/call", "--tool-name", "remember", "--tool-arg", "content=Herons stand still for minutes before striking.", "type=learning")
	other, _ := out["structuredContent"].(map[string]any)["id"].(string)
	out = in.ok("tools/call", "--tool-name", "forget", "--tool-arg", "id="+other)
	if out["isError"] == true {
		t.Fatalf("forget: %v", out)
	}
	if out := in.ok("tools/call", "--tool-name", "get", "--tool-arg", `ids=["`+other+`"]`); out["isError"] != true {
		t.Fatalf("a forgotten memory is still there: %v", out)
	}

	for _, bad := range [][]string{
		{"--tool-name", "forget", "--tool-arg", "id=mem-0000000000000000"},    // no such memory
		{"--tool-name", "update", "--tool-arg", "id=" + id, "colour=blue"},    // unknown argument
		{"--tool-name", "search", "--tool-arg", `query="unbalanced`, "type="}, // the inspector refuses an empty value itself
	} {
		out, code, stderr := in.run("tools/call", bad...)
		if bad[1] == "search" {
			if code == 0 {
				t.Errorf("the inspector accepted an empty --tool-arg: %v", out)
			}
			continue
		}
		if code != 0 || out["isError"] != true || inspectorText(out) == "" {
			t.Errorf("%v: want a tool error with a message; exit %d, %v %s", bad, code, out, stderr)
		}
	}
	if _, code, _ := in.run("resources/read", "--uri", "cairn://nothing/here"); code == 0 {
		t.Error("a bad resource URI was read")
	}
}

func TestInspectorOverStdio(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	in := newInspector(t, cairnBin, "mcp", "--db", filepath.Join(dir, "c.db"), "--project", "inspected")
	exerciseInspector(t, in)
}

func TestInspectorOverHTTP(t *testing.T) {
	t.Parallel()
	if strings.TrimSpace(os.Getenv("CAIRN_TEST_MCP_INSPECTOR")) == "" {
		newInspector(t) // skips
	}
	h := startHTTPServe(t, "inspected")
	in := newInspector(t, h.url, "--transport", "http")
	exerciseInspector(t, in)
}
