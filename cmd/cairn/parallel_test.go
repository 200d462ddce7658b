package main

import (
	"strings"
	"testing"
)

// Two agent sessions of one project, through the hooks: what session
// agent-b stores while the Claude Code session works is added to that
// session's next prompt, even a prompt nothing else is relevant to, and
// only once. The clock moves between steps (a frozen clock has no
// "since").
func TestPromptHookAddsWhatAnotherSessionWroteSinceThePreviousContext(t *testing.T) {
	t.Parallel()
	c := newHookCLI(t)
	if r := c.hook(c.payload("session-start-startup.json"), "session-start"); r.code != 0 || r.stdout == "" {
		t.Fatalf("session start: %v", r)
	}
	c.env["CAIRN_NOW"] = "2026-11-01T00:05:00Z"
	id := strings.TrimSpace(c.ok("add", "--session", "agent-b", "--type", "pitfall",
		"The token cache must be flushed after a key rotation.").stdout)
	c.env["CAIRN_NOW"] = "2026-11-01T00:10:00Z"
	r := c.hook(c.payload("user-prompt-submit-irrelevant.json"), "user-prompt-submit")
	if !strings.Contains(r.stdout, "New from Parallel Work") || !strings.Contains(r.stdout, id) {
		t.Fatalf("the prompt after agent-b's write: %v", r)
	}
	c.env["CAIRN_NOW"] = "2026-11-01T00:15:00Z"
	if r := c.hook(c.payload("user-prompt-submit-irrelevant.json"), "user-prompt-submit"); r.stdout != "" {
		t.Errorf("the next irrelevant prompt shows something again: %v", r)
	}
	// The CLI's context for another session, b's own, shows no parallel
	// work of its own writing.
	if r := c.ok("context", "--session", "agent-b", "--prompt", "token cache"); strings.Contains(r.stdout, "Parallel Work") {
		t.Errorf("agent-b's context shows its own memory as parallel work: %s", r.stdout)
	}
}
