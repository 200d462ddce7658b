package main

// Tests of log through Main.Run.
//
// Bad inputs tried here: an unknown action, a negative limit, an argument,
// a bad time, a database that does not exist yet.

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

func splitLines(s string) []string {
	s = strings.TrimSuffix(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// logJSON returns the actions and memory ids log --json prints.
func (c *cli) logJSON(args ...string) []map[string]any {
	c.t.Helper()
	r := c.ok(append([]string{"log", "--json"}, args...)...)
	var out []map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &out); err != nil {
		c.t.Fatalf("log --json is not a JSON array: %v\n%v", err, r)
	}
	return out
}

func actionsOfLog(entries []map[string]any) []string {
	out := []string{}
	for _, e := range entries {
		out = append(out, e["action"].(string))
	}
	return out
}

func TestLogShowsEveryWriteNewestFirstWithFilters(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	a := c.add("--now", "2026-09-01T10:00:00Z", "--session", "s1", "Use the kestrel build")
	c.add("--now", "2026-09-02T10:00:00Z", "--session", "s2", "Use the kestrel build")
	c.ok("edit", "--now", "2026-09-03T10:00:00Z", a, "--tags", "build")
	c.ok("pin", "--now", "2026-09-04T10:00:00Z", a)
	b := c.add("--now", "2026-09-05T10:00:00Z", "Another kestrel note")
	c.ok("rm", "--now", "2026-09-06T10:00:00Z", b)

	all := c.logJSON()
	if got := actionsOfLog(all); !slices.Equal(got, []string{"deleted", "created", "pinned", "updated", "reinforced", "created"}) {
		t.Fatalf("log actions %v", got)
	}
	first := all[len(all)-1]
	if first["memory_id"] != a || first["session_id"] != "s1" || first["at"] != "2026-09-01T10:00:00Z" ||
		first["project"] != "proj" || first["detail"] != "Use the kestrel build" {
		t.Errorf("oldest entry %v", first)
	}
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"--memory", a}, []string{"pinned", "updated", "reinforced", "created"}},
		{[]string{"--memory", b}, []string{"deleted", "created"}}, // a deleted memory's log stays
		{[]string{"--session", "s2"}, []string{"reinforced"}},
		{[]string{"--action", "pinned,deleted"}, []string{"deleted", "pinned"}},
		{[]string{"--after", "2026-09-03", "--before", "2026-09-05"}, []string{"pinned", "updated"}},
		{[]string{"--limit", "2"}, []string{"deleted", "created"}},
	} {
		if got := actionsOfLog(c.logJSON(tc.args...)); !slices.Equal(got, tc.want) {
			t.Errorf("log %q: %v, want %v", tc.args, got, tc.want)
		}
	}
	r := c.ok("log", "--limit", "2")
	lines := splitLines(r.stdout)
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "2026-09-06T10:00:00Z      deleted     "+b+"  Another kestrel note") {
		t.Errorf("log text:\n%s", r.stdout)
	}
	if r.stderr != "cairn: showing the newest 2 of 6; use --limit for more\n" {
		t.Errorf("log --limit 2 stderr %q", r.stderr)
	}
	if r := c.ok("log", "--session", "s1"); !strings.Contains(r.stdout, "[s1] Use the kestrel build") {
		t.Errorf("log shows no session:\n%s", r.stdout)
	}
	// Other projects' entries never show.
	other := *c
	other.project = "another"
	if got := other.logJSON(); len(got) != 0 {
		t.Errorf("another project's log: %v", got)
	}
}

func TestLogMistakesAndEmptyDatabase(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	if got := c.logJSON(); len(got) != 0 {
		t.Errorf("log of no database: %v", got)
	}
	if r := c.ok("log"); r.stdout != "" || !strings.Contains(r.stderr, "no database at "+c.db+" yet") {
		t.Errorf("log of no database: %v", r)
	}
	for _, args := range [][]string{
		{"log", "--action", "frobbed"},
		{"log", "--limit", "-1"},
		{"log", "everything"},
		{"log", "--after", "yesterday"},
	} {
		r := c.run("", args...)
		if r.code != 2 {
			t.Errorf("%q: want exit 2, got %v", args, r)
		}
		oneErrorLine(t, r)
	}
}
