package main

// Tests of pin and unpin through Main.Run.
//
// Bad inputs tried here: no id, two ids, a missing id.

import (
	"encoding/json"
	"testing"
)

func TestPinAndUnpinSayWhatChanged(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	id := c.add("--now", day0, "Always run go vet")
	for _, step := range []struct {
		args   []string
		stdout string
		pinned bool
	}{
		{[]string{"pin", id}, "pinned " + id + "\n", true},
		{[]string{"pin", id}, id + " was already pinned\n", true},
		{[]string{"unpin", id}, "unpinned " + id + "\n", false},
		{[]string{"unpin", id}, id + " was already unpinned\n", false},
	} {
		r := c.ok(step.args...)
		if r.stdout != step.stdout {
			t.Errorf("%q: stdout %q, want %q", step.args, r.stdout, step.stdout)
		}
		if got, _ := c.show(id)["pinned"].(bool); got != step.pinned {
			t.Errorf("after %q: pinned %v", step.args, got)
		}
	}
	r := c.ok("pin", "--json", id)
	var m map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &m); err != nil || m["pinned"] != true {
		t.Errorf("pin --json: %v %v", err, r)
	}
	acts := c.ok("log", "--memory", id, "--action", "pinned,unpinned").stdout
	if n := len(splitLines(acts)); n != 3 {
		t.Errorf("log shows %d pin changes, want 3 (the repeats change nothing):\n%s", n, acts)
	}
}

func TestPinMistakes(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	id := c.add("--now", day0, "a note")
	for _, args := range [][]string{{"pin"}, {"unpin"}, {"pin", id, id}} {
		r := c.run("", args...)
		if r.code != 2 {
			t.Errorf("%q: want exit 2, got %v", args, r)
		}
		oneErrorLine(t, r)
	}
	r := c.run("", "pin", "mem-0000000000000000")
	if r.code != 1 {
		t.Errorf("pin of a missing id: %v", r)
	}
	oneErrorLine(t, r)
}

// verify sets the verified time to the clock's now; a missing id or one of
// another project is not found.
func TestVerifySetsTheVerifiedTime(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	id := c.add("--now", day0, "--files", "internal/api/*.go", "Handlers live in internal/api")
	r := c.ok("--now", "2026-11-05T10:00:00Z", "verify", id)
	if r.stdout != "verified "+id+" at 2026-11-05T10:00:00Z\n" {
		t.Errorf("verify: %q", r.stdout)
	}
	if got := c.show(id)["verified_at"]; got != "2026-11-05T10:00:00Z" {
		t.Errorf("verified_at %v", got)
	}
	if r := c.run("", "verify", "mem-doesnotexist0000"); r.code != 1 {
		t.Errorf("verify of a missing id: %v", r)
	}
	if r := c.run("", "verify"); r.code != 2 {
		t.Errorf("verify without an id: %v", r)
	}
}
