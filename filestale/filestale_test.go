package filestale

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
)

// A reference's files are found again at most globTTL later, but their
// modification times are read on every check: a changed file makes a
// memory stale at once, a new file matching a glob within globTTL.
func TestChangesCountAtOnceNewFilesWithinTheTTL(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, "pkg")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	written := time.Now().Add(-time.Hour)
	old := written.Add(-time.Hour)
	a := filepath.Join(dir, "a.go")
	if err := os.WriteFile(a, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(a, old, old); err != nil {
		t.Fatal(err)
	}
	m := &cairn.Memory{FileRefs: []string{"pkg/*.go"}, UpdatedAt: written}
	check := func() bool { return (&Checker{Root: root}).Stale(m) }
	if check() {
		t.Fatal("stale before any change")
	}
	// A new file that matches, changed after the memory: seen once the
	// folder is read again.
	b := filepath.Join(dir, "b.go")
	if err := os.WriteFile(b, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if check() {
		t.Fatal("a file that appeared is seen before the glob's time is up")
	}
	pattern := filepath.Join(root, "pkg", "*.go")
	globsMu.Lock()
	g := globsHit[pattern]
	g.at = g.at.Add(-globTTL)
	globsHit[pattern] = g
	globsMu.Unlock()
	if !check() {
		t.Fatal("a file that appeared is not seen after the glob's time")
	}
	// A file found before and changed now counts at once.
	if err := os.Remove(b); err != nil {
		t.Fatal(err)
	}
	globsMu.Lock()
	delete(globsHit, pattern)
	globsMu.Unlock()
	if check() {
		t.Fatal("stale after the new file went away")
	}
	if err := os.Chtimes(a, time.Now(), time.Now()); err != nil {
		t.Fatal(err)
	}
	if !check() {
		t.Fatal("a change to a file found before is not seen at once")
	}
}
