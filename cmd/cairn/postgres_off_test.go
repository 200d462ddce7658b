//go:build nopostgres

package main

import (
	"os"
	"strings"
	"testing"
)

// A cairn built with the nopostgres tag names what it cannot open, keeps
// the password out of the message, and leaves SQLite as it was: here
// `go test -tags nopostgres -run NoPostgres ./cmd/cairn` (.ci/run).
func TestNoPostgresBuildRefusesPostgresURLs(t *testing.T) {
	c := newCLI(t)
	c.add("--type", "decision", "We keep memories in SQLite here.")
	for _, args := range [][]string{
		{"--db", "postgres://cairn:hunter2@127.0.0.1:5432/test", "--project", "p", "list"},
		{"--db", "postgresql://cairn:hunter2@127.0.0.1:5432/test", "--project", "p", "add", "x"},
		{"migrate", "--from", "sqlite:" + c.db, "--to", "postgres://cairn:hunter2@127.0.0.1:5432/test"},
	} {
		r := c.raw("", args...)
		if r.code == 0 || !strings.Contains(r.stderr, "built without PostgreSQL") || strings.Contains(r.stderr+r.stdout, "hunter2") {
			t.Errorf("want a refusal that names the build, without the password: %v", r)
		}
	}
	if r := c.ok("search", "SQLite"); !strings.Contains(r.stdout, "We keep memories in SQLite here.") {
		t.Fatalf("the SQLite database after the refusals: %v", r)
	}
	if _, err := os.Stat(c.db); err != nil {
		t.Fatal(err)
	}
}
