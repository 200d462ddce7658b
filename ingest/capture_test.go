package ingest_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/engine"
	"github.com/cairn-dev/cairn/ingest"
)

// claudeLines writes a small Claude Code transcript: a request, then a
// deploy script that fails with a tar error, an upload, and the script
// passing. at dates its first line.
func claudeLines(t *testing.T, session string, at time.Time, fix string) string {
	t.Helper()
	var out []string
	n := 0
	add := func(typ string, content any) {
		n++
		b, err := json.Marshal(map[string]any{"type": typ, "sessionId": session, "cwd": "/home/bo/gw", "uuid": fmt.Sprintf("%s-%d", session, n),
			"timestamp": at.Add(time.Duration(n) * time.Minute).Format(time.RFC3339), "message": map[string]any{"role": typ, "content": content}})
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, string(b))
	}
	tool := func(id, cmd, result string, failed bool) {
		add("assistant", []any{map[string]any{"type": "tool_use", "id": id, "name": "Bash", "input": map[string]any{"command": cmd}}})
		add("user", []any{map[string]any{"type": "tool_result", "tool_use_id": id, "content": result, "is_error": failed}})
	}
	add("user", "the deploy of the gateway tools fails again, please fix it")
	tool(session+"-1", "./scripts/deploy tools", "Exit code 2\ntar: /tmp/tools.tar.gz: Cannot open: No such file or directory\ntar: Error is not recoverable: exiting now", true)
	tool(session+"-2", fix, "", false)
	tool(session+"-3", "./scripts/deploy tools", "deployed", false)
	return strings.Join(out, "\n") + "\n"
}

