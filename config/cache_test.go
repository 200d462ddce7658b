package config_test

import (
	"testing"

	"github.com/cairn-dev/cairn/config"
)

// A cache reads a folder pair's files again only once one changed, and
// each caller gets a copy of its own to change.
func TestCacheReadsTheFilesAgainOnlyWhenTheyChange(t *testing.T) {
	t.Parallel()
	dir, file := project(t, "[context]\nbudget = 900\n")
	var c config.Cache
	budget := func() int {
		t.Helper()
		l, err := c.Load(dir, "")
		if err != nil {
			t.Fatal(err)
		}
		b := l.Config.Context.Budget
		l.Config.Context.Budget = 1 // the caller's copy
		return b
	}
	if b := budget(); b != 900 {
		t.Fatalf("budget %d, want 900", b)
	}
	if b := budget(); b != 900 {
		t.Fatalf("from the cache: budget %d, want 900 (a caller changed the cached one?)", b)
	}
	writeFile(t, file, "[context]\nbudget = 1200\n# longer, so that the stamp changes\n")
	if b := budget(); b != 1200 {
		t.Errorf("after the file changed: budget %d, want 1200", b)
	}
	if st := config.StampOf(file); !st.Exists || st.Size == 0 || config.StampOf(file+".none").Exists {
		t.Errorf("stamps: %+v", st)
	}
}
