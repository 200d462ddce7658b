package main

// Codex itself after a shell command fails: Codex has no failure event;
// its PostToolUse follows every shell command with the command's output
// (and no exit status), and its additionalContext reaches the model as a
// developer message. As in codex_test.go, only the model is a stand-in
// (CAIRN_TEST_CODEX names Codex's command).

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
	"time"
)

// codexToolModel is a Responses API stand-in that answers the request
// holding prompt (and no tool output yet) with one exec_command call of
// cmd, and every other request with a text.
type codexToolModel struct {
	prompt, cmd string
	mu          sync.Mutex
	bodies      []string
}

func (f *codexToolModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	f.mu.Lock()
	f.bodies = append(f.bodies, string(body))
	f.mu.Unlock()
	var item string
	if strings.Contains(string(body), f.prompt) && !strings.Contains(string(body), "function_call_output") {
		args, _ := json.Marshal(map[string]string{"cmd": f.cmd})
		a, _ := json.Marshal(string(args))
		item = fmt.Sprintf(`{"type":"function_call","id":"fc_1","call_id":"call_fail","name":"exec_command","arguments":%s,"status":"completed"}`, a)
	} else {
		item = `{"type":"message","id":"msg_1","role":"assistant","status":"completed","content":[{"type":"output_text","text":"Done.","annotations":[]}]}`
	}
	w.Header().Set("Content-Type", "text/event-stream")
	for _, ev := range [][2]string{
		{"response.created", `{"type":"response.created","response":{"id":"resp_1","object":"response","status":"in_progress","output":[]}}`},
		{"response.output_item.done", fmt.Sprintf(`{"type":"response.output_item.done","output_index":0,"item":%s}`, item)},
		{"response.completed", fmt.Sprintf(`{"type":"response.completed","response":{"id":"resp_1","object":"response","status":"completed","output":[%s],"usage":{"input_tokens":10,"input_tokens_details":{"cached_tokens":0},"output_tokens":5,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":15}}}`, item)},
	} {
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", ev[0], ev[1])
	}
}

func TestCodexGetsTheKnownFixAfterTheCommandFails(t *testing.T) {
	t.Parallel()
	needBinary(t)
	codex := strings.TrimSpace(os.Getenv("CAIRN_TEST_CODEX"))
	if codex == "" {
		t.Skip("set CAIRN_TEST_CODEX to Codex's command (the codex bin of npm package @openai/codex) to run cairn under a real Codex")
	}
	model := &codexToolModel{prompt: "run the nightly check",
		cmd: `sh -c 'echo "store_test.go:48: pq: relation \"widgets\" does not exist" >&2; exit 1'`}
	api := httptest.NewServer(model)
	defer api.Close()
	a := newAgentProject(t, "LOCAL_MODEL_KEY=not-a-key")
	codexHome := filepath.Join(a.home, ".codex")
	a.env = append(a.env, "CODEX_HOME="+codexHome)
	userConfig := fmt.Sprintf("model = \"gpt-5\"\nmodel_provider = \"local\"\napproval_policy = \"never\"\nsandbox_mode = \"danger-full-access\"\n\n[model_providers.local]\nname = \"local\"\nbase_url = %q\nenv_key = \"LOCAL_MODEL_KEY\"\nwire_api = \"responses\"\nsupports_websockets = false\n", api.URL+"/v1")
	if err := os.MkdirAll(codexHome, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(codexHome, "config.toml"), []byte(userConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	a.run(cairnBin, "install", "codex", "--command", cairnBin)
	a.run(cairnBin, "ingest", "claude", storeTranscript(t, t.TempDir(), "s-earlier", time.Now().UTC().Add(-48*time.Hour)))

	if out := a.run(codex, "exec", "--dangerously-bypass-hook-trust", model.prompt); !strings.Contains(out, "Done.") {
		t.Fatalf("codex exec printed %q", out)
	}
	model.mu.Lock()
	requests := append([]string(nil), model.bodies...)
	model.mu.Unlock()
	var first, after string
	for _, b := range requests {
		if strings.Contains(b, "function_call_output") {
			after = b
		} else if strings.Contains(b, model.prompt) {
			first = b
		}
	}
	if first == "" || after == "" {
		t.Fatalf("the model never got the prompt and the command's output: %d requests", len(requests))
	}
	if strings.Contains(first, "make migrate") {
		t.Error("the prompt, which names no error, already got the fix")
	}
	if !strings.Contains(after, "make migrate") {
		t.Errorf("the request after the failure lacks the known fix:\n%.3000s", after)
	}
	a.checkNoHookFailed()
}
