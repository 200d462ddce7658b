package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestAKeywordInAPromptSetsTheNextSessionsDynamicCount(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	for i := range 12 {
		c.ok("add", "--type", "session", "--title", fmt.Sprintf("Session %02d", i), fmt.Sprintf("worked on part %d of the importer", i))
	}
	cwd := filepath.Join(t.TempDir(), c.project)
	if err := os.Mkdir(cwd, 0o755); err != nil {
		t.Fatal(err)
	}
	calls := 0
	hookRun := func(event, name, prompt string) string {
		calls++
		b, _ := json.Marshal(map[string]any{"session_id": fmt.Sprintf("s-%d", calls), "transcript_path": "/nonexistent.jsonl", "cwd": cwd,
			"hook_event_name": name, "prompt": prompt, "source": "startup"})
		r := c.raw(string(b), "--db", c.db, "hook", "claude", event)
		if r.code != 0 {
			t.Fatal(r)
		}
		return r.stdout
	}
	sessions := func(out string) int { return strings.Count(out, "Session ") }
	if n := sessions(hookRun("session-start", "SessionStart", "")); n != 3 {
		t.Fatalf("default: %d sessions, want 3", n)
	}
	hookRun("user-prompt-submit", "UserPromptSubmit", "next time give me the full history please")
	// Ten asked for; the session-start budget may hold fewer.
	if n := sessions(hookRun("session-start", "SessionStart", "")); n <= 5 {
		t.Errorf("after \"full history\": %d sessions, want up to 10", n)
	}
	// Applied once: the session after is back to the default.
	if n := sessions(hookRun("session-start", "SessionStart", "")); n != 3 {
		t.Errorf("the override stayed: %d sessions", n)
	}
}

func TestContextIndexShowsTheConversationMonthsBothWays(t *testing.T) {
	t.Parallel()
	c, _ := startServe(t)
	c.env["CAIRN_NOW"] = "2026-02-04T10:00:00Z"
	c.ok("converse", "add", "--role", "user", "Shall we use dayjs?")
	served, local := c.bothWays("", "context", "--index", "--dry-run")
	if served.stdout != local.stdout || !strings.Contains(served.stdout, "└── conversations/ (1 month)\n    └ 2026-02\n") ||
		!strings.Contains(served.stdout, "(empty: ") {
		t.Errorf("context --index:\n%s\n%s", served, local)
	}
}
