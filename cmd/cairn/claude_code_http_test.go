package main

// Claude Code's http hooks against cairn: `cairn install claude --http`,
// then a real Claude Code runs one turn of `claude -p` against the
// stand-in model (claude_code_test.go). The prompt's block comes from the
// server over HTTP, with no process started for it; with no server
// there, the session goes on and loses only that block.

import (
	"encoding/json"
	"net"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// freeLoopbackAddr is a loopback address nobody listens on just now.
func freeLoopbackAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// httpHookProject is an agent project with cairn installed with --http
// (the server's port one of its own), and the settings checked: the
// prompt's hook is an http hook, the session start's a command.
func httpHookProject(t *testing.T, model *fakeModel, env ...string) (*agentProject, string) {
	t.Helper()
	api := httptest.NewServer(model)
	t.Cleanup(api.Close)
	addr := freeLoopbackAddr(t)
	a := newAgentProject(t, append([]string{"ANTHROPIC_API_KEY=sk-ant-test-not-a-key", "ANTHROPIC_BASE_URL=" + api.URL,
		"DISABLE_TELEMETRY=1", "DISABLE_AUTOUPDATER=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "CAIRN_SERVE_ADDR=" + addr}, env...)...)
	a.run(cairnBin, "install", "claude", "--command", cairnBin, "--http")
	// The hooks run this machine's cairn by its path: they are in the
	// project's personal settings.
	b, err := os.ReadFile(filepath.Join(a.project, ".claude", "settings.local.json"))
	if err != nil {
		t.Fatal(err)
	}
	var settings struct {
		Hooks map[string][]struct{ Hooks []map[string]any }
	}
	if err := json.Unmarshal(b, &settings); err != nil {
		t.Fatal(err)
	}
	if h := settings.Hooks["UserPromptSubmit"][0].Hooks[0]; h["type"] != "http" || h["url"] != "http://"+addr+"/hooks/claude/UserPromptSubmit" {
		t.Fatalf("UserPromptSubmit is not an http hook at %s: %v", addr, h)
	}
	if h := settings.Hooks["SessionStart"][0].Hooks[0]; h["type"] != "command" {
		t.Fatalf("SessionStart is not a command hook: %v", h)
	}
	return a, addr
}

// The session-start hook starts the server; the prompt's block reaches
// the model through the http hook; Stop captures the answer as before.
func TestClaudeCodeGetsThePromptsBlockThroughAnHTTPHook(t *testing.T) {
	t.Parallel()
	claude := needClaudeCode(t)
	model := &fakeModel{answer: modelAnswer}
	a, addr := httpHookProject(t, model)
	defer a.run(cairnBin, "serve", "stop")
	a.turn(claude)
	a.checkPromptAndCapture(model.requests(), "claude")
	if st := a.run(cairnBin, "serve", "status"); !strings.Contains(st, "url       http://"+addr+"/") {
		t.Errorf("the server does not answer at the hooks' address %s:\n%s", addr, st)
	}
	// The prompt's block came from the server: no process of the prompt
	// hook ran (a command hook's failures and the server's messages go
	// to cairn.log; the http hook's errors would say "http hook").
	if log, _ := os.ReadFile(filepath.Join(a.dir, "cairn.log")); strings.Contains(string(log), "http hook") {
		t.Errorf("the http hook logged an error:\n%s", log)
	}
	a.checkNoHookFailed()
}

// With no server (CAIRN_NO_SERVER=1 keeps the session-start hook from
// starting one), Claude Code's http hook finds nobody listening: the
// session goes on, the session start's block (a command hook) still
// reaches the model, and only the prompt's block is missing.
func TestClaudeCodeWithoutTheServerLosesOnlyTheHTTPHooksBlock(t *testing.T) {
	t.Parallel()
	claude := needClaudeCode(t)
	model := &fakeModel{answer: modelAnswer}
	a, _ := httpHookProject(t, model, "CAIRN_NO_SERVER=1")
	a.turn(claude)
	request := lastWith(model.requests(), "fix the flaky session test")
	if !strings.Contains(request, "never database/sql") {
		t.Errorf("the session start's block did not reach the model")
	}
	if strings.Contains(request, "needs a fake clock") {
		t.Errorf("the prompt's block reached the model with no server to answer it")
	}
	// The answer is captured all the same (Stop is a command hook).
	if got := a.run(cairnBin, "list", "--type", "convention"); !strings.Contains(got, "t.Setenv") {
		t.Errorf("the answer's convention was not captured:\n%s", got)
	}
}

// Two databases' servers at one port: the http hook's session uses its
// CAIRN_DB, and the server of another database, which took the port, is
// at the hook's URL. It refuses the call (Claude Code passes CAIRN_DB in
// the header install wrote, and logs the refusal): the session goes on
// without the prompt's block rather than get the other database's
// memories, or write its uses there.
func TestClaudeCodeHTTPHookIsNotAnsweredFromAnotherDatabase(t *testing.T) {
	t.Parallel()
	claude := needClaudeCode(t)
	model := &fakeModel{answer: modelAnswer}
	a, addr := httpHookProject(t, model)
	other := filepath.Join(a.dir, "other", "cairn.db")
	otherEnv := append(slices.Clone(a.env), "CAIRN_DB="+other)
	run := func(args ...string) {
		t.Helper()
		cmd := exec.Command(cairnBin, args...)
		cmd.Dir, cmd.Env = a.project, otherEnv
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
	}
	run("add", "--type", "pitfall", "The flaky session test passes when retried three times.")
	serveBin(t, a.project, otherEnv, other, "serve", "--addr", addr, "--log", filepath.Join(a.dir, "other.log"))
	defer a.run(cairnBin, "serve", "stop") // the session's own, which the session start started
	a.turn(claude)
	for _, b := range model.requests() {
		if strings.Contains(b, "retried three times") {
			t.Errorf("the other database's memory reached the model")
		}
	}
	if log, _ := os.ReadFile(filepath.Join(a.dir, "other.log")); !strings.Contains(string(log), "this server answers the database "+other+", and the hook's session uses "+a.db) {
		t.Errorf("the other database's server did not refuse the session's http hook; its log:\n%s", log)
	}
}

// Database paths beyond ASCII in CAIRN_DB, which Claude Code passes in a
// header as single bytes: one in Latin-1 ("café") is sent and read back
// as the same path; one beyond it ("記憶"), which Claude Code cannot send
// at all (it would fail the whole call), is left out of the hooks by
// install. Either way the prompt's block arrives through the http hook.
func TestClaudeCodeHTTPHookWithADatabasePathBeyondASCII(t *testing.T) {
	t.Parallel()
	claude := needClaudeCode(t)
	for _, folder := range []string{"café", "記憶"} {
		t.Run(folder, func(t *testing.T) {
			t.Parallel()
			model := &fakeModel{answer: modelAnswer}
			db := filepath.Join(t.TempDir(), folder, "cairn.db")
			a, _ := httpHookProject(t, model, "CAIRN_DB="+db)
			defer a.run(cairnBin, "serve", "stop")
			a.turn(claude)
			request := lastWith(model.requests(), "fix the flaky session test")
			if !strings.Contains(request, "needs a fake clock") {
				t.Errorf("the prompt's block did not reach the model")
			}
			a.checkNoHookFailed()
		})
	}
}
