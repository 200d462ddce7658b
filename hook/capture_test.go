package hook_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/engine"
	"github.com/cairn-dev/cairn/hook"
	"github.com/cairn-dev/cairn/sqlite"
)

// Capture at Stop reads the transcript's new lines and the last
// message's signals; run again it stores nothing twice. Bad inputs
// tried: a transcript not written yet (nothing to read), an agent whose
// transcripts cairn does not read, a transcript path under ~/.
func TestCaptureReadsTheTranscriptOnceAndTheLastMessage(t *testing.T) {
	t.Parallel()
	st, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "c.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	eng := engine.New(st, &engine.Options{Now: func() time.Time { return time.Date(2026, 5, 2, 0, 0, 0, 0, time.UTC) }}).WithProject("shop")
	home := t.TempDir()
	data, err := os.ReadFile("../transcript/testdata/session.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "s.jsonl"), data, 0o644); err != nil {
		t.Fatal(err)
	}
	p := &hook.Payload{SessionID: "s-1", TranscriptPath: "~/s.jsonl",
		LastAssistantMessage: "Done.\nMEMORY:pitfall:The Stop hook may run before the transcript has the message."}
	opts := hook.CaptureOptions{Project: "shop", Agent: "claude", Home: home}
	if !hook.HasCapture(hook.Stop, p, opts) {
		t.Fatal("HasCapture: false for a transcript and a signal")
	}
	count := func() int {
		_, n, err := eng.FindMemories(t.Context(), cairn.MemoryFilter{Project: "shop"})
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	if _, err := hook.Capture(t.Context(), eng, hook.Stop, p, opts); err != nil {
		t.Fatal(err)
	}
	n := count()
	if n < 2 {
		t.Fatalf("%d memories after the capture, want the transcript's and the message's", n)
	}
	mems, _, _ := eng.FindMemories(t.Context(), cairn.MemoryFilter{Project: "shop", Types: []string{"pitfall"}})
	found := false
	for _, m := range mems {
		found = found || strings.HasPrefix(m.Content, "The Stop hook may run") && m.Agent == "claude" && m.SessionID == "s-1"
	}
	if !found {
		t.Errorf("the last message's signal is not stored with its agent and session: %+v", mems)
	}
	if _, err := hook.Capture(t.Context(), eng, hook.Stop, p, opts); err != nil || count() != n {
		t.Errorf("a second capture: %v, %d memories (was %d)", err, count(), n)
	}
	missing := &hook.Payload{SessionID: "s-2", TranscriptPath: filepath.Join(home, "not-yet.jsonl")}
	if hook.HasCapture(hook.SessionEnd, missing, opts) {
		t.Error("HasCapture: true for a transcript not written yet")
	}
	if _, err := hook.Capture(t.Context(), eng, hook.SessionEnd, missing, opts); err != nil {
		t.Errorf("a transcript not written yet: %v", err)
	}
	other := hook.CaptureOptions{Project: "shop", Agent: "cursor", Home: home}
	if hook.HasCapture(hook.SessionEnd, &hook.Payload{TranscriptPath: "~/s.jsonl"}, other) {
		t.Error("HasCapture: true for another agent's transcript")
	}
}

// A PostToolUse payload passes a gate when its Bash command is a test,
// build or lint command whose result is not a failure: an error flag, or
// a failure in its output, is not; nor is another command or tool.
func TestPassedGateIsATestBuildOrLintCommandThatPassed(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		tool, input, response string
		want                  bool
	}{
		{"Bash", `{"command":"go test ./..."}`, `{"stdout":"ok  \tx\t0.1s","stderr":""}`, true},
		{"Bash", `{"command":"go test ./..."}`, `{"stdout":"--- FAIL: TestX\nFAIL","stderr":""}`, false},
		{"Bash", `{"command":"npm run lint"}`, `{"stdout":"","stderr":"","is_error":true}`, false},
		{"Bash", `{"command":"ls -la"}`, `{"stdout":"a b","stderr":""}`, false},
		{"Edit", `{"file_path":"a.go"}`, `"done"`, false},
	} {
		p := &hook.Payload{ToolName: c.tool, ToolInput: json.RawMessage(c.input), ToolResponse: json.RawMessage(c.response)}
		if got := p.PassedGate(); got != c.want {
			t.Errorf("%s %s → %s: PassedGate = %v, want %v", c.tool, c.input, c.response, got, c.want)
		}
	}
}
