package main

// A database this user may not write is read all the same, and a --db
// that names no database says so.
//
// Bad inputs tried here: a database file and folder without write
// permission for the user (as root, whom permissions do not stop, the
// binary runs as nobody through setpriv), a mistyped --db path.

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestAReadOnlyDatabaseCanBeReadNotWritten(t *testing.T) {
	t.Parallel()
	dir, err := os.MkdirTemp("", "cairn-ro-") // not t.TempDir: its parents are private to this user
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(dir, 0o755); os.RemoveAll(dir) })
	db := filepath.Join(dir, "cairn.db")
	c := newCLI(t)
	c.db = db
	c.add("--type", "decision", "Read-only databases stay readable.")
	var prefix []string
	if os.Geteuid() == 0 {
		setpriv, err := exec.LookPath("setpriv")
		if err != nil {
			t.Skip("running as root without setpriv: a read-only database cannot be made for this user")
		}
		prefix = []string{setpriv, "--reuid=65534", "--regid=65534", "--clear-groups"}
	}
	if err := os.Chmod(db, 0o444); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(dir, 0o555); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) (string, error) {
		argv := append(append(prefix, cairnBin, "--db", db, "--project", "proj"), args...)
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Env = []string{"HOME=" + dir, "CAIRN_NO_SERVER=1", "PATH=/usr/bin:/bin"}
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	for _, args := range [][]string{{"list"}, {"search", "read-only databases"}, {"stats"}} {
		out, err := run(args...)
		if err != nil || !strings.Contains(out, "Read-only databases stay readable") && !strings.Contains(out, "1 memory") {
			t.Errorf("cairn %s on a read-only database: %v\n%s", args[0], err, out)
		}
	}
	if out, err := run("add", "another"); err == nil || !strings.Contains(out, "read-only") {
		t.Errorf("add on a read-only database: %v\n%s", err, out)
	}
}
