package main

// Tests of supersede, add --supersedes and the chain show prints, through
// Main.Run.
//
// Bad inputs tried here: one id, a loop, a memory superseding itself, a
// missing new or old id (for add --supersedes: nothing is stored).

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

func TestSupersedeKeepsTheOldMemorySearchableAndLinked(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	old := c.add("--now", day0, "Deploy with the legacy ibis script")
	nw := c.add("--now", day0, "Deploy with the ibis pipeline")
	r := c.ok("supersede", old, nw)
	if want := old + " is now superseded by " + nw + "\n"; r.stdout != want {
		t.Errorf("supersede said %q, want %q", r.stdout, want)
	}
	if got := c.show(old)["superseded_by"]; got != nw {
		t.Errorf("superseded_by = %v", got)
	}
	if got := c.searchIDs("--now", day0, "ibis"); !slices.Contains(got, old) || !slices.Contains(got, nw) {
		t.Errorf("search = %v, want both memories", got)
	}
	if r := c.ok("supersede", old, nw); r.stdout != old+" was already superseded by "+nw+"\n" {
		t.Errorf("supersede again said %q", r.stdout)
	}
	if r := c.ok("log", "--memory", old, "--action", "superseded"); !strings.Contains(r.stdout, "by "+nw) {
		t.Errorf("log of the supersede:\n%s", r.stdout)
	}
}

func TestAddSupersedesAndShowFollowsTheChainBothWays(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	a := c.add("--now", "2026-09-01T10:00:00Z", "Use MySQL 5")
	r := c.ok("add", "--now", "2026-09-02T10:00:00Z", "--supersedes", a, "Use Postgres 15")
	b := strings.TrimSpace(r.stdout)
	if want := "cairn: " + a + " is now superseded by " + b + "\n"; r.stderr != want {
		t.Errorf("add --supersedes said %q on stderr, want %q", r.stderr, want)
	}
	r = c.ok("add", "--json", "--now", "2026-09-03T10:00:00Z", "--supersedes", b, "Use Postgres 16")
	var added map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &added); err != nil || !slices.Equal(strList(added["supersedes"]), []string{b}) {
		t.Fatalf("add --json --supersedes: %v %v", err, r)
	}
	cID := added["id"].(string)
	out := c.ok("show", b).stdout
	want := "supersede chain (replaced first):\n" +
		"  " + a + "  2026-09-01  Use MySQL 5  → " + b + "\n" +
		"* " + b + "  2026-09-02  Use Postgres 15  → " + cID + "\n" +
		"  " + cID + "  2026-09-03  Use Postgres 16\n"
	if !strings.HasSuffix(out, want) {
		t.Errorf("show of the middle memory ends\n%s\nwant\n%s", out, want)
	}
	m := c.show(b)
	if !slices.Equal(strList(m["supersedes"]), []string{a}) || m["superseded_by"] != cID {
		t.Errorf("show --json: supersedes %v, superseded_by %v", m["supersedes"], m["superseded_by"])
	}
	chain, _ := m["chain"].([]any)
	var ids []string
	for _, l := range chain {
		ids = append(ids, l.(map[string]any)["id"].(string))
	}
	if !slices.Equal(ids, []string{a, b, cID}) {
		t.Errorf("show --json chain %v", ids)
	}
	lone := c.add("--now", day0, "Unrelated")
	if m := c.show(lone); m["chain"] != nil || m["supersedes"] != nil {
		t.Errorf("a memory outside any chain shows %v %v", m["chain"], m["supersedes"])
	}
	if out := c.ok("show", lone).stdout; strings.Contains(out, "supersede chain") {
		t.Errorf("a memory outside any chain shows a chain:\n%s", out)
	}
}

func TestSupersedeMistakes(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	a := c.add("--now", day0, "first")
	b := c.add("--now", day0, "second")
	c.ok("supersede", a, b)
	for _, args := range [][]string{{"supersede", a}, {"supersede"}, {"supersede", a, b, b}} {
		r := c.run("", args...)
		if r.code != 2 {
			t.Errorf("%q: want exit 2, got %v", args, r)
		}
		oneErrorLine(t, r)
	}
	for _, args := range [][]string{
		{"supersede", b, a}, // a loop
		{"supersede", a, a},
		{"supersede", a, "mem-0000000000000000"},
		{"supersede", "mem-0000000000000000", a},
	} {
		r := c.run("", args...)
		if r.code != 1 {
			t.Errorf("%q: want exit 1, got %v", args, r)
		}
		oneErrorLine(t, r)
	}
	total := c.total()
	r := c.run("", "add", "--supersedes", "mem-0000000000000000", "third")
	if r.code != 1 {
		t.Errorf("add --supersedes of a missing id: %v", r)
	}
	if c.total() != total {
		t.Error("a failed add --supersedes stored the memory")
	}
}

// search and list mark a pinned and a superseded memory, in text and in
// JSON, and search puts the replaced decision below its replacement even
// where its words match the query better.
func TestSearchAndListMarkPinnedAndSupersededMemories(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	old := c.add("--now", day0, "--type", "decision", "Sessions are stored in Redis: session lookup by session id is fast.")
	nw := c.add("--now", day0, "--type", "decision", "Sessions moved to PostgreSQL; the cache lost them on restart.")
	pin := c.add("--now", day0, "--type", "convention", "Session ids are random 128-bit values.")
	c.ok("supersede", old, nw)
	c.ok("pin", pin)
	query := "where are sessions stored, session lookup by session id"
	if got := c.searchIDs("--now", day0, query); slices.Index(got, nw) < 0 || slices.Index(got, old) < slices.Index(got, nw) {
		t.Errorf("search = %v: the replaced %s ranks above its replacement %s", got, old, nw)
	}
	text := c.ok("search", "--now", day0, query).stdout + c.ok("list").stdout
	for _, line := range strings.Split(strings.TrimSpace(text), "\n") {
		superseded, pinned := strings.Contains(line, "[superseded by "+nw+"]"), strings.Contains(line, "[pinned]")
		id := ""
		for _, f := range strings.Fields(line) {
			if strings.HasPrefix(f, "mem-") {
				id = f // the line's own id comes first
				break
			}
		}
		switch {
		case id == old && !superseded, id == pin && !pinned:
			t.Errorf("unmarked: %q", line)
		case id == nw && (superseded || pinned):
			t.Errorf("a memory neither pinned nor superseded is marked: %q", line)
		}
	}
	if n := strings.Count(text, "[superseded by "); n != 2 {
		t.Errorf("%d lines marked superseded, want 2 (search and list):\n%s", n, text)
	}
	var hits, mems []map[string]any
	if err := json.Unmarshal([]byte(c.ok("search", "--json", "--now", day0, query).stdout), &hits); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(c.ok("list", "--json").stdout), &mems); err != nil {
		t.Fatal(err)
	}
	for what, list := range map[string][]map[string]any{"search": hits, "list": mems} {
		for _, m := range list {
			switch m["id"] {
			case old:
				if m["superseded_by"] != nw {
					t.Errorf("%s --json: %v lacks superseded_by %s", what, m, nw)
				}
			case pin:
				if m["pinned"] != true {
					t.Errorf("%s --json: %v lacks pinned", what, m)
				}
			}
		}
	}
}
