package mcpserver_test

import (
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/mcpserver"
	"github.com/cairn-dev/cairn/wire"
)

func TestLookupToolsAnswerByFileErrorAndCommand(t *testing.T) {
	f := newFixture(t)
	cs := f.connect("proj")
	dec := remember(t, cs, map[string]any{"type": "decision", "content": "Tokens are compared in constant time", "files": []string{"auth/token.go"}})
	fix := remember(t, cs, map[string]any{"type": "fix", "title": "Fix for `go test ./auth/...` failure",
		"content": "**Problem:** FAIL: TestTokenCompare timing differs\n\n**Fix:** edited auth/token.go", "files": []string{"auth/token.go"}})
	remember(t, f.connect("other"), map[string]any{"type": "decision", "content": "Other project: tokens are hashed", "files": []string{"auth/token.go"}})

	file := ok[wire.Lookup](t, cs, "recall_file", map[string]any{"path": "auth/token.go"})
	if len(file.Items) != 2 || !strings.Contains(file.Text, dec.ID) || !strings.Contains(file.Text, fix.ID) {
		t.Errorf("recall_file answered %+v", file)
	}
	errOut := ok[wire.Lookup](t, cs, "recall_error", map[string]any{"error": "--- FAIL: TestTokenCompare (0.00s) timing differs"})
	if len(errOut.Items) == 0 || errOut.Items[0].ID != fix.ID || errOut.Items[0].Section != "fixes" {
		t.Errorf("recall_error answered %+v", errOut)
	}
	cmd := ok[wire.Lookup](t, cs, "recall_command", map[string]any{"command": "go test"})
	if len(cmd.Commands) != 1 || cmd.Commands[0].Line != "go test ./auth/..." {
		t.Errorf("recall_command answered %+v", cmd)
	}
	none := call(t, cs, "recall_error", map[string]any{"error": "kernel oops in usb driver"})
	if none.IsError || !strings.Contains(text(none), "nothing is known") {
		t.Errorf("an unknown error: %s", text(none))
	}
	// Bad inputs tried: an empty path, a limit out of range, a tiny budget.
	for tool, args := range map[string]map[string]any{
		"recall_file":    {"path": ""},
		"recall_error":   {"error": "boom", "limit": 500},
		"recall_command": {"command": "go", "budget": 3},
	} {
		if msg := toolErr(t, cs, tool, args); !strings.Contains(msg, "invalid input") {
			t.Errorf("%s %v: %s", tool, args, msg)
		}
	}
}

func TestSearchToolFiltersByAgent(t *testing.T) {
	f := newFixture(t)
	cs := f.connect("proj")
	mars := remember(t, cs, map[string]any{"content": "Mutations call requireAuth before the database", "agent": "mars"})
	remember(t, cs, map[string]any{"content": "Components read the database through hooks", "agent": "venus"})
	out := ok[mcpserver.SearchOut](t, cs, "search", map[string]any{"query": "database", "agent": "mars"})
	if len(out.Results) != 1 || out.Results[0].ID != mars.ID {
		t.Errorf("search by agent: %+v", out)
	}
	c := ok[mcpserver.ContextOut](t, cs, "context", map[string]any{"agent": "mars", "prompt": "wire the billing page"})
	if !strings.Contains(c.Block, "### mars Learned Patterns") {
		t.Errorf("context for an agent:\n%s", c.Block)
	}
}

func TestHatTransitionToolStoresArchitectureAndDecisions(t *testing.T) {
	f := newFixture(t)
	cs := f.connect("proj")
	out := ok[mcpserver.HatTransitionOut](t, cs, "hat_transition", map[string]any{"transition": "explorer:planner",
		"output": "- Orders are stored in PostgreSQL through the store package.\n- The web client depends on react-query v5.2.0."})
	if len(out.Stored) != 2 || out.Stored[0].Type != "architecture" || out.Stored[1].Type != "dependency" {
		t.Errorf("explorer:planner: %+v", out)
	}
	m, err := f.eng.FindMemoryByID(t.Context(), out.Stored[0].ID)
	if err != nil || m.Hat != "explorer" || m.Source != "automatic" {
		t.Errorf("stored: %+v %v", m, err)
	}
	if msg := toolErr(t, cs, "hat_transition", map[string]any{"transition": "critic:editor", "output": "x"}); !strings.Contains(msg, "planner:creator") {
		t.Errorf("unknown transition: %s", msg)
	}
}

func TestContextToolGivesTheMemoryIndexWhenAsked(t *testing.T) {
	f := newFixture(t)
	cs := f.connect("proj")
	remember(t, cs, map[string]any{"type": "decision", "content": "Chose dayjs over moment.js for bundle size"})
	c := ok[mcpserver.ContextOut](t, cs, "context", map[string]any{"prompt": "dates", "index": true})
	if !strings.Contains(c.Block, "### Memory Index") || !strings.Contains(c.Block, "├── decision (1)") {
		t.Errorf("context with index:\n%s", c.Block)
	}
}
