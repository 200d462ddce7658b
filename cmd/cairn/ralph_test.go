package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// ralphFailure is the stand-in model's answer to an attempt at task 7
// before it is stuck: a failure report (its approach numbered by the
// attempts the prompt shows) and a learning about the file.
const ralphFailure = `I changed the retry loop in sync/client.go but TestSyncRetries still times out.
<failure-report>
error: TestSyncRetries times out after 30s
approach: retry strategy number %d
avoid: raising the retry count: the server rate-limits the client
files: sync/client.go
</failure-report>
<learning category="pitfall" files="sync/client.go">The sync server rate-limits clients that retry faster than once a second.</learning>
TASK FAILED`

var attemptRE = regexp.MustCompile(`Attempt \d+ \(iteration`)

// examples/ralph/ralph.sh runs a real Claude Code five times (a local
// stand-in for the model): the second prompt holds the first failure, the
// model escalates after the second failure, the stuck warning appears
// after the third, and a learning from task 7 reaches task 8, which
// touches the same file.
func TestRalphExampleLoopRemembersAcrossIterations(t *testing.T) {
	t.Parallel()
	needBinary(t)
	claude := strings.TrimSpace(os.Getenv("CAIRN_TEST_CLAUDE_CODE"))
	if claude == "" {
		t.Skip("set CAIRN_TEST_CLAUDE_CODE to Claude Code's command (the claude bin of npm package @anthropic-ai/claude-code) to run the example loop under a real Claude Code")
	}
	model := &fakeModel{answerFor: func(body string) string {
		switch {
		case !strings.Contains(body, "End your answer with TASK DONE"):
			return "ok" // Claude Code's own side requests
		case strings.Contains(body, "Task 8:"):
			return "Added a 10 s timeout to the sync client, with the one-second backoff.\nTASK DONE"
		case strings.Contains(body, "Stuck Loop Warning"):
			return "Split the task: first made the backoff start at one second; TestSyncRetries passes.\nTASK DONE"
		}
		return fmt.Sprintf(ralphFailure, len(attemptRE.FindAllString(body, -1))+1)
	}}
	api := httptest.NewServer(model)
	defer api.Close()
	dir := t.TempDir()
	home, work := filepath.Join(dir, "home"), filepath.Join(dir, "work")
	for _, d := range []string{home, work} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if out, err := exec.Command("git", "init", "-q", work).CombinedOutput(); err != nil {
		t.Fatalf("git init: %v %s", err, out)
	}
	db := filepath.Join(dir, "cairn.db")
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", filepath.Join("..", "..", "examples", "ralph", "ralph.sh"))
	cmd.Env = append(binEnv(home), "CAIRN="+cairnBin, "CAIRN_DB="+db, "CAIRN_PROJECT=ralph", "CLAUDE="+claude, "WORK="+work,
		"ANTHROPIC_API_KEY=sk-ant-test-not-a-key", "ANTHROPIC_BASE_URL="+api.URL,
		"DISABLE_TELEMETRY=1", "DISABLE_AUTOUPDATER=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("ralph.sh: %v\n%s", err, out)
	}

	// The prompts of the five iterations, in order.
	var prompts []string
	var models []string
	for _, b := range model.requests() {
		if !strings.Contains(b, "End your answer with TASK DONE") {
			continue
		}
		var req struct {
			Model string `json:"model"`
		}
		json.Unmarshal([]byte(b), &req)
		prompts, models = append(prompts, b), append(models, req.Model)
	}
	if len(prompts) != 5 {
		t.Fatalf("%d iterations reached the model, want 5:\n%s", len(prompts), out)
	}
	if strings.Contains(prompts[0], "TestSyncRetries times out") || !strings.Contains(prompts[1], "TestSyncRetries times out") ||
		!strings.Contains(prompts[1], "Previous Attempts") {
		t.Errorf("the second prompt does not hold the first failure (and only it does):\n%s", prompts[1])
	}
	for i, want := range []string{"sonnet", "sonnet", "opus", "opus", "sonnet"} {
		if !strings.Contains(models[i], want) {
			t.Errorf("iteration %d ran %q, want %s (escalated after the second failure): %v", i+1, models[i], want, models)
		}
	}
	if strings.Contains(prompts[2], "Stuck Loop Warning") || !strings.Contains(prompts[3], "Stuck Loop Warning") {
		t.Errorf("the stuck warning should first appear after the third failure")
	}
	if !strings.Contains(prompts[4], "Task 8:") || !strings.Contains(prompts[4], "rate-limits clients") || strings.Contains(prompts[4], "Previous Attempts") {
		t.Errorf("task 8's prompt lacks task 7's learning about sync/client.go (or shows task 7's attempts):\n%s", prompts[4])
	}
	status := string(out[strings.LastIndex(string(out), "=== status"):])
	if !regexp.MustCompile(`(?m)^7\s+4\s+3\s+0\s+done\s+opus`).MatchString(status) || !regexp.MustCompile(`(?m)^8\s+1\s+0\s+0\s+done`).MatchString(status) {
		t.Errorf("loop status:\n%s", status)
	}
}
