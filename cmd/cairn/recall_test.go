package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

func TestRecallLookupsAnswerTheSameThroughTheServerAndOnTheDatabase(t *testing.T) {
	t.Parallel()
	c := seedBothWays(t)
	c.ok("add", "--type", "fix", "--title", "Fix for `go test ./auth/...` failure", "**Problem:** --- FAIL: TestClockSkew (0.01s) clock skew 3s\n\n**Fix:** edited auth/clock.go")
	for _, args := range [][]string{
		{"recall", "--file", "auth/clock.go"},
		{"recall", "--file", "store/sqlite.go", "--json"},
		{"recall", "--error", "FAIL: TestClockSkew clock skew"},
		{"recall", "--command", "go test"},
		{"recall", "--file", "auth/clock.go", "--limit", "1"},
	} {
		served, local := c.bothWays("", args...)
		if served.code != 0 || served.stdout != local.stdout {
			t.Errorf("%v: through the server\n%v\non the database\n%v", args, served, local)
		}
		if served.stdout == "" {
			t.Errorf("%v found nothing: %v", args, served)
		}
	}
	r := c.ok("recall", "--file", "auth/clock.go")
	for _, want := range []string{"Give each flaky auth subtest its own fake clock", "Fix for `go test ./auth/...` failure"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("recall --file lacks %q:\n%s", want, r.stdout)
		}
	}
	if abs := c.ok("recall", "--file", filepath.Join(c.wd, "auth", "clock.go")); !strings.Contains(abs.stdout, "Give each flaky auth subtest its own fake clock") {
		t.Errorf("an absolute path finds what names the file:\n%s", abs.stdout)
	}
	var out struct {
		Items []struct{ ID, Section string }
	}
	if err := json.Unmarshal([]byte(c.ok("recall", "--file", "store/sqlite.go", "--json").stdout), &out); err != nil || len(out.Items) != 1 {
		t.Errorf("the glob store/*.go names store/sqlite.go: %+v %v", out, err)
	}
	if r := c.ok("recall", "--command", "go test"); !strings.Contains(r.stdout, "- [command] **go test ./auth/...**: worked once") {
		t.Errorf("recall --command:\n%s", r.stdout)
	}
}

func TestRecallRefusesBadUse(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	c.ok("add", "x")
	// Bad inputs tried: two lookups at once, an empty subject, a limit out
	// of range, a tiny budget, a stray argument, --agent with a lookup.
	for _, args := range [][]string{
		{"recall", "--file", "a.go", "--error", "boom"},
		{"recall", "--file", " "},
		{"recall", "--error", "boom", "--limit", "0"},
		{"recall", "--command", "go", "--budget", "5"},
		{"recall", "stray"},
		{"recall", "--file", "a.go", "--agent", "mars"},
	} {
		if r := c.run("", args...); r.code != exitUsage {
			t.Errorf("%v: want exit 2, got %v", args, r)
		}
	}
}

func TestRecallRanksByConfidenceTimesUseAndCountsAsUse(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	low := c.add("--type", "pattern", "--confidence", "0.5", "--agent", "mars", "Mutations call requireAuth first")
	high := c.add("--type", "pattern", "--confidence", "0.9", "--agent", "venus", "Components are functions")
	// low × 3 uses = 2.0 > high × 1 = 0.9 once low was recalled three times.
	for range 3 {
		c.ok("recall", "--agent", "mars")
	}
	ids := func(r result) []string {
		var mems []struct{ ID string }
		if err := json.Unmarshal([]byte(r.stdout), &mems); err != nil {
			t.Fatalf("%v: %v", r, err)
		}
		var out []string
		for _, m := range mems {
			out = append(out, m.ID)
		}
		return out
	}
	if got := ids(c.ok("list", "--sort", "value", "--json")); len(got) != 2 || got[0] != low || got[1] != high {
		t.Errorf("list --sort value = %v, want [%s %s]", got, low, high)
	}
	if got := ids(c.ok("recall", "--json", "--limit", "1")); len(got) != 1 || got[0] != low {
		t.Errorf("recall = %v, want %s first", got, low)
	}
	if n := c.show(low)["use_count"]; n != float64(4) {
		t.Errorf("use count of the recalled memory = %v, want 4", n)
	}
	if n := c.show(high)["use_count"]; n != float64(0) {
		t.Errorf("a memory not recalled was counted as used: %v", n)
	}
}

func TestSearchListAndContextFilterByAgent(t *testing.T) {
	t.Parallel()
	c, _ := startServe(t)
	mars := c.add("--type", "pattern", "--agent", "mars", "--confidence", "0.9", "Mutations call requireAuth before touching the database")
	venus := c.add("--type", "pattern", "--agent", "venus", "Components read the database through hooks")
	served, local := c.bothWays("", "search", "database", "--agent", "mars", "--json")
	if served.stdout != local.stdout {
		t.Errorf("search --agent through the server:\n%s\non the database:\n%s", served.stdout, local.stdout)
	}
	if got := c.searchIDs("database", "--agent", "mars"); len(got) != 1 || got[0] != mars {
		t.Errorf("search --agent mars = %v", got)
	}
	if got := c.listIDs("--agent", "venus"); len(got) != 1 || got[0] != venus {
		t.Errorf("list --agent venus = %v", got)
	}
	served, local = c.bothWays("", "context", "--agent", "mars", "--dry-run")
	if served.stdout != local.stdout || !strings.Contains(served.stdout, "### mars Learned Patterns") || !strings.Contains(served.stdout, mars) {
		t.Errorf("context --agent mars:\n%s\n%s", served, local)
	}
}
