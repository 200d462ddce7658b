package main

// Project isolation through the CLI: every command that takes an id is
// given, from project alpha, the id (and an id prefix) of a memory of
// project beta, and must find nothing and change nothing.

import (
	"strings"
	"testing"
)

func TestCommandsTakingAnIDNeverReachAnotherProjectsMemory(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	c.project = "beta"
	id := c.add("--type", "learning", "Beta's ferret cache is warmed at start-up.")
	other := c.add("Beta's ferret cache is sized by hand.")
	c.project = "alpha"
	mine := c.add("Alpha's ferret cache is cold.")
	for _, ref := range []string{id, id[:len(id)-3]} {
		for _, args := range [][]string{
			{"show", ref},
			{"edit", ref, "--title", "stolen"},
			{"pin", ref},
			{"unpin", ref},
			{"promote", ref, "--type", "pattern"},
			{"promote", ref, "--scope", "global"},
			{"supersede", ref, mine},
			{"supersede", mine, ref},
			{"rm", ref},
		} {
			r := c.run("", args...)
			if r.code != 1 || !strings.Contains(r.stderr, "no memory with id") {
				t.Errorf("from alpha: want exit 1 and not found, got %v", r)
			}
		}
	}
	c.project = "beta"
	m := c.show(id)
	if m["title"] == "stolen" || m["pinned"] == true || m["type"] != "learning" || m["scope"] != "project" {
		t.Errorf("beta's memory was changed from alpha: %v", m)
	}
	c.ok("show", other)
	c.project = "alpha"
	if m := c.show(mine); m["superseded_by"] != nil {
		t.Errorf("alpha's memory is superseded by beta's: %v", m)
	}
}