// The same error fixed in two sessions is one memory whose count grows;
// the second session, where it came back, asks the agent once; memories
// read later keep their session's dates (and expire from them).
func TestAnErrorMetInTwoSessionsIsOneMemoryAndTheAskIsOnce(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	eng := openEngine(t, &engine.Options{Now: func() time.Time { return now }})
	dir := t.TempDir()
	first := filepath.Join(dir, "s1.jsonl")
	second := filepath.Join(dir, "s2.jsonl")
	jan2 := time.Date(2026, 1, 2, 10, 0, 0, 0, time.UTC)
	if err := os.WriteFile(first, []byte(claudeLines(t, "s1", jan2, "scp build/tools.tar.gz gw:/tmp/")), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(second, []byte(claudeLines(t, "s2", time.Date(2026, 1, 6, 10, 0, 0, 0, time.UTC), "make tools-package")), 0o644); err != nil {
		t.Fatal(err)
	}
	opts := ingest.Options{Kind: ingest.Claude, Project: "gw", Ask: true}
	r1, err := ingest.File(t.Context(), eng, first, opts)
	if err != nil {
		t.Fatal(err)
	}
	if r1.Ask != "a command failed and then passed" {
		t.Errorf("first session: ask %q", r1.Ask)
	}
	r2, err := ingest.File(t.Context(), eng, second, opts)
	if err != nil {
		t.Fatal(err)
	}
	if r2.Ask != "an error came back that an earlier session had met, and a command failed and then passed" {
		t.Errorf("second session: ask %q", r2.Ask)
	}
	fixes, _, err := eng.FindMemories(t.Context(), cairn.MemoryFilter{Project: "gw", Types: []string{"fix"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(fixes) != 1 {
		t.Fatalf("%d fix memories, want 1", len(fixes))
	}
	f := fixes[0]
	if !strings.Contains(f.Content, "**Fix:** ran `make tools-package`") || !strings.Contains(f.Content, "**Fixed before:** ran `scp build/tools.tar.gz gw:/tmp/`") ||
		!strings.Contains(f.Content, "**Seen:** in 2 sessions, first 2026-01-02, last 2026-01-06") || !f.CreatedAt.Equal(jan2.Add(7*time.Minute)) {
		t.Errorf("fix created %v:\n%s", f.CreatedAt, f.Content)
	}
	// The transcript grows: the ask is not repeated.
	more := claudeLines(t, "s2", time.Date(2026, 1, 6, 11, 0, 0, 0, time.UTC), "make tools-package")
	fh, err := os.OpenFile(second, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	fh.WriteString(more)
	fh.Close()
	if r3, err := ingest.File(t.Context(), eng, second, opts); err != nil || r3.Ask != "" {
		t.Errorf("asked twice in a session: %q %v", r3.Ask, err)
	}
	// The summary of the January session was written in March: it keeps
	// January's date and expired 30 days after it.
	sums, _, err := eng.FindMemories(t.Context(), cairn.MemoryFilter{Project: "gw", Types: []string{"session"}, Session: "s1"})
	if err != nil || len(sums) != 1 {
		t.Fatalf("summaries %v %v", sums, err)
	}
	if s := sums[0]; !s.CreatedAt.Equal(jan2.Add(time.Minute)) || !s.ExpiresAt.Equal(s.CreatedAt.Add(30*24*time.Hour)) {
		t.Errorf("summary created %v, expires %v", s.CreatedAt, s.ExpiresAt)
	}
}

// Two sessions that asked the same thing get titles that differ: the
// later one is dated.
func TestTwoSessionsWithTheSameRequestHaveDifferentTitles(t *testing.T) {
	t.Parallel()
	eng := openEngine(t, &engine.Options{Now: func() time.Time { return time.Date(2026, 1, 20, 0, 0, 0, 0, time.UTC) }})
	dir := t.TempDir()
	var titles []string
	for i, day := range []int{6, 9} {
		p := filepath.Join(dir, fmt.Sprintf("s%d.jsonl", i))
		if err := os.WriteFile(p, []byte(claudeLines(t, fmt.Sprintf("same-%d", i), time.Date(2026, 1, day, 10, 0, 0, 0, time.UTC), "make pkg")), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := ingest.File(t.Context(), eng, p, ingest.Options{Kind: ingest.Claude, Project: "gw"}); err != nil {
			t.Fatal(err)
		}
		// The session goes on: its summary keeps the title it had.
		more := claudeLines(t, fmt.Sprintf("same-%d", i), time.Date(2026, 1, day, 12, 0, 0, 0, time.UTC), "make pkg")
		f, err := os.OpenFile(p, os.O_APPEND|os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		f.WriteString(more)
		f.Close()
		if _, err := ingest.File(t.Context(), eng, p, ingest.Options{Kind: ingest.Claude, Project: "gw"}); err != nil {
			t.Fatal(err)
		}
	}
	sums, _, err := eng.FindMemories(t.Context(), cairn.MemoryFilter{Project: "gw", Types: []string{"session"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range sums {
		titles = append(titles, s.Title)
	}
	if len(titles) != 2 || titles[0] == titles[1] || !strings.HasSuffix(titles[0], "(2026-01-09 10:01)") && !strings.HasSuffix(titles[1], "(2026-01-09 10:01)") {
		t.Errorf("titles %q", titles)
	}
}

// A capture after a tool call may read every line of the transcript
// before the Stop hook does (the agent's last message not written yet):
// the Stop hook's capture, with nothing left to read, still asks once,
// from the state the earlier capture left; then never again.
func TestTheAskComesAtStopWhenAnEarlierCaptureReadEveryLine(t *testing.T) {
	t.Parallel()
	eng := openEngine(t, nil)
	path := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(path, []byte(claudeLines(t, "s", time.Date(2026, 1, 2, 10, 0, 0, 0, time.UTC), "make tools-package")), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := ingest.File(t.Context(), eng, path, ingest.Options{Kind: ingest.Claude, Project: "gw"})
	if err != nil || r.Ask != "" {
		t.Fatalf("the capture after a tool call: %+v %v", r, err)
	}
	stop := ingest.Options{Kind: ingest.Claude, Project: "gw", Ask: true}
	r, err = ingest.File(t.Context(), eng, path, stop)
	if err != nil || !r.Unchanged || r.Ask != "a command failed and then passed" {
		t.Fatalf("the Stop with nothing new to read: unchanged %v, ask %q, %v", r.Unchanged, r.Ask, err)
	}
	if r, err := ingest.File(t.Context(), eng, path, stop); err != nil || r.Ask != "" {
		t.Errorf("asked twice: %q %v", r.Ask, err)
	}
}
