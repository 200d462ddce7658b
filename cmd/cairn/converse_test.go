package main

// Tests of converse through Main.Run.
//
// Bad inputs tried here: no action, an unknown role, --every 0, an empty
// message, a malformed line in the month file (skipped with a warning).

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/conversation"
	"github.com/cairn-dev/cairn/extract/extracttest"
)

func TestConverseExtractsEveryNMessages(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	now := "2026-02-04T10:00:00Z"
	say := func(role, text string) result {
		t.Helper()
		return c.ok("--now", now, "converse", "add", "--role", role, "--sender", "Alice", "--chat", "chat-1", text)
	}
	say("user", "Please fix the timezone bug in settings.")
	say("assistant", "MEMORY:decision:Use dayjs over moment for bundle size.")
	say("user", "<learning category=\"pitfall\">Settings page caches the locale.</learning>")
	r := say("assistant", "Working on it.")
	if !strings.Contains(r.stdout, "4 pending") || c.total() != 0 {
		t.Fatalf("the 4th message extracted: %v (total %d)", r, c.total())
	}
	r = say("user", "Thanks!")
	if !strings.Contains(r.stdout, "extracted 5 messages") || !strings.Contains(r.stdout, "2 memories (2 new") {
		t.Fatalf("the 5th message did not extract: %v", r)
	}
	if got := c.total(); got != 2 {
		t.Fatalf("want 2 memories, got %d", got)
	}
	for _, m := range c.listJSON() {
		if m["created_by_session_id"] != "chat-1" || m["project"] != "proj" {
			t.Errorf("memory provenance: %v", m)
		}
	}
	l := &conversation.Log{Dir: filepath.Dir(c.db), Project: c.project}
	st, err := l.ReadState()
	if err != nil || st["2026-02"].ExtractedUpTo != 5 || st["2026-02"].ChatID != "chat-1" || st["2026-02"].ProjectPath != "proj" {
		t.Fatalf("state = %v, %v", st, err)
	}
	b, err := l.Read("2026-02", 0)
	if err != nil || len(b.Messages) != 5 || b.Messages[0].Timestamp.Format("2006-01-02T15:04:05Z07:00") != now || b.Messages[0].SenderName != "Alice" {
		t.Fatalf("log = %+v, %v", b, err)
	}

	// The next message starts a new batch: nothing new is extracted.
	r = say("assistant", "MEMORY:decision:Use dayjs over moment for bundle size.")
	if !strings.Contains(r.stdout, "1 pending") || c.total() != 2 {
		t.Fatalf("after extraction: %v (total %d)", r, c.total())
	}
	// --every 1 extracts at once; a repeated signal reinforces.
	r = c.ok("--now", now, "converse", "add", "--role", "user", "--every", "1", "ok")
	if !strings.Contains(r.stdout, "extracted 2 messages") || !strings.Contains(r.stdout, "1 reinforced") || c.total() != 2 {
		t.Fatalf("--every 1: %v", r)
	}
	// Another month gets its own file and state.
	r = c.ok("--now", "2026-03-01T00:00:00Z", "converse", "add", "--role", "user", "March")
	if !strings.Contains(r.stdout, "conversations/proj/2026-03.jsonl; 1 pending") {
		t.Fatalf("March: %v", r)
	}
}

