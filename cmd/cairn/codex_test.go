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
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
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
	model := &fakeResponses{answer: modelAnswer}
	api := httptest.NewServer(model)
	defer api.Close()
	a := newAgentProject(t, "LOCAL_MODEL_KEY=not-a-key")
	codexHome := filepath.Join(a.home, ".codex")
	a.env = append(a.env, "CODEX_HOME="+codexHome)
	// The user's own settings: a model provider, which install must keep.
	userConfig := fmt.Sprintf("model = \"gpt-5\"\nmodel_provider = \"local\"\n\n[model_providers.local]\nname = \"local\"\nbase_url = %q\nenv_key = \"LOCAL_MODEL_KEY\"\nwire_api = \"responses\"\nsupports_websockets = false\n", api.URL+"/v1")
	if err := os.MkdirAll(codexHome, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(codexHome, "config.toml"), []byte(userConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	a.run(cairnBin, "install", "codex", "--command", cairnBin)

	if out := a.run(codex, "mcp", "list"); !strings.Contains(out, "cairn") || !strings.Contains(out, "enabled") {
		t.Errorf("Codex does not list cairn's MCP server as enabled:\n%s", out)
	}
	out := a.run(codex, "exec", "--dangerously-bypass-hook-trust", "fix the flaky session test")
	if !strings.Contains(out, "The tests pass now.") {
		t.Fatalf("codex exec printed %q", out)
	}
	model.mu.Lock()
	requests := append([]string(nil), model.bodies...)
	model.mu.Unlock()
	a.checkPromptAndCapture(requests, "codex")
	a.checkNoHookFailed()
}
