package main

// Tests of cairn loop through Main.Run.
//
// Bad inputs tried here: no subcommand, an unknown one, a missing --task,
// a non-numeric iteration, an unknown outcome, a negative duration, a
// result file that does not exist, malformed signals in the result.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestLoopRecordContextModelStatus(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	result := filepath.Join(t.TempDir(), "result.txt")
	if err := os.WriteFile(result, []byte("go test ./sync fails\n<failure-report>\nerror: TestSyncRetries times out\napproach: raised the retry count\navoid: more retries\n</failure-report>\n<learning category=\"pitfall\" files=\"sync/client.go\">The sync server rate-limits fast retries.</learning>\n<learning>never closed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := c.run("", "loop", "record", "--task", "7", "--iteration", "1", "--model", "sonnet", "--outcome", "failed",
		"--duration-ms", "61000", "--cost-usd", "0.42", "--result", result, "--json")
	if r.code != 0 {
		t.Fatalf("record: %v", r)
	}
	var rec struct {
		Iteration map[string]any      `json:"iteration"`
		Memories  []map[string]string `json:"memories"`
		Problems  []map[string]any    `json:"problems"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &rec); err != nil {
		t.Fatal(err)
	}
	if rec.Iteration["failure_id"] == "" || rec.Iteration["cost_usd"] != 0.42 || len(rec.Memories) != 2 || len(rec.Problems) != 1 ||
		!strings.Contains(r.stderr, "result line") {
		t.Errorf("record printed %v, stderr %q", r.stdout, r.stderr)
	}
	if r := c.run("", "loop", "record", "--task", "7", "--iteration", "2", "--model", "sonnet", "--outcome", "no-signal"); r.code != 0 ||
		!strings.Contains(r.stdout, "minimal report") {
		t.Errorf("a signal-less iteration: %v", r)
	}
	r = c.run("", "loop", "model", "--task", "7")
	if r.code != 0 || r.stdout != "opus\n" || !strings.Contains(r.stderr, "escalated: 2 failures in a row") {
		t.Errorf("model after two failures: %v", r)
	}
	r = c.run("", "loop", "context", "--task", "7", "--title", "make the sync retries pass")
	for _, want := range []string{"### Previous Attempts", "TestSyncRetries times out", "### Loop Status", "Iteration 3. Task 7", "rate-limits fast retries"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("loop context lacks %q: %v", want, r)
		}
	}
	if r := c.run("", "loop", "context", "--task", "7", "--budget", "300"); len([]rune(r.stdout)) > 300 {
		t.Errorf("--budget 300 gave %d characters", len([]rune(r.stdout)))
	}
	// The same attempts reach cairn context --task.
	r = c.run("", "context", "--task", "7", "--prompt", "retry task 7: make the sync retries pass", "--dry-run")
	if !strings.Contains(r.stdout, "### Previous Attempts") || !strings.Contains(r.stdout, "TestSyncRetries times out") {
		t.Errorf("context --task lacks the task's attempts: %v", r)
	}
	if r := c.run("", "context", "--prompt", "retry task 7", "--dry-run"); strings.Contains(r.stdout, "Previous Attempts") {
		t.Errorf("context without --task shows attempts: %v", r)
	}
	// And Claude Code's prompt hook, in a loop that names its task.
	payload := `{"session_id":"s-loop","cwd":"` + c.wd + `","hook_event_name":"UserPromptSubmit","prompt":"make the sync retries pass"}`
	c.env["CAIRN_TASK"] = "7"
	r = c.run(payload, "hook", "claude", "user-prompt-submit")
	delete(c.env, "CAIRN_TASK")
	if r.code != 0 || !strings.Contains(r.stdout, "Previous Attempts") || !strings.Contains(r.stdout, "TestSyncRetries times out") {
		t.Errorf("the prompt hook with CAIRN_TASK=7 lacks the task's attempts: %v", r)
	}
	if r := c.run(payload, "hook", "claude", "user-prompt-submit"); strings.Contains(r.stdout, "Previous Attempts") {
		t.Errorf("the prompt hook without CAIRN_TASK shows attempts: %v", r)
	}
	r = c.run("", "loop", "status", "--json")
	var st []map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &st); err != nil || len(st) != 1 || st[0]["consecutive_failures"] != float64(2) {
		t.Errorf("status: %v (%v)", r, err)
	}
	if r := c.run("", "loop", "prune"); r.code != 0 || !strings.Contains(r.stdout, "archived 0") {
		t.Errorf("prune: %v", r)
	}
}

func TestLoopRefusesBadInput(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	for _, args := range [][]string{
		{"loop"},
		{"loop", "rewind"},
		{"loop", "record", "--iteration", "1", "--outcome", "done"},
		{"loop", "record", "--task", "7", "--iteration", "one", "--outcome", "done"},
		{"loop", "record", "--task", "7", "--iteration", "1", "--outcome", "maybe"},
		{"loop", "record", "--task", "7", "--iteration", "1", "--outcome", "done", "--duration-ms", "-5"},
		{"loop", "context"},
		{"loop", "model"},
		{"loop", "prune", "--archive-after", "soon"},
	} {
		if r := c.run("", args...); r.code != 2 || r.stderr == "" {
			t.Errorf("%v: %v, want a usage error", args, r)
		}
	}
	if r := c.run("", "loop", "record", "--task", "7", "--iteration", "1", "--outcome", "failed", "--result", "/nonexistent/result"); r.code != 1 ||
		!strings.Contains(r.stderr, "cannot read") {
		t.Errorf("a missing result file: %v", r)
	}
	if r := c.run("", "loop", "status"); r.code != 0 || strings.TrimSpace(r.stdout) != "" && !strings.Contains(r.stdout, "no iterations") {
		t.Errorf("nothing stored: %v", r)
	}
}
