package main

// Tests of cleanup through Main.Run. The clock is fixed with --now: the
// memories are written on day0 and cleaned up 45 days later.
//
// Bad inputs tried here: an unexpected argument, a database that does not
// exist yet.

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
)

const (
	day0  = "2026-09-01T10:00:00Z"
	day45 = "2026-10-16T10:00:00Z"
)

// cleanupFixture adds a session summary (30 days to live), a low-value
// note captured automatically (an explicit one is never removed for low
// value) and a plain note, all on day0.
func cleanupFixture(c *cli) (session, low, plain string) {
	c.t.Helper()
	session = c.add("--now", day0, "--type", "session", "Implemented the heron login flow")
	low = c.add("--now", day0, "--source", "automatic", "--confidence", "0.12", "A dubious heron remark")
	plain = c.add("--now", day0, "Heron tests need a running database")
	return session, low, plain
}

func TestCleanupDryRunSaysWhatAndWhyAndChangesNothing(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	session, low, plain := cleanupFixture(c)
	r := c.ok("cleanup", "--now", day45)
	for _, want := range []string{
		"expire   " + session + "  session      Implemented the heron login flow\n         expired: session memories live 30 days, created 2026-09-01\n",
		"delete   " + low + "  note         A dubious heron remark\n         low value: confidence 0.10 after 6 weeks of decay, never used, 45 days old\n",
		"decay    " + plain + "  note         Heron tests need a running database\n         decay 0.60 → 0.48 (6 weeks unused)\n",
		"dry run: would expire 1, delete 1, decay 1 in proj; run `cairn cleanup --apply` to do it\n",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("cleanup output lacks %q:\n%s", want, r.stdout)
		}
	}
	if r.stderr != "" {
		t.Errorf("stderr %q", r.stderr)
	}
	// Nothing changed.
	c.show(session)
	c.show(low)
	if conf := c.show(plain)["confidence"]; conf != 0.6 {
		t.Errorf("a dry run changed the confidence to %v", conf)
	}
	if got := c.ok("log", "--action", "expired,deleted,decayed").stdout; got != "" {
		t.Errorf("a dry run logged activity:\n%s", got)
	}
}

func TestCleanupApplyRemovesFromSearchAndSaysWhatItDid(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	session, low, plain := cleanupFixture(c)
	if got := c.searchIDs("--now", day0, "heron"); len(got) != 3 {
		t.Fatalf("search before cleanup = %v", got)
	}
	r := c.ok("cleanup", "--apply", "--now", day45)
	for _, want := range []string{"expired  " + session, "deleted  " + low, "decayed  " + plain, "expired 1, deleted 1, decayed 1 in proj\n"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("cleanup --apply output lacks %q:\n%s", want, r.stdout)
		}
	}
	for _, id := range []string{session, low} {
		if r := c.run("", "show", id); r.code != 1 {
			t.Errorf("show of a removed memory: %v", r)
		}
	}
	if got := c.searchIDs("--now", day45, "heron"); len(got) != 1 || got[0] != plain {
		t.Errorf("search after cleanup = %v, want only %s", got, plain)
	}
	if conf := c.show(plain)["confidence"]; conf != 0.48 {
		t.Errorf("decayed confidence %v, want 0.48", conf)
	}
	// The same week again: nothing more to do.
	if r := c.ok("cleanup", "--apply", "--now", day45); r.stdout != "nothing to clean up in proj\n" {
		t.Errorf("second cleanup: %q", r.stdout)
	}
}

func TestCleanupJSONReportsEachItem(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	session, _, plain := cleanupFixture(c)
	var rep struct {
		Project string `json:"project"`
		At      string `json:"at"`
		Applied bool   `json:"applied"`
		Expired int    `json:"expired"`
		Deleted int    `json:"deleted"`
		Decayed int    `json:"decayed"`
		Items   []map[string]any
	}
	r := c.ok("cleanup", "--json", "--now", day45)
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("cleanup --json: %v\n%s", err, r.stdout)
	}
	if rep.Project != "proj" || rep.At != day45 || rep.Applied || rep.Expired != 1 || rep.Deleted != 1 || rep.Decayed != 1 || len(rep.Items) != 3 {
		t.Fatalf("report %+v", rep)
	}
	first, last := rep.Items[0], rep.Items[2]
	if first["id"] != session || first["action"] != "expired" || first["type"] != "session" || first["confidence"] != 0.6 {
		t.Errorf("first item %v", first)
	}
	if _, ok := first["new_confidence"]; ok {
		t.Errorf("a removal has a new confidence: %v", first)
	}
	if last["id"] != plain || last["action"] != "decayed" || last["new_confidence"] != 0.48 || last["weeks"] != 6.0 || last["reason"] != "decay 0.60 → 0.48 (6 weeks unused)" {
		t.Errorf("last item %v", last)
	}
	r = c.ok("cleanup", "--json", "--apply", "--now", day45)
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil || !rep.Applied || len(rep.Items) != 3 {
		t.Errorf("cleanup --json --apply: %v %+v", err, rep)
	}
}

func TestCleanupLeavesPinnedMemoriesAlone(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	id := c.add("--now", day0, "--type", "session", "--pin", "--confidence", "0.11", "Pinned heron summary")
	r := c.ok("cleanup", "--apply", "--now", day45)
	if r.stdout != "nothing to clean up in proj (1 memory left alone: pinned)\n" {
		t.Errorf("cleanup of a pinned memory: %q", r.stdout)
	}
	if m := c.show(id); m["confidence"] != 0.11 {
		t.Errorf("pinned memory changed: %v", m)
	}
}

func TestCleanupWithoutDatabaseHasNothingToDoAndCreatesNothing(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	if r := c.ok("cleanup"); r.stdout != "nothing to clean up in proj\n" {
		t.Errorf("cleanup of no database: %q", r.stdout)
	}
	if _, err := os.Stat(c.db); !os.IsNotExist(err) {
		t.Errorf("a dry run created the database: %v", err)
	}
	if r := c.run("", "cleanup", "now"); r.code != 2 {
		t.Errorf("cleanup with an argument: %v", r)
	} else {
		oneErrorLine(t, r)
	}
}
