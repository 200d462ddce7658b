package sqlite

import (
	"path/filepath"
	"testing"

	"github.com/cairn-dev/cairn"
)

// A database written by an older cairn is read by a read-only command
// after an upgrade: its schema is brought up to date first, since this
// binary's reads need the newer columns and indexes. Tried for every
// older schema version.
func TestReadOnlyOpenOfAnOlderSchemaMigratesIt(t *testing.T) {
	t.Parallel()
	for v := 1; v < SchemaVersion(); v++ {
		path := filepath.Join(t.TempDir(), "c.db")
		old, err := Open(t.Context(), path, &Options{upTo: v})
		if err != nil {
			t.Fatalf("schema %d: %v", v, err)
		}
		old.Close()
		ro, err := Open(t.Context(), path, &Options{ReadOnly: true})
		if err != nil {
			t.Fatalf("read-only open of schema %d: %v", v, err)
		}
		err = ro.View(t.Context(), func(tx cairn.Tx) error {
			_, _, err := tx.FindMemories(t.Context(), cairn.MemoryFilter{Project: "p", HasFileRefs: true, Sort: cairn.SortUpdatedDesc})
			return err
		})
		ro.Close()
		if err != nil {
			t.Errorf("schema %d, read-only: %v", v, err)
		}
		var got int
		db, err := Open(t.Context(), path, &Options{ReadOnly: true})
		if err != nil {
			t.Fatal(err)
		}
		if got, err = db.userVersion(t.Context(), db.reader); err != nil || got != SchemaVersion() {
			t.Errorf("schema %d after a read-only open: version %d, %v; want %d", v, got, err, SchemaVersion())
		}
		db.Close()
	}
}
