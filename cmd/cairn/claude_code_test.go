package main

// Claude Code itself against cairn: `cairn install claude` in a project,
// then a real Claude Code (npm package @anthropic-ai/claude-code) runs one
// turn of `claude -p`. Only the model is a stand-in: a local HTTP server
// that speaks the Messages API, records what Claude Code sends it and
// answers with a fixed text. The test checks what a user relies on: the
// hooks' context reaches the model's prompt, the answer's signal is
// captured at Stop, the session is summarised, the MCP server connects.
//
// Claude Code's command comes from CAIRN_TEST_CLAUDE_CODE, e.g.
//
//	npm install --prefix /tmp/cc @anthropic-ai/claude-code@2.1.197
//	CAIRN_TEST_CLAUDE_CODE=/tmp/cc/node_modules/.bin/claude go test -run ClaudeCode ./cmd/cairn
//
// Without the variable the test is skipped.

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

// agentProject is a project for one real agent's turn: a git repository
// (Claude Code reads a project's local settings only in one), a HOME of
// its own, and a database with a pinned decision and a pitfall that the
// prompt "fix the flaky session test" makes relevant.
type agentProject struct {
	t                  *testing.T
	dir, home, project string
	db                 string
	env                []string
}

// modelAnswer is what the stand-in models answer: a signal to capture.
const modelAnswer = "The tests pass now.\n\nMEMORY:convention:Tests set environment variables with t.Setenv, never os.Setenv."

func newAgentProject(t *testing.T, env ...string) *agentProject {
	t.Helper()
	dir := t.TempDir()
	a := &agentProject{t: t, dir: dir, home: filepath.Join(dir, "home"), project: filepath.Join(dir, "authsvc"), db: filepath.Join(dir, "cairn.db")}
	for _, d := range []string{a.home, a.project} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if out, err := exec.Command("git", "init", "-q", a.project).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	a.env = append(append(binEnv(a.home), "CAIRN_DB="+a.db), env...)
	a.run(cairnBin, "add", "--type", "decision", "--pin", "We use pgx for Postgres access, never database/sql.")
	a.run(cairnBin, "add", "--type", "pitfall", "The flaky session test needs a fake clock; time.Now makes it fail near midnight.")
	return a
}

// run runs a command in the project and returns its output; a failure
// fails the test.
func (a *agentProject) run(name string, args ...string) string {
	a.t.Helper()
	ctx, cancel := context.WithTimeout(a.t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir, cmd.Env = a.project, a.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		a.t.Fatalf("%s %v: %v\n%s", filepath.Base(name), args, err, out)
	}
	return string(out)
}

// turn runs one turn of `claude -p` on the user's prompt and fails the
// test unless the stand-in model's answer came back.
func (a *agentProject) turn(claude string) {
	a.t.Helper()
	if out := a.run(claude, "-p", "fix the flaky session test"); !strings.Contains(out, "The tests pass now.") {
		a.t.Fatalf("claude -p printed %q", out)
	}
}

// checkPromptAndCapture checks what every agent must show: the request
// with the user's prompt holds the blocks of both injecting hooks, and the
// answer's convention was stored once, as agent's.
func (a *agentProject) checkPromptAndCapture(requests []string, agent string) {
	t := a.t
	t.Helper()
	request := lastWith(requests, "fix the flaky session test")
	if request == "" {
		t.Fatalf("the model never got the user's prompt; %d requests", len(requests))
	}
	for _, want := range []string{"never database/sql", "needs a fake clock", "cairn-context"} {
		if !strings.Contains(request, want) {
			t.Errorf("the model's request lacks %q", want)
		}
	}
	var mems []map[string]any
	if err := json.Unmarshal([]byte(a.run(cairnBin, "list", "--json", "--type", "convention")), &mems); err != nil {
		t.Fatal(err)
	}
	if len(mems) != 1 || !strings.Contains(mems[0]["content"].(string), "t.Setenv") || mems[0]["use_count"] != float64(0) || mems[0]["created_by_agent"] != agent {
		t.Errorf("the answer's convention was not captured once as %s's: %v", agent, mems)
	}
}

// needClaudeCode returns Claude Code's command (CAIRN_TEST_CLAUDE_CODE)
// and cairn's binary built for it, or skips the test, saying what to set.
func needClaudeCode(t *testing.T) string {
	t.Helper()
	needBinary(t)
	claude := strings.TrimSpace(os.Getenv("CAIRN_TEST_CLAUDE_CODE"))
	if claude == "" {
		t.Skip("set CAIRN_TEST_CLAUDE_CODE to Claude Code's command (the claude bin of npm package @anthropic-ai/claude-code) to run cairn under a real Claude Code")
	}
	return claude
}