func TestConverseFromStdinAndMalformedLines(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	r := c.run("MEMORY:convention:Errors start lowercase.\n", "--now", "2026-02-04T10:00:00Z", "converse", "add", "--role", "assistant", "--every", "2", "-")
	if r.code != 0 || !strings.Contains(r.stdout, "1 pending") {
		t.Fatalf("%v", r)
	}
	month := filepath.Join(filepath.Dir(c.db), "conversations", "proj", "2026-02.jsonl")
	f, err := os.OpenFile(month, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("{broken\n")
	f.Close()
	r = c.ok("--now", "2026-02-04T10:01:00Z", "converse", "add", "--role", "user", "--every", "2", "fine")
	if !strings.Contains(r.stderr, "line 2") || !strings.Contains(r.stdout, "extracted 2 messages") || c.total() != 1 {
		t.Fatalf("malformed line: %v", r)
	}
	l := &conversation.Log{Dir: filepath.Dir(c.db), Project: c.project}
	if st, _ := l.ReadState(); st["2026-02"].ExtractedUpTo != 3 {
		t.Errorf("extractedUpTo = %d, want 3 (the malformed line counts)", st["2026-02"].ExtractedUpTo)
	}
}

// TestConverseLogsAreKeptPerProject tries to extract one project's chat
// into another project: each project appends to, and extracts from, its
// own log only.
func TestConverseLogsAreKeptPerProject(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	const now = "2026-02-04T10:00:00Z"
	c.project = "alpha"
	c.ok("--now", now, "converse", "add", "--role", "assistant", "MEMORY:decision:Alpha keeps its tokens in the vault.")
	c.project = "beta"
	for range 4 {
		c.ok("--now", now, "converse", "add", "--role", "user", "hello")
	}
	if n := c.total(); n != 0 {
		t.Errorf("beta extracted %d memories from alpha's chat", n)
	}
	c.project = "alpha"
	if n := c.total(); n != 0 {
		t.Errorf("alpha extracted %d memories before its fifth message", n)
	}
	for _, p := range []string{"alpha", "beta"} {
		l := &conversation.Log{Dir: filepath.Dir(c.db), Project: p}
		b, err := l.PendingBatch("2026-02")
		if err != nil {
			t.Fatal(err)
		}
		if want := map[string]int{"alpha": 1, "beta": 4}[p]; len(b.Messages) != want {
			t.Errorf("%s's log holds %d pending messages, want %d", p, len(b.Messages), want)
		}
	}
}

// TestConverseAdoptsTheEarlierSingleLogByProject writes a log in the
// earlier layout (one folder for the data folder, the state naming the
// project of each month) and checks that each project takes its own
// months, pending messages included, and leaves the others'.
func TestConverseAdoptsTheEarlierSingleLogByProject(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	dir := filepath.Join(filepath.Dir(c.db), "conversations")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	line := func(text string) string {
		return `{"role":"assistant","content":"` + text + `","timestamp":"2026-01-10T10:00:00.000Z"}` + "\n"
	}
	writeConfigFile(t, filepath.Join(dir, "2026-01.jsonl"), line("MEMORY:decision:Alpha ships on Fridays.")+line("done"))
	writeConfigFile(t, filepath.Join(dir, "2025-12.jsonl"), line("MEMORY:decision:Beta ships on Mondays."))
	writeConfigFile(t, filepath.Join(dir, "_state.json"), `{"2026-01": {"extractedUpTo": 1, "projectPath": "alpha"}, "2025-12": {"projectPath": "beta"}}`)
	c.project = "alpha"
	c.ok("--now", "2026-01-10T11:00:00Z", "converse", "add", "--role", "user", "--every", "2", "thanks")
	if n := c.total(); n != 0 {
		t.Errorf("alpha stored %d memories; the signal was extracted before", n)
	}
	l := &conversation.Log{Dir: filepath.Dir(c.db), Project: "alpha"}
	if st, _ := l.ReadState(); st["2026-01"].ExtractedUpTo != 3 {
		t.Errorf("alpha's January: extractedUpTo %d, want 3", st["2026-01"].ExtractedUpTo)
	}
	if _, err := os.Stat(filepath.Join(dir, "2026-01.jsonl")); !os.IsNotExist(err) {
		t.Errorf("alpha's January is still in the earlier folder: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "2025-12.jsonl")); err != nil {
		t.Errorf("beta's December left the earlier folder: %v", err)
	}
	c.project = "beta"
	c.ok("--now", "2025-12-10T11:00:00Z", "converse", "add", "--role", "user", "--every", "2", "thanks")
	if n := c.total(); n != 1 {
		t.Errorf("beta stored %d memories from its adopted December, want 1", n)
	}
}

func TestConverseUsageErrors(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	for _, args := range [][]string{
		{"converse"},
		{"converse", "say", "--role", "user", "x"},
		{"converse", "add", "--role", "bot", "x"},
		{"converse", "add", "x"},
		{"converse", "add", "--role", "user", "--every", "0", "x"},
		{"converse", "add", "--role", "user"},
		{"converse", "add", "--role", "user", "  "},
	} {
		r := c.run("", args...)
		if r.code != exitUsage {
			t.Errorf("want exit 2, got %v", r)
		}
		oneErrorLine(t, r)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(c.db), "conversations")); !os.IsNotExist(err) {
		t.Errorf("usage errors created the conversation log: %v", err)
	}
}

func (c *cli) useModel(ms *extracttest.Server) {
	c.env["CAIRN_MODEL_BASE_URL"] = ms.URL() + "/v1"
	c.env["CAIRN_MODEL"] = "test-model"
}

func TestConverseModelExtraction(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	ms := extracttest.NewServer(t, filepath.Join("..", "..", "extract", "testdata"), 200, "good.json")
	c.useModel(ms)
	now := "2026-02-04T10:00:00Z"
	c.ok("--now", now, "converse", "add", "--role", "user", "--every", "2", "We keep SQLite in WAL mode.")
	r := c.ok("--now", now, "converse", "add", "--role", "assistant", "--every", "2", "MEMORY:decision:Use dayjs over moment for bundle size.")
	if ms.Hits() != 1 || !strings.Contains(r.stdout, "extracted 2 messages") || !strings.Contains(r.stdout, "4 memories (4 new") {
		t.Fatalf("hits %d: %v", ms.Hits(), r)
	}
	if !strings.Contains(string(ms.Bodies()[0]), `user: We keep SQLite in WAL mode.\nassistant: MEMORY:decision:`) {
		t.Errorf("request body: %s", string(ms.Bodies()[0]))
	}
	extracted := 0
	for _, m := range c.listJSON() {
		if m["source"] == "extracted" {
			extracted++
			if m["created_by_session_id"] != nil && m["created_by_session_id"] != "" {
				t.Errorf("session: %v", m)
			}
		}
	}
	if extracted != 3 {
		t.Errorf("want 3 extracted memories, got %d: %v", extracted, c.listJSON())
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(c.db), "model-budget.json")); err != nil {
		t.Errorf("budget file: %v", err)
	}
}

