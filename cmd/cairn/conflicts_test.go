package main

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestConflictsListsContradictionsUntilOneSupersedesTheOther(t *testing.T) {
	t.Parallel()
	c, _ := startServe(t)
	old := c.add("--type", "convention", "Always use tabs for indentation in Go files")
	nw := c.add("--type", "decision", "Never use tabs for indentation in Go files")
	c.add("--type", "note", "Release builds are signed in CI")

	served, local := c.bothWays("", "conflicts", "--json")
	if served.stdout != local.stdout {
		t.Errorf("through the server:\n%s\non the database:\n%s", served.stdout, local.stdout)
	}
	var pairs []struct{ Old, New struct{ ID string } }
	if err := json.Unmarshal([]byte(served.stdout), &pairs); err != nil {
		t.Fatal(err)
	}
	if len(pairs) != 1 || pairs[0].Old.ID != old || pairs[0].New.ID != nw {
		t.Fatalf("conflicts = %+v", pairs)
	}
	if r := c.ok("conflicts"); !strings.Contains(r.stdout, "cairn supersede "+old+" "+nw) {
		t.Errorf("no way to resolve it shown:\n%s", r.stdout)
	}
	c.ok("supersede", old, nw)
	if r := c.ok("conflicts", "--json"); strings.TrimSpace(r.stdout) != "[]" {
		t.Errorf("a resolved conflict is still listed: %s", r.stdout)
	}
	if r := c.run("", "conflicts", "extra"); r.code != exitUsage {
		t.Errorf("a stray argument: %v", r)
	}
}