// checkNoHookFailed checks cairn.log, which holds the messages of the
// server the first hook started and a line for each hook that failed:
// there must be none of those.
func (a *agentProject) checkNoHookFailed() {
	a.t.Helper()
	if log, err := os.ReadFile(filepath.Join(a.dir, "cairn.log")); err == nil && regexp.MustCompile(`(?m)^\S+ hook (claude|codex) `).Match(log) {
		a.t.Errorf("a hook logged an error:\n%s", log)
	}
}

func TestClaudeCodeRunsCairnsHooksAndMCPServer(t *testing.T) {
	t.Parallel()
	claude := needClaudeCode(t)
	model := &fakeModel{answer: modelAnswer}
	api := httptest.NewServer(model)
	defer api.Close()
	a := newAgentProject(t, "ANTHROPIC_API_KEY=sk-ant-test-not-a-key", "ANTHROPIC_BASE_URL="+api.URL,
		"DISABLE_TELEMETRY=1", "DISABLE_AUTOUPDATER=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1")
	// A personal setting of the user's; the install adds its hooks to
	// that file (its command is a path of this machine) and keeps it,
	// and puts the MCP server in the project's entry of ~/.claude.json.
	if err := os.MkdirAll(filepath.Join(a.project, ".claude"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(a.project, ".claude", "settings.local.json"), []byte(`{"enableAllProjectMcpServers": true}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	a.run(cairnBin, "install", "claude", "--command", cairnBin)

	a.turn(claude)
	// SessionStart's block (the pinned decision) and UserPromptSubmit's
	// (the relevant pitfall) reached the model; Stop captured the answer.
	a.checkPromptAndCapture(model.requests(), "claude")

	// The session was summarised, and the memories shown were counted as
	// used. The first hook started cairn serve, which records use in
	// batches a second apart and applies them to the use counts every 5
	// s: wait for it.
	var byType map[string]map[string]any
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		var mems []map[string]any
		if err := json.Unmarshal([]byte(a.run(cairnBin, "list", "--json")), &mems); err != nil {
			t.Fatal(err)
		}
		byType = map[string]map[string]any{}
		for _, m := range mems {
			byType[m["type"].(string)] = m
		}
		if byType["pitfall"]["use_count"] == float64(1) || time.Now().After(deadline) {
			break
		}
	}
	if s := byType["session"]; s == nil || !strings.Contains(s["title"].(string), "fix the flaky session test") {
		t.Errorf("no session summary: %v", byType)
	}
	for _, typ := range []string{"decision", "pitfall"} {
		if m := byType[typ]; m == nil || m["use_count"] != float64(1) {
			t.Errorf("the %s shown was not recorded as used once: %v", typ, m)
		}
	}
	// After the first session in the folder, Claude Code checks the MCP
	// servers the project approved.
	if out := a.run(claude, "mcp", "list"); !strings.Contains(out, "cairn") || !strings.Contains(out, "Connected") {
		t.Errorf("Claude Code does not connect to cairn's MCP server:\n%s", out)
	}
	a.checkNoHookFailed()
}

// fakeModel is a Messages API stand-in for Claude Code's model. With a
// tool, it answers the request holding prompt with one call of tool with
// input, and every other request with answer; without one, every request
// with answer. It keeps the request bodies, and answers streamed or not as
// asked.
type fakeModel struct {
	prompt, tool, input, answer string
	// answerFor, when set, chooses the answer by the request body.
	answerFor func(body string) string
	// script, when set, chooses every reply by the request body: a tool
	// call (Tool, Input, ID) or a text; it overrides the fields above.
	script func(body string) reply
	mu     sync.Mutex
	bodies []string
}

// reply is one answer of a scripted stand-in model.
type reply struct{ Tool, Input, ID, Text string }

func (f *fakeModel) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	if r.URL.Path != "/v1/messages" {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"input_tokens": 10}`)
		return
	}
	f.mu.Lock()
	f.bodies = append(f.bodies, string(body))
	f.mu.Unlock()
	var req struct {
		Stream bool `json:"stream"`
	}
	json.Unmarshal(body, &req)
	call := f.tool != "" && strings.Contains(string(body), f.prompt) && !strings.Contains(string(body), `"tool_result"`)
	answer, tool, rawInput, id := f.answer, f.tool, f.input, "toolu_01"
	if f.answerFor != nil {
		answer = f.answerFor(string(body))
	}
	if f.script != nil {
		r := f.script(string(body))
		answer, tool, rawInput, call = r.Text, r.Tool, r.Input, r.Tool != ""
		if r.ID != "" {
			id = r.ID
		}
	}
	text, _ := json.Marshal(answer)
	name, _ := json.Marshal(tool)
	input, _ := json.Marshal(rawInput)
	toolID, _ := json.Marshal(id)
	if !req.Stream {
		w.Header().Set("Content-Type", "application/json")
		if call {
			fmt.Fprintf(w, `{"id":"msg_2","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"tool_use","id":%s,"name":%s,"input":%s}],"stop_reason":"tool_use","stop_sequence":null,"usage":{"input_tokens":10,"output_tokens":5}}`, toolID, name, rawInput)
			return
		}
		fmt.Fprintf(w, `{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":%s}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":10,"output_tokens":5}}`, text)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	events := [][2]string{{"message_start", `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":10,"output_tokens":1}}}`}}
	if call {
		events = append(events,
			[2]string{"content_block_start", fmt.Sprintf(`{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":%s,"name":%s,"input":{}}}`, toolID, name)},
			[2]string{"content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":%s}}`, input)},
			[2]string{"content_block_stop", `{"type":"content_block_stop","index":0}`},
			[2]string{"message_delta", `{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":15}}`})
	} else {
		events = append(events,
			[2]string{"content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`},
			[2]string{"content_block_delta", fmt.Sprintf(`{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":%s}}`, text)},
			[2]string{"content_block_stop", `{"type":"content_block_stop","index":0}`},
			[2]string{"message_delta", `{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":15}}`})
	}
	events = append(events, [2]string{"message_stop", `{"type":"message_stop"}`})
	for _, ev := range events {
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", ev[0], ev[1])
	}
}

// lastWith is the last of requests that holds s, "" when none does: the
// model's request with the user's prompt.
func lastWith(requests []string, s string) string {
	last := ""
	for _, b := range requests {
		if strings.Contains(b, s) {
			last = b
		}
	}
	return last
}

func (f *fakeModel) requests() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.bodies...)
}

// Before Claude Code writes a file, cairn's PreToolUse hook puts the
// memories about that file into the model's next request; the prompt
// itself, which names no file, gets nothing.
func TestClaudeCodeGetsTheMemoriesOfAFileBeforeWritingIt(t *testing.T) {
	t.Parallel()
	claude := needClaudeCode(t)
	model := &fakeModel{prompt: "add the helper we talked about", tool: "Write", answer: "Done."}
	api := httptest.NewServer(model)
	defer api.Close()
	a := newAgentProject(t, "ANTHROPIC_API_KEY=sk-ant-test-not-a-key", "ANTHROPIC_BASE_URL="+api.URL,
		"DISABLE_TELEMETRY=1", "DISABLE_AUTOUPDATER=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1")
	target := filepath.Join(a.project, "internal", "session", "clock.go")
	in, _ := json.Marshal(map[string]string{"file_path": target, "content": "package session\n"})
	model.input = string(in)
	a.run(cairnBin, "add", "--type", "pitfall", "--files", "internal/session/*.go",
		"Code here never calls time.Now directly: it takes the injected Clock, or the midnight tests break.")
	a.run(cairnBin, "install", "claude", "--command", cairnBin)

	out := a.run(claude, "-p", "--permission-mode", "acceptEdits", model.prompt)
	if !strings.Contains(out, "Done.") {
		t.Fatalf("claude -p printed %q", out)
	}
	if _, err := os.Stat(target); err != nil {
		t.Fatalf("Claude Code did not write the file: %v", err)
	}
	var first, after string
	for _, b := range model.requests() {
		switch {
		case strings.Contains(b, model.prompt) && !strings.Contains(b, `"tool_result"`):
			first = b
		case strings.Contains(b, `"tool_result"`):
			after = b
		}
	}
	if first == "" || after == "" {
		t.Fatalf("the model did not get the prompt and then the tool's result: %d requests", len(model.requests()))
	}
	const memory = "takes the injected Clock"
	if strings.Contains(first, memory) {
		t.Error("the prompt, which names no file, already got the file's memory")
	}
	if !strings.Contains(after, memory) {
		t.Errorf("the request after the Write lacks the file's memory:\n%.3000s", after)
	}
	a.checkNoHookFailed()
}
