package main

// Mistakes in how cairn is called exit 2 like every usage error, and the
// spellings the documents give are accepted.
//
// Bad inputs tried: an unknown --mode, --scope and type names that are
// not names, for every command taking them; --dry-run with --apply; types
// one letter away from a known type (dropped, added, replaced, swapped).

import (
	"context"
	"io"
	"os"
	"strings"
	"testing"
)

func TestUnknownFlagValuesAreUsageErrors(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	id := c.add("something to make the database exist")
	for _, args := range [][]string{
		{"context", "--mode", "bogus"},
		{"config", "--mode", "bogus"},
		{"add", "--scope", "bogus", "content"},
		{"edit", id, "--scope", "bogus"},
		{"add", "--type", "bad type", "content"},
		{"edit", id, "--type", "bad type"},
		{"promote", id, "--type", "bad type"},
		{"list", "--type", "bad type"},
		{"search", "--type", "bad type", "something"},
		{"export", "--type", "bad type"},
		{"cleanup", "--dry-run", "--apply"},
	} {
		if r := c.run("", args...); r.code != 2 || strings.Count(r.stderr, "\n") != 1 {
			t.Errorf("want exit 2 and one line, got %v", r)
		}
	}
	if n := c.total(); n != 1 {
		t.Errorf("%d memories stored, want 1", n)
	}
}

func TestCleanupDryRunIsAccepted(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	c.add("something to clean up later")
	if r := c.run("", "cleanup", "--dry-run"); r.code != 0 {
		t.Errorf("cleanup --dry-run: %v", r)
	}
}

// TestATypeOneEditFromAKnownTypeIsRefusedUnlessNew tries typos of
// built-in types and of a type the project already uses.
func TestATypeOneEditFromAKnownTypeIsRefusedUnlessNew(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	for _, tt := range []struct{ typ, want string }{{"pitfal", "pitfall"}, {"Decison", "decision"}, {"pitfsll", "pitfall"}, {"ptifall", "pitfall"}} {
		r := c.run("", "add", "--type", tt.typ, "The cache must be warmed.")
		if r.code != 2 || !strings.Contains(r.stderr, `did you mean "`+tt.want+`"?`) {
			t.Errorf("--type %s: want exit 2 suggesting %s, got %v", tt.typ, tt.want, r)
		}
	}
	if n := c.total(); n != 0 {
		t.Fatalf("%d memories stored from typos", n)
	}
	id := c.add("--type", "runbok", "--new-type", "Restart the queue first.")
	if m := c.show(id); m["type"] != "runbok" {
		t.Errorf("--new-type: type %v", m["type"])
	}
	// Once stored, the new type is known: no more questions for it.
	c.add("--type", "runbok", "Drain the workers second.")
	if r := c.run("", "edit", id, "--type", "runbook"); r.code != 2 || !strings.Contains(r.stderr, `did you mean "runbok"?`) {
		t.Errorf("edit --type runbook: %v", r)
	}
	if r := c.run("", "promote", id, "--type", "patern"); r.code != 2 || !strings.Contains(r.stderr, `"pattern"`) {
		t.Errorf("promote --type patern: %v", r)
	}
	c.add("--type", "incident", "A type far from every known one is simply new.")
}

// TestADatabaseURLOfAnotherKindIsRefusedAndCreatesNothing gives --db
// and CAIRN_DB as URLs that name no database cairn can use: a usage error,
// and no file named after the scheme.
func TestADatabaseURLOfAnotherKindIsRefusedAndCreatesNothing(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	for _, args := range [][]string{
		{"--db", "mysql://cairn:hunter2@127.0.0.1:3306/test", "--project", "p", "add", "x"},
		{"--db", "sqlite:///tmp/x.db", "--project", "p", "list"},
	} {
		r := c.raw("", args...)
		if r.code != 2 || !strings.Contains(r.stderr, "postgres://") || strings.Contains(r.stderr, "hunter2") {
			t.Errorf("want exit 2 refusing the URL without its password, got %v", r)
		}
	}
	c.env["CAIRN_DB"] = "redis://localhost/test"
	if r := c.raw("", "--project", "p", "stats"); r.code != 2 {
		t.Errorf("CAIRN_DB as a URL: %v", r)
	}
	if ents, _ := os.ReadDir(c.wd); len(ents) != 0 {
		t.Errorf("files created in the working folder: %v", ents)
	}
}

// TestAPostgresURLIsAServerNotAFile gives --db and CAIRN_DB as
// postgres:// URLs of a server that does not answer (a closed port), with
// a password: the command fails (exit 1) naming the server without the
// password, and creates no file named "postgres:".
func TestAPostgresURLIsAServerNotAFile(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	for _, args := range [][]string{
		{"--db", "postgres://cairn:hunter2@127.0.0.1:1/test?connect_timeout=2", "--project", "p", "add", "x"},
		{"--db", "postgresql://cairn:hunter2@127.0.0.1:1/test?connect_timeout=2", "--project", "p", "search", "x"},
		{"--db", "postgres://cairn@127.0.0.1:1/test?password=hunter2&connect_timeout=2", "--project", "p", "stats"},
	} {
		r := c.raw("", args...)
		if r.code != 1 || !strings.Contains(r.stderr, "127.0.0.1") || strings.Contains(r.stderr, "hunter2") {
			t.Errorf("%v: want exit 1 naming the server without its password, got %v", args, r)
		}
	}
	c.env["CAIRN_DB"] = "postgres://cairn:hunter2@127.0.0.1:1/test?connect_timeout=2"
	if r := c.raw("", "--project", "p", "add", "x"); r.code != 1 || strings.Contains(r.stderr, "hunter2") {
		t.Errorf("CAIRN_DB as a postgres URL: %v", r)
	}
	// A URL that does not parse is a clear error, still without the password.
	if r := c.raw("", "--db", "postgres://cairn:hunter2@127.0.0.1:notaport/test", "--project", "p", "add", "x"); r.code == 0 || strings.Contains(r.stderr, "hunter2") {
		t.Errorf("a bad URL: %v", r)
	}
	ents, _ := os.ReadDir(c.wd)
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), "postgres") {
			t.Errorf("a file named after the URL was created: %s", e.Name())
		}
	}
}

// TestAddWaitingForStdinStopsWhenInterrupted cancels `add -` (as Ctrl-C
// and SIGTERM do) while it waits for standard input that never comes: it
// ends, says so, and stores nothing.
func TestAddWaitingForStdinStopsWhenInterrupted(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	pr, pw := io.Pipe()
	defer pw.Close()
	ctx, cancel := context.WithCancel(t.Context())
	var errb strings.Builder
	m := &Main{Stdin: pr, Stdout: io.Discard, Stderr: &errb,
		Getenv: func(k string) string { return c.env[k] }, Getwd: func() (string, error) { return c.wd, nil }}
	done := make(chan int, 1)
	go func() { done <- m.Run(ctx, []string{"--db", c.db, "--project", c.project, "add", "-"}) }()
	pw.Write([]byte("the first half of a memory")) // returns once the command reads
	cancel()
	if code := <-done; code != 1 || !strings.Contains(errb.String(), "interrupted") {
		t.Errorf("exit %d, stderr %q; want 1 saying it was interrupted", code, errb.String())
	}
	if _, err := os.Stat(c.db); err == nil {
		t.Errorf("the database was created")
	}
}
