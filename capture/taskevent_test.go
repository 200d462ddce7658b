package capture_test

import (
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/capture"
)

// Each task event makes its memory: a created task's description is cut
// to 500 characters and keyed by the task; a completed one's summary
// gets its files, signals and rules; a failure without an agent is an
// issue with no key, with one a seed 002 error_solution. Bad input tried:
// a secret in the description (redacted before the cut), a malformed
// signal in a summary (a problem, not a memory).
func TestTaskEventsMakeTheirMemories(t *testing.T) {
	t.Parallel()
	secret := "gh" + "p_" + strings.Repeat("Zq9Xw8Vu7T", 4)[:36]
	created := capture.TaskEvent{Event: capture.TaskCreated, Task: "T-1", Session: "s1", Text: "Use " + secret + " then " + strings.Repeat("é", 600)}.Memories("shop")
	m := created.Event
	if m.Type != "task_input" || m.Key != "task:T-1:input" || m.Project != "shop" || m.TaskID != "T-1" || m.SessionID != "s1" {
		t.Errorf("created: %+v", m)
	}
	if strings.Contains(m.Content, secret) || !strings.HasSuffix(m.Content, "…") || len([]rune(m.Content)) != capture.MaxTaskInputRunes {
		t.Errorf("created content (%d characters): %q", len([]rune(m.Content)), m.Content)
	}
	done := capture.TaskEvent{Event: capture.TaskCompleted, Task: "T-1", Agent: "claude", Files: []string{"a.go"},
		Text: "Done. Always run the migrations before the tests.\nMEMORY:pitfall:The fixture clock is shared.\nMEMORY:nonsense"}.Memories("shop")
	if done.Event.Type != "task_result" || done.Event.Key != "task:T-1:result" || !strings.HasSuffix(done.Event.Content, "Files: a.go") {
		t.Errorf("completed: %+v", done.Event)
	}
	if len(done.Signals) != 1 || len(done.Problems) != 1 || len(done.Learned) != 1 || done.Learned[0].TaskID != "T-1" || done.Learned[0].Agent != "claude" {
		t.Errorf("completed: signals %+v problems %+v learned %+v", done.Signals, done.Problems, done.Learned)
	}
	issue := capture.TaskEvent{Event: capture.TaskFailed, Task: "T-2", Text: "timeout"}.Memories("shop").Event
	if issue.Type != "issue" || issue.Key != "" || issue.Content != "timeout" {
		t.Errorf("failed: %+v", issue)
	}
	ev := capture.TaskEvent{Event: capture.TaskFailed, Agent: "claude", Title: "Resume importer", Text: "lost the cursor"}
	if !ev.Learns() {
		t.Fatal("a failure with an agent and a title does not learn")
	}
	learned := ev.Memories("shop").Event
	if learned.Type != "error_solution" || learned.Key != capture.FailureKey("claude", "Resume importer") || learned.Project != "shop" || learned.Agent != "claude" {
		t.Errorf("failed, seed 002: %+v", learned)
	}
	if (capture.TaskEvent{Event: capture.TaskCreated, Agent: "claude", Title: "x"}).Learns() {
		t.Error("a created task learns")
	}
}
