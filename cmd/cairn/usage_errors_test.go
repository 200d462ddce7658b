package main

// Mistakes a person makes at the command line get a usage error that says
// what they likely meant, and change nothing.
//
// Bad inputs tried here: a mistyped command, a mistyped flag of a command
// and of the global flags, a confidence of 1.5, -0.1 and NaN for add and
// edit, rm of two ids with a bogus one between them, an id without its
// "mem-", a prefix that matches several memories.

import (
	"strings"
	"testing"
)

func TestMistypedCommandsAndFlagsSuggestTheNearestName(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"serch", "x"}, `unknown command "serch" (did you mean search?)`},
		{[]string{"exprt"}, `(did you mean export?)`},
		{[]string{"search", "--limt", "3", "x"}, `(did you mean --limit?)`},
		{[]string{"context", "--budjet", "300"}, `(did you mean --budget?)`},
		{[]string{"help", "lsit"}, `(did you mean list?)`},
	} {
		r := c.run("", tc.args...)
		if r.code != 2 || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("cairn %s: want exit 2 and %q, got %v", strings.Join(tc.args, " "), tc.want, r)
		}
	}
	if r := c.raw("", "--porject", "x", "list"); r.code != 2 || !strings.Contains(r.stderr, "(did you mean --project?)") {
		t.Errorf("global flag: %v", r)
	}
	if r := c.run("", "frobnicate"); r.code != 2 || strings.Contains(r.stderr, "did you mean") {
		t.Errorf("a name far from every command gets no guess: %v", r)
	}
}

func TestConfidenceOutOfRangeIsAUsageError(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	id := c.add("--confidence", "0.8", "Confidence flags are checked when parsed.")
	for _, v := range []string{"1.5", "-0.1", "NaN", "high"} {
		if r := c.run("", "add", "--confidence", v, "another memory"); r.code != 2 {
			t.Errorf("add --confidence %s: %v", v, r)
		}
		if r := c.run("", "edit", id, "--confidence", v); r.code != 2 {
			t.Errorf("edit --confidence %s: %v", v, r)
		}
	}
	if got := c.show(id)["confidence"]; got != 0.8 {
		t.Errorf("confidence changed to %v", got)
	}
	if c.total() != 1 {
		t.Errorf("a refused add stored a memory")
	}
	if r := c.ok("edit", "-h"); strings.Contains(r.stdout, "default -1") {
		t.Errorf("edit's help shows a sentinel default: %s", r.stdout)
	}
}

func TestRmChecksEveryIDBeforeDeletingAny(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	a := c.add("First memory to remove.")
	b := c.add("Second memory to remove.")
	r := c.run("", "rm", a, "mem-bogus00000000", b)
	if r.code != 1 || !strings.Contains(r.stderr, "mem-bogus00000000") || !strings.Contains(r.stderr, "nothing was deleted") {
		t.Fatalf("rm with a bogus id: %v", r)
	}
	if c.total() != 2 {
		t.Fatalf("rm deleted some memories before failing")
	}
	// An id without its "mem-" is found.
	if got := c.show(strings.TrimPrefix(a, "mem-"))["id"]; got != a {
		t.Errorf("show without mem-: %v", got)
	}
	c.ok("rm", strings.TrimPrefix(a, "mem-"), b)
	if c.total() != 0 {
		t.Errorf("rm of both left %d", c.total())
	}
}

func TestAmbiguousIDPrefixListsTheCandidates(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	c.ok("import", c.writeFile("m.jsonl", jsonLines(t,
		map[string]any{"id": "mem-abcdef000001", "type": "note", "content": "one"},
		map[string]any{"id": "mem-abcdef000002", "type": "note", "content": "two"})))
	r := c.run("", "show", "mem-abcdef")
	if r.code != 1 || !strings.Contains(r.stderr, "mem-abcdef000001, mem-abcdef000002") {
		t.Errorf("ambiguous prefix: %v", r)
	}
}

func TestAMistypedDatabasePathIsNamedNotReadAsEmpty(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	c.add("A memory in the real database.")
	typo := c.db + ".bak"
	r := c.raw("", "--db", typo, "--project", c.project, "list")
	if r.code != 0 || r.stdout != "" || !strings.Contains(r.stderr, "no database at "+typo+" yet") {
		t.Errorf("list of a mistyped --db: %v", r)
	}
	c.env["CAIRN_DB"] = typo
	if r := c.raw("", "--project", c.project, "search", "memory"); !strings.Contains(r.stderr, "no database at "+typo) || strings.Count(r.stderr, "no database") != 1 {
		t.Errorf("search of a mistyped CAIRN_DB: %v", r)
	}
	delete(c.env, "CAIRN_DB")
	// The default database, not made yet: nothing to say but that
	// nothing matches.
	if r := c.raw("", "--project", c.project, "list"); r.code != 0 || r.stderr != "" {
		t.Errorf("list of the default database before the first write: %v", r)
	}
	// A hook says nothing.
	if r := c.raw(`{"prompt": "memory", "session_id": "s", "cwd": "`+c.dir+`", "hook_event_name": "UserPromptSubmit"}`, "--db", typo, "hook", "claude", "user-prompt-submit"); r.code != 0 || r.stdout != "" || r.stderr != "" {
		t.Errorf("hook on a missing database: %v", r)
	}
}

func TestEditRaisesConfidenceAndLowersItOnlyWhenNamed(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	id := c.add("--confidence", "0.95", "Confidence only rises by an edit.")
	if r := c.run("", "edit", id, "--confidence", "0.3"); r.code != 1 || !strings.Contains(r.stderr, "--lower-confidence") {
		t.Errorf("edit --confidence lower: %v", r)
	}
	if r := c.run("", "edit", id, "--confidence", "0.5", "--lower-confidence", "0.4"); r.code != 2 {
		t.Errorf("both flags: %v", r)
	}
	c.ok("edit", id, "--lower-confidence", "0.3")
	if got := c.show(id)["confidence"]; got != 0.3 {
		t.Errorf("after --lower-confidence: %v", got)
	}
}
