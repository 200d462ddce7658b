package main

// The hooks at the point of a failure and at Stop, with the payloads
// Claude Code 2.1 sends (PostToolUseFailure's error is "Exit code N" and
// the command's output; Stop carries stop_hook_active and
// last_assistant_message).

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/hook"
)

// storeTranscript writes a session where the store tests fail on a
// missing table until the migrations run, and ends without any signal.
func storeTranscript(t *testing.T, dir, session string, at time.Time) string {
	t.Helper()
	var lines []string
	n := 0
	add := func(typ string, content any) {
		n++
		b, err := json.Marshal(map[string]any{"type": typ, "sessionId": session, "cwd": "/home/dev/authsvc", "uuid": fmt.Sprintf("%s-%d", session, n),
			"isSidechain": false, "userType": "external", "version": "2.1.197", "timestamp": at.Add(time.Duration(n) * time.Minute).Format(time.RFC3339),
			"message": map[string]any{"role": typ, "content": content}})
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, string(b))
	}
	bash := func(id, cmd, out string, failed bool) {
		add("assistant", []any{map[string]any{"type": "tool_use", "id": id, "name": "Bash", "input": map[string]any{"command": cmd}}})
		add("user", []any{map[string]any{"type": "tool_result", "tool_use_id": id, "content": out, "is_error": failed}})
	}
	add("user", "the store tests fail on a fresh checkout, find out why")
	bash("toolu_a", "go test ./internal/store/...", "Exit code 1\n--- FAIL: TestWidgets (0.01s)\n    store_test.go:31: pq: relation \"widgets\" does not exist\nFAIL\nFAIL\texample.com/authsvc/internal/store\t0.02s", true)
	bash("toolu_b", "make migrate", "applied 3 migrations", false)
	bash("toolu_c", "go test ./internal/store/...", "ok  \texample.com/authsvc/internal/store\t0.03s", false)
	add("assistant", []any{map[string]any{"type": "text", "text": "The tests pass once the migrations have run."}})
	path := filepath.Join(dir, session+".jsonl")
	if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func failurePayload(session, transcript, errText string, interrupt bool) string {
	b, _ := json.Marshal(map[string]any{"session_id": session, "transcript_path": transcript, "cwd": "/home/dev/authsvc",
		"prompt_id": "628b8892-8539-4040-b313-e82fb25a98bd", "permission_mode": "default", "effort": map[string]any{"level": "high"},
		"hook_event_name": "PostToolUseFailure", "tool_name": "Bash", "tool_input": map[string]any{"command": "go test ./internal/store/... -run TestWidgets"},
		"tool_use_id": "toolu_z", "error": errText, "is_interrupt": interrupt, "duration_ms": 555})
	return string(b)
}

func stopPayload(session, transcript, last string, active bool) string {
	b, _ := json.Marshal(map[string]any{"session_id": session, "transcript_path": transcript, "cwd": "/home/dev/authsvc",
		"prompt_id": "628b8892-8539-4040-b313-e82fb25a98bd", "permission_mode": "default", "effort": map[string]any{"level": "high"},
		"hook_event_name": "Stop", "stop_hook_active": active, "last_assistant_message": last, "background_tasks": []any{}, "session_crons": []any{}})
	return string(b)
}

// After a command fails, the hook answers with the fix of the same error
// met in an earlier session, though the line number differs; twice at
// most in a session; nothing for an error never met, nor for an
// interruption.
func TestHookAfterAFailureGivesTheFixOfTheSameError(t *testing.T) {
	t.Parallel()
	c := newHookCLI(t)
	old := storeTranscript(t, c.transcripts, "s-earlier", time.Date(2026, 10, 20, 9, 0, 0, 0, time.UTC))
	c.ok("ingest", "claude", old)

	again := "Exit code 1\n--- FAIL: TestWidgets (0.02s)\n    store_test.go:48: pq: relation \"widgets\" does not exist\nFAIL\nFAIL\texample.com/authsvc/internal/store\t0.04s"
	r := c.hook(failurePayload("s-now", "/nowhere.jsonl", again, false), "post-tool-use-failure")
	if r.code != 0 || r.stderr != "" {
		t.Fatalf("%v", r)
	}
	var out hook.Output
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		t.Fatalf("not the hook's JSON: %v\n%s", err, r.stdout)
	}
	ctx := out.HookSpecificOutput.AdditionalContext
	if out.HookSpecificOutput.HookEventName != hook.PostToolUseFailure || !strings.Contains(ctx, `relation "widgets" does not exist`) ||
		!strings.Contains(ctx, "ran `make migrate`") || !strings.Contains(ctx, "<cairn-context") {
		t.Errorf("the answer lacks the fix:\n%s", r.stdout)
	}
	// The same failure again is answered again, but a loop of it is not
	// answered a third time.
	if r := c.hook(failurePayload("s-now", "/nowhere.jsonl", again, false), "post-tool-use-failure"); !strings.Contains(r.stdout, "make migrate") {
		t.Errorf("the second failure got no answer:\n%s", r.stdout)
	}
	if r := c.hook(failurePayload("s-now", "/nowhere.jsonl", again, false), "post-tool-use-failure"); r.stdout != "" {
		t.Errorf("the same session was shown the fix a third time:\n%s", r.stdout)
	}
	for _, p := range []string{
		failurePayload("s-other", "/nowhere.jsonl", "Exit code 1\nstore_test.go:12: want 3 widgets, got 2 after the import", false),
		failurePayload("s-other", "/nowhere.jsonl", again, true),
		failurePayload("s-other", "/nowhere.jsonl", "Exit code 1", false),
	} {
		if r := c.hook(p, "post-tool-use-failure"); r.code != 0 || r.stdout != "" {
			t.Errorf("an answer where none is known: %v", r)
		}
	}
	// Before the command runs again in another session: what is known
	// about the failures of `go test`.
	pre, _ := json.Marshal(map[string]any{"session_id": "s-next", "cwd": "/home/dev/authsvc", "hook_event_name": "PreToolUse",
		"tool_name": "Bash", "tool_input": map[string]any{"command": "go test ./internal/store/..."}, "tool_use_id": "toolu_p"})
	if r := c.hook(string(pre), "pre-tool-use"); !strings.Contains(r.stdout, "make migrate") || !strings.Contains(r.stdout, "Known failures of `go test`") {
		t.Errorf("pre-tool-use before go test: %v", r)
	}
	if log := c.logText(); log != "" {
		t.Errorf("log: %s", log)
	}
}

