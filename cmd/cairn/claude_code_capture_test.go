package main

// Claude Code itself at the moments cairn answers during a turn: after a
// Bash command fails (PostToolUseFailure), and at Stop, when cairn asks
// the agent once for its own account. As in claude_code_test.go, only the
// model is a stand-in (CAIRN_TEST_CLAUDE_CODE names Claude Code's
// command; without it the tests are skipped).

import (
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// claudeCodeProject is an agent project set up for Claude Code: cairn's
// hooks installed, Bash allowed without asking.
func claudeCodeProject(t *testing.T, model *fakeModel) (*agentProject, string) {
	t.Helper()
	claude := needClaudeCode(t)
	api := httptest.NewServer(model)
	t.Cleanup(api.Close)
	a := newAgentProject(t, "ANTHROPIC_API_KEY=sk-ant-test-not-a-key", "ANTHROPIC_BASE_URL="+api.URL,
		"DISABLE_TELEMETRY=1", "DISABLE_AUTOUPDATER=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1")
	if err := os.MkdirAll(filepath.Join(a.project, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(a.project, ".claude", "settings.local.json"), []byte(`{"permissions": {"allow": ["Bash"]}}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	a.run(cairnBin, "install", "claude", "--command", cairnBin) // the hooks join the permission in the personal file
	return a, claude
}

func bashInput(cmd string) string {
	b, _ := json.Marshal(map[string]string{"command": cmd, "description": "run it"})
	return string(b)
}

// An earlier session fixed "relation widgets does not exist" by running
// the migrations; when a command fails with it again, the fix is in the
// model's next request, beside the failed command's result.
func TestClaudeCodeGetsTheKnownFixAfterTheCommandFails(t *testing.T) {
	t.Parallel()
	failing := `sh -c 'echo "store_test.go:48: pq: relation \"widgets\" does not exist" >&2; exit 1'`
	model := &fakeModel{}
	model.script = func(body string) reply {
		if !strings.Contains(body, `"tool_result"`) && strings.Contains(body, "run the nightly check") {
			return reply{Tool: "Bash", Input: bashInput(failing), ID: "toolu_fail"}
		}
		return reply{Text: "Done."}
	}
	a, claude := claudeCodeProject(t, model)
	earlier := storeTranscript(t, t.TempDir(), "s-earlier", time.Now().UTC().Add(-48*time.Hour))
	a.run(cairnBin, "ingest", "claude", earlier)

	if out := a.run(claude, "-p", "run the nightly check"); !strings.Contains(out, "Done.") {
		t.Fatalf("claude -p printed %q", out)
	}
	var first, after string
	for _, b := range model.requests() {
		switch {
		case strings.Contains(b, `"tool_result"`) && strings.Contains(b, "toolu_fail"):
			after = b
		case strings.Contains(b, "run the nightly check"):
			first = b
		}
	}
	if first == "" || after == "" {
		t.Fatalf("the model never got the prompt and the command's result: %d requests", len(model.requests()))
	}
	if strings.Contains(first, "make migrate") {
		t.Error("the prompt, which names no error, already got the fix")
	}
	if !strings.Contains(after, "make migrate") || !strings.Contains(after, "PostToolUseFailure") {
		t.Errorf("the request after the failure lacks the known fix:\n%.4000s", after)
	}
	a.checkNoHookFailed()
}

// A command fails and then passes and the agent records nothing: at Stop
// cairn asks it once; its answer reaches cairn; the next Stop passes.
func TestClaudeCodeStopAsksOnceAndStoresTheAnswer(t *testing.T) {
	t.Parallel()
	// Fails the first time (and creates the marker), passes after.
	flaky := `test -f .seeded || { touch .seeded; echo "error: the seed file fixtures/users.json was not loaded yet" >&2; exit 1; }`
	const answer = "MEMORY:pitfall:The first test run after a clone fails until the seed fixtures are loaded; run it twice or seed first."
	model := &fakeModel{}
	model.script = func(body string) reply {
		switch {
		case strings.Contains(body, "before you stop"):
			return reply{Text: answer}
		case strings.Contains(body, "toolu_second"):
			return reply{Text: "The tests pass now."}
		case strings.Contains(body, "toolu_first"):
			return reply{Tool: "Bash", Input: bashInput(flaky), ID: "toolu_second"}
		case strings.Contains(body, "seed the test database"):
			return reply{Tool: "Bash", Input: bashInput(flaky), ID: "toolu_first"}
		}
		return reply{Text: "Done."}
	}
	a, claude := claudeCodeProject(t, model)
	out := a.run(claude, "-p", "seed the test database and run the tests")
	if !strings.Contains(out, "MEMORY:pitfall") {
		t.Errorf("claude -p printed %q: the agent's last answer should be its account", out)
	}
	asked := 0
	for _, b := range model.requests() {
		if strings.Contains(b, "before you stop") {
			asked++
		}
	}
	// The request that carries the ask holds it once; none after it asks
	// again (each later request repeats the conversation, so count the
	// requests whose last message is the ask: the answer follows at once).
	if asked == 0 {
		t.Fatalf("the model was never asked at Stop; %d requests", len(model.requests()))
	}
	if last := model.requests()[len(model.requests())-1]; strings.Count(last, "before you stop") != 1 {
		t.Errorf("asked %d times in the last request", strings.Count(last, "before you stop"))
	}
	var mems []map[string]any
	if err := json.Unmarshal([]byte(a.run(cairnBin, "list", "--json", "--type", "pitfall")), &mems); err != nil {
		t.Fatal(err)
	}
	found := false
	for _, m := range mems {
		found = found || strings.Contains(m["content"].(string), "seed fixtures are loaded")
	}
	if !found {
		t.Errorf("the agent's answer was not stored: %v", mems)
	}
	var fixes []map[string]any
	if err := json.Unmarshal([]byte(a.run(cairnBin, "list", "--json", "--type", "fix")), &fixes); err != nil {
		t.Fatal(err)
	}
	if len(fixes) != 1 || !strings.Contains(fixes[0]["title"].(string), "the seed file fixtures/users.json was not loaded yet") {
		t.Errorf("the failure and its pass were not captured as one fix: %v", fixes)
	}
	a.checkNoHookFailed()
}
