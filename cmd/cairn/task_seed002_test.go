package main

import (
	"slices"
	"strings"
	"testing"
)

func TestTaskFailedAndCompletedLearnAsSeed002(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	r := c.ok("task", "failed", "--agent", "MARS", "--title", "Add company mutations", "TypeError: ctx.auth is undefined in createCompany "+strings.Repeat("x", 300))
	id := strings.Fields(r.stdout)[0]
	mem := c.show(id)
	if mem["type"] != "error_solution" || mem["key"] != "MARS: Add company mutations" || mem["confidence"] != 0.7 || mem["created_by_agent"] != "MARS" {
		t.Errorf("failure memory: %v", mem)
	}
	content, _ := mem["content"].(string)
	if !strings.HasPrefix(content, "Failed with: TypeError: ctx.auth is undefined") || len([]rune(content)) != len("Failed with: ")+200 {
		t.Errorf("content (%d runes): %q", len([]rune(content)), content)
	}
	// The same agent failing the same task again updates that memory.
	r = c.ok("task", "failed", "--agent", "MARS", "--title", "Add company mutations", "ConvexError: missing companyId")
	if again := strings.Fields(r.stdout); again[0] != id || again[1] != "updated" {
		t.Errorf("second failure: %s", r.stdout)
	}

	r = c.ok("task", "completed", "--agent", "PLUTO", "--title", "Schema for companies",
		"Added the companies table. All tables include companyId for row-level isolation. Every index name is prefixed with by_. Tests pass.")
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	if len(lines) != 3 || !strings.HasSuffix(lines[0], "task_result") || !strings.HasSuffix(lines[1], "pattern") || !strings.HasSuffix(lines[2], "convention") {
		t.Fatalf("completed: %s", r.stdout)
	}
	p := c.show(strings.Fields(lines[1])[0])
	if p["content"] != "All tables include companyId for row-level isolation." || p["created_by_agent"] != "PLUTO" {
		t.Errorf("pattern: %v", p)
	}
	if got := c.ok("context", "--agent", "PLUTO", "--dry-run").stdout; !strings.Contains(got, "### PLUTO Learned Patterns") || !strings.Contains(got, "companyId") {
		t.Errorf("the learned pattern is not in PLUTO's context:\n%s", got)
	}
	// Bad inputs tried: no --task and no --title; --title without --agent.
	for _, args := range [][]string{{"task", "failed", "--agent", "MARS", "boom"}, {"task", "failed", "--title", "x", "boom"}} {
		if r := c.run("", args...); r.code != exitUsage {
			t.Errorf("%v: %v", args, r)
		}
	}
}

func TestCaptureAtAHatTransition(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	r := c.run("Plan:\n1. We will use sqlc for the queries instead of an ORM.\n2. The migration must not lock the orders table.\nMEMORY:pitfall:the orders table is huge\n",
		"capture", "--hat-transition", "planner:creator", "--json")
	if r.code != 0 {
		t.Fatal(r)
	}
	var types []string
	for _, id := range c.listIDs() {
		m := c.show(id)
		types = append(types, m["type"].(string))
		if m["type"] != "pitfall" && m["created_by_hat"] != "planner" {
			t.Errorf("hat of %v", m)
		}
	}
	slices.Sort(types)
	if !slices.Equal(types, []string{"constraint", "decision", "pitfall"}) {
		t.Errorf("stored types %v", types)
	}
	if r := c.run("x", "capture", "--hat-transition", "creator:critic"); r.code != exitUsage {
		t.Errorf("unknown transition: %v", r)
	}
}