func TestConverseModelFailureKeepsPending(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	ms := extracttest.NewServer(t, filepath.Join("..", "..", "extract", "testdata"), 500, "error_500.json")
	c.useModel(ms)
	now := "2026-02-04T10:00:00Z"
	r := c.ok("--now", now, "converse", "add", "--role", "user", "--every", "1", "We keep SQLite in WAL mode.")
	if !strings.Contains(r.stderr, "cairn: model extraction failed:") || !strings.Contains(r.stderr, "retried next time") ||
		!strings.Contains(r.stdout, "1 pending") || c.total() != 0 {
		t.Fatalf("500: %v (total %d)", r, c.total())
	}
	l := &conversation.Log{Dir: filepath.Dir(c.db), Project: c.project}
	if st, _ := l.ReadState(); st["2026-02"].ExtractedUpTo != 0 {
		t.Fatalf("marked extracted after a failure: %v", st)
	}
	ms.Set(200, "good.json")
	r = c.ok("--now", now, "converse", "add", "--role", "user", "--every", "1", "ok")
	if ms.Hits() != 2 || !strings.Contains(r.stdout, "extracted 2 messages") || c.total() != 3 || r.stderr != "" {
		t.Fatalf("retry: hits %d: %v (total %d)", ms.Hits(), r, c.total())
	}
	if !strings.Contains(string(ms.Bodies()[1]), `user: We keep SQLite in WAL mode.\nuser: ok\n`) {
		t.Errorf("retry body: %s", string(ms.Bodies()[1]))
	}
	if st, _ := l.ReadState(); st["2026-02"].ExtractedUpTo != 2 {
		t.Fatalf("state after retry: %v", st)
	}
}

func TestConverseModelBudgetReached(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	ms := extracttest.NewServer(t, filepath.Join("..", "..", "extract", "testdata"), 200, "good.json")
	c.useModel(ms)
	c.env["CAIRN_MODEL_MAX_CALLS"] = "1"
	now := "2026-02-04T10:00:00Z"
	c.ok("--now", now, "converse", "add", "--role", "user", "--every", "1", "first")
	// The capture signal is still stored; the model is not called.
	r := c.ok("--now", now, "converse", "add", "--role", "assistant", "--every", "1", "MEMORY:convention:Errors start lowercase.")
	if ms.Hits() != 1 || !strings.Contains(r.stderr, "model extraction failed") || !strings.Contains(r.stderr, "CAIRN_MODEL_MAX_CALLS") ||
		!strings.Contains(r.stdout, "1 pending") || c.total() != 4 {
		t.Fatalf("budget: hits %d: %v (total %d)", ms.Hits(), r, c.total())
	}
	l := &conversation.Log{Dir: filepath.Dir(c.db), Project: c.project}
	if st, _ := l.ReadState(); st["2026-02"].ExtractedUpTo != 1 {
		t.Fatalf("state: %v", st)
	}
	// The next UTC day has a fresh budget: the pending message is extracted.
	r = c.ok("--now", "2026-02-05T10:00:00Z", "converse", "add", "--role", "user", "--every", "1", "next day")
	if ms.Hits() != 2 || !strings.Contains(r.stdout, "extracted 2 messages") {
		t.Fatalf("next day: hits %d: %v", ms.Hits(), r)
	}
}