// At Stop, a session where a command failed and then passed, and where
// the agent recorded nothing, asks the agent once for its account; the
// second Stop (stop_hook_active) stores the answer and passes; a later
// Stop of the session does not ask again; the configuration turns it off.
func TestHookStopAsksOnceForTheAgentsAccount(t *testing.T) {
	t.Parallel()
	c := newHookCLI(t)
	path := storeTranscript(t, c.transcripts, "s-ask", time.Date(2026, 10, 31, 9, 0, 0, 0, time.UTC))
	r := c.hook(stopPayload("s-ask", path, "The tests pass once the migrations have run.", false), "stop")
	var block struct{ Decision, Reason string }
	if err := json.Unmarshal([]byte(r.stdout), &block); err != nil || block.Decision != "block" ||
		!strings.Contains(block.Reason, "a command failed and then passed") || !strings.Contains(block.Reason, "MEMORY:") {
		t.Fatalf("Stop did not ask: %v %v", r, err)
	}
	answer := "MEMORY:pitfall:The store tests need the migrations: run make migrate on a fresh database first."
	if r := c.hook(stopPayload("s-ask", path, answer, true), "stop"); r.code != 0 || r.stdout != "" {
		t.Errorf("the second Stop: %v", r)
	}
	found := false
	for _, m := range c.listJSON("--type", "pitfall") {
		found = found || strings.Contains(m["content"].(string), "run make migrate on a fresh database")
	}
	if !found {
		t.Errorf("the agent's answer was not stored: %q", c.captured())
	}
	more := storeTranscript(t, t.TempDir(), "s-ask", time.Date(2026, 10, 31, 11, 0, 0, 0, time.UTC))
	b, _ := os.ReadFile(more)
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write(b)
	f.Close()
	if r := c.hook(stopPayload("s-ask", path, "Done.", false), "stop"); r.stdout != "" {
		t.Errorf("asked twice in one session: %v", r)
	}

	off := newHookCLI(t)
	cfg := filepath.Join(off.dir, ".config", "cairn", "cairn.toml")
	if err := os.MkdirAll(filepath.Dir(cfg), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg, []byte("[capture]\nask_at_stop = false\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := storeTranscript(t, off.transcripts, "s-off", time.Date(2026, 10, 31, 9, 0, 0, 0, time.UTC))
	if r := off.hook(stopPayload("s-off", p, "Done.", false), "stop"); r.code != 0 || r.stdout != "" {
		t.Errorf("asked with ask_at_stop = false: %v", r)
	}
	if log := c.logText() + off.logText(); log != "" {
		t.Errorf("log: %s", log)
	}
}

// A Stop hook says in its log what it could not take: a signal of the
// last message it dropped (no content, an invalid type, a NUL in it)
// and a transcript that is a FIFO, which it does not open (opening one
// waits for a writer: the hook would sit until its timeout). Bad inputs
// tried: a MEMORY: line without content, an invalid type, a NUL byte,
// a FIFO as transcript_path.
func TestHookStopLogsWhatItDropped(t *testing.T) {
	t.Parallel()
	c := newHookCLI(t)
	last := "Done.\nMEMORY:pitfall:\nMEMORY:Bad Type:the type has capitals\nMEMORY:fix:a NUL \x00 in it\nMEMORY:convention:Run make fmt before committing."
	r := c.hook(stopPayload("s-drop", "/nowhere.jsonl", last, true), "stop")
	if r.code != 0 || r.stdout != "" {
		t.Fatalf("%v", r)
	}
	log := c.logText()
	for _, want := range []string{"has no content", "is not valid"} {
		if !strings.Contains(log, want) {
			t.Errorf("the log does not say %q:\n%s", want, log)
		}
	}
	found := false
	for _, m := range c.listJSON("--type", "convention") {
		found = found || strings.Contains(m["content"].(string), "make fmt")
	}
	if !found {
		t.Errorf("the valid signal beside the dropped ones was not stored: %q", c.captured())
	}

	fifo := filepath.Join(c.transcripts, "fifo.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("cannot make a FIFO here: %v", err)
	}
	start := time.Now()
	r = c.hook(stopPayload("s-fifo", fifo, "Done.", false), "stop")
	if took := time.Since(start); took > 10*time.Second || r.code != 0 {
		t.Fatalf("a FIFO transcript held the hook %v: %v", took, r)
	}
	if log := c.logText(); !strings.Contains(log, "not a regular file") {
		t.Errorf("the log does not say the transcript was skipped:\n%s", log)
	}
}
