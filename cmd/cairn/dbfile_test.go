package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The database may be named in a file (--db-file, CAIRN_DB_FILE), so that
// a connection string with its password stays off the command line: the
// file's first line that is not empty or a comment is the database.
// Bad inputs tried: --db and --db-file together (a usage error), a missing
// file, an empty one and one of comments only (errors that write nothing),
// and a file naming an unreachable server with a password, which no
// message may show.
func TestDatabaseNamedInAFile(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	file := filepath.Join(c.dir, "db.conf")
	if err := os.WriteFile(file, []byte("# the team's database\n\n  "+c.db+"  \nignored\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	r := c.raw("", "--db-file", file, "--project", c.project, "add", "The heron memory is stored through a database file.")
	if r.code != 0 {
		t.Fatalf("add with --db-file: %v", r)
	}
	if got := c.ok("search", "heron").stdout; !strings.Contains(got, "heron memory") {
		t.Errorf("the memory added through --db-file is not in %s: %q", c.db, got)
	}
	c.env["CAIRN_DB_FILE"] = file
	if r := c.raw("", "--project", c.project, "search", "heron"); r.code != 0 || !strings.Contains(r.stdout, "heron memory") {
		t.Errorf("search with CAIRN_DB_FILE: %v", r)
	}
	// --db and CAIRN_DB come first.
	other := filepath.Join(c.dir, "other.db")
	if r := c.raw("", "--db", other, "--project", c.project, "search", "heron"); strings.Contains(r.stdout, "heron memory") {
		t.Errorf("--db did not win over CAIRN_DB_FILE: %v", r)
	}
	delete(c.env, "CAIRN_DB_FILE")

	if r := c.raw("", "--db", c.db, "--db-file", file, "search", "heron"); r.code != 2 {
		t.Errorf("--db with --db-file: want a usage error, got %v", r)
	}
	empty := filepath.Join(c.dir, "empty.conf")
	os.WriteFile(empty, []byte("\n# nothing here\n"), 0o600)
	for _, f := range []string{filepath.Join(c.dir, "missing.conf"), empty} {
		if r := c.raw("", "--db-file", f, "--project", c.project, "add", "never stored"); r.code != 1 || !strings.Contains(r.stderr, "database file") {
			t.Errorf("--db-file %s: want a clear error, got %v", f, r)
		}
	}
	// cairn migrate reads its two ends from files too.
	copyTo := filepath.Join(c.dir, "copy.db")
	toConf := filepath.Join(c.dir, "to.conf")
	os.WriteFile(toConf, []byte(copyTo+"\n"), 0o600)
	if r := c.raw("", "migrate", "--from-file", file, "--to-file", toConf, "--quiet"); r.code != 0 {
		t.Fatalf("migrate --from-file --to-file: %v", r)
	}
	if r := c.raw("", "--db", copyTo, "--project", c.project, "search", "heron"); !strings.Contains(r.stdout, "heron memory") {
		t.Errorf("the copy made through --to-file lacks the memory: %v", r)
	}
	if r := c.raw("", "migrate", "--from", c.db, "--from-file", file, "--to-file", toConf); r.code != 2 {
		t.Errorf("migrate --from with --from-file: want a usage error, got %v", r)
	}
	secret := filepath.Join(c.dir, "secret.conf")
	os.WriteFile(secret, []byte("postgres://team:hunter2@127.0.0.1:1/cairn?sslmode=disable&connect_timeout=2\n"), 0o600)
	r = c.raw("", "--db-file", secret, "--project", c.project, "add", "never stored")
	if r.code == 0 || strings.Contains(r.stderr+r.stdout, "hunter2") || !strings.Contains(r.stderr, "team") {
		t.Errorf("a database file naming an unreachable server: want an error naming it without its password, got %v", r)
	}
	r = c.raw("", "migrate", "--from", c.db, "--to-file", secret, "--quiet")
	if r.code == 0 || strings.Contains(r.stderr+r.stdout, "hunter2") {
		t.Errorf("migrate to an unreachable server named in a file: want an error without its password, got %v", r)
	}
}
