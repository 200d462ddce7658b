package main

// Tests of promote through Main.Run.
//
// Bad inputs tried here: no target, --scope project, no id, a missing id.

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

func TestPromoteLearningToPatternStopsItsExpiry(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	id := c.add("--now", day0, "--type", "learning", "Hooks must not write to stderr")
	if exp := c.show(id)["expires_at"]; exp != "2026-11-30T10:00:00Z" {
		t.Fatalf("a learning expires %v, want 90 days after day0", exp)
	}
	r := c.ok("promote", "--now", day0, id, "--type", "pattern")
	if want := "promoted " + id + ": type learning → pattern, no longer expires\n"; r.stdout != want {
		t.Errorf("promote said %q, want %q", r.stdout, want)
	}
	m := c.show(id)
	if _, ok := m["expires_at"]; ok || m["type"] != "pattern" {
		t.Errorf("after promotion: %v", m)
	}
	// 100 days later cleanup keeps it.
	if r := c.ok("cleanup", "--apply", "--now", "2026-12-10T10:00:00Z"); strings.Contains(r.stdout, "expired") {
		t.Errorf("cleanup expired a promoted memory:\n%s", r.stdout)
	}
	if r := c.ok("promote", "--now", day0, id, "--type", "pattern"); !strings.Contains(r.stdout, "nothing changed") {
		t.Errorf("promoting again: %q", r.stdout)
	}
	if r := c.ok("log", "--action", "promoted", "--json"); !strings.Contains(r.stdout, `"detail": "type learning → pattern, no longer expires"`) {
		t.Errorf("log of the promotion:\n%s", r.stdout)
	}
}

func TestPromoteToGlobalScopeSharesWithEveryProject(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	id := c.add("--now", day0, "Prefers table-driven tests")
	r := c.ok("promote", "--now", day0, "--scope", "global", "--json", id)
	var m map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &m); err != nil || m["scope"] != "global" || m["id"] != id {
		t.Fatalf("promote --json: %v %v", err, r)
	}
	other := *c
	other.project = "another"
	if got := other.listIDs(); !slices.Equal(got, []string{id}) {
		t.Errorf("another project lists %v, want the global %s", got, id)
	}
}

func TestPromoteMistakes(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	id := c.add("--now", day0, "a note")
	for _, args := range [][]string{
		{"promote", id},
		{"promote", id, "--scope", "project"},
		{"promote", "--type", "pattern"},
		{"promote", id, id, "--type", "pattern"},
	} {
		r := c.run("", args...)
		if r.code != 2 {
			t.Errorf("%q: want exit 2, got %v", args, r)
		}
		oneErrorLine(t, r)
	}
	r := c.run("", "promote", "mem-0000000000000000", "--type", "pattern")
	if r.code != 1 {
		t.Errorf("promote of a missing id: %v", r)
	}
	oneErrorLine(t, r)
	if r := c.run("", "promote", id, "--type", "Not A Type"); r.code != 2 {
		t.Errorf("promote to a bad type: %v", r)
	}
}
