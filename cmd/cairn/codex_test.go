package main

// Codex itself against cairn: `cairn install codex`, then a real Codex
// (npm package @openai/codex) runs one turn of `codex exec` against a
// local stand-in for the Responses API. As in the Claude Code test, only
// the model is a stand-in.
//
// Codex's command comes from CAIRN_TEST_CODEX, e.g.
//
//	npm install --prefix /tmp/codex @openai/codex@0.169.0
//	CAIRN_TEST_CODEX=/tmp/codex/node_modules/.bin/codex go test -run Codex ./cmd/cairn
//
// Without the variable the test is skipped. Codex runs a hook only once
// the user trusted it (/hooks); the test passes
// --dangerously-bypass-hook-trust, which Codex offers for automation.

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeResponses is an OpenAI Responses API endpoint that streams one text
// for every request and keeps the request bodies.
type fakeResponses struct {
	answer string
	mu     sync.Mutex
	bodies []string
}

func (f *fakeResponses) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	f.bodies = append(f.bodies, string(body))
	f.mu.Unlock()
	text, _ := json.Marshal(f.answer)
	item := fmt.Sprintf(`{"type":"message","id":"msg_1","role":"assistant","status":"completed","content":[{"type":"output_text","text":%s,"annotations":[]}]}`, text)
	w.Header().Set("Content-Type", "text/event-stream")
	for _, ev := range [][2]string{
		{"response.created", `{"type":"response.created","response":{"id":"resp_1","object":"response","status":"in_progress","output":[]}}`},
		{"response.output_item.added", `{"type":"response.output_item.added","output_index":0,"item":{"type":"message","id":"msg_1","role":"assistant","status":"in_progress","content":[]}}`},
		{"response.output_text.delta", fmt.Sprintf(`{"type":"response.output_text.delta","item_id":"msg_1","output_index":0,"content_index":0,"delta":%s}`, text)},
		{"response.output_item.done", fmt.Sprintf(`{"type":"response.output_item.done","output_index":0,"item":%s}`, item)},
		{"response.completed", fmt.Sprintf(`{"type":"response.completed","response":{"id":"resp_1","object":"response","status":"completed","output":[%s],"usage":{"input_tokens":10,"input_tokens_details":{"cached_tokens":0},"output_tokens":5,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":15}}}`, item)},
	} {
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", ev[0], ev[1])
	}
}

func TestCodexRunsCairnsHooksAndLoadsItsMCPServer(t *testing.T) {
	t.Parallel()
	needBinary(t)
	codex := strings.TrimSpace(os.Getenv("CAIRN_TEST_CODEX"))
	if codex == "" {
		t.Skip("set CAIRN_TEST_CODEX to Codex's command (the codex bin of npm package @openai/codex) to run cairn under a real Codex")
	}
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	project := filepath.Join(dir, "authsvc")
	for _, d := range []string{filepath.Join(home, ".codex"), project} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if out, err := exec.Command("git", "init", "-q", project).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	model := &fakeResponses{answer: "The tests pass now.\n\nMEMORY:convention:Tests set environment variables with t.Setenv, never os.Setenv."}
	api := httptest.NewServer(model)
	defer api.Close()
	// The user's own settings: a model provider, which install must keep.
	userConfig := fmt.Sprintf("model = \"gpt-5\"\nmodel_provider = \"local\"\n\n[model_providers.local]\nname = \"local\"\nbase_url = %q\nenv_key = \"LOCAL_MODEL_KEY\"\nwire_api = \"responses\"\nsupports_websockets = false\n", api.URL+"/v1")
	if err := os.WriteFile(filepath.Join(home, ".codex", "config.toml"), []byte(userConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(dir, "cairn.db")
	env := append(binEnv(home), "CAIRN_DB="+db, "LOCAL_MODEL_KEY=not-a-key", "CODEX_HOME="+filepath.Join(home, ".codex"))
	run := func(name string, args ...string) string {
		t.Helper()
		ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, name, args...)
		cmd.Dir, cmd.Env = project, env
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s %v: %v\n%s", filepath.Base(name), args, err, out)
		}
		return string(out)
	}

	run(cairnBin, "add", "--type", "decision", "--pin", "We use pgx for Postgres access, never database/sql.")
	run(cairnBin, "add", "--type", "pitfall", "The flaky session test needs a fake clock; time.Now makes it fail near midnight.")
	run(cairnBin, "install", "codex", "--command", cairnBin)

	if out := run(codex, "mcp", "list"); !strings.Contains(out, "cairn") || !strings.Contains(out, "enabled") {
		t.Errorf("Codex does not list cairn's MCP server as enabled:\n%s", out)
	}
	out := run(codex, "exec", "--dangerously-bypass-hook-trust", "fix the flaky session test")
	if !strings.Contains(out, "The tests pass now.") {
		t.Fatalf("codex exec printed %q", out)
	}
	var request string
	model.mu.Lock()
	for _, b := range model.bodies {
		if strings.Contains(b, "fix the flaky session test") {
			request = b
		}
	}
	model.mu.Unlock()
	for _, want := range []string{"never database/sql", "needs a fake clock", "cairn-context"} {
		if !strings.Contains(request, want) {
			t.Errorf("the model's request lacks %q", want)
		}
	}
	var mems []map[string]any
	if err := json.Unmarshal([]byte(run(cairnBin, "list", "--json", "--type", "convention")), &mems); err != nil {
		t.Fatal(err)
	}
	if len(mems) != 1 || !strings.Contains(mems[0]["content"].(string), "t.Setenv") || mems[0]["created_by_agent"] != "codex" {
		t.Errorf("the answer's convention was not captured as Codex's: %v", mems)
	}
	// cairn.log holds the messages of the server the first hook started,
	// and a line for each hook that failed: there must be none.
	if log, err := os.ReadFile(filepath.Join(dir, "cairn.log")); err == nil && regexp.MustCompile(`(?m)^\S+ hook (claude|codex) `).Match(log) {
		t.Errorf("a hook logged an error:\n%s", log)
	}
}
