package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"path/filepath"
	"testing"

	"github.com/cairn-dev/cairn"
)

// cacheKiB reads a connection's page cache size, in KiB.
func cacheKiB(t *testing.T, q interface {
	QueryRowContext(context.Context, string, ...any) *sql.Row
}) int {
	t.Helper()
	var n int
	if err := q.QueryRowContext(t.Context(), "PRAGMA cache_size").Scan(&n); err != nil {
		t.Fatal(err)
	}
	return -n
}

// Every connection adds its page cache to the process's one (see
// writerCacheKiB), so each gets the size meant for it. The driver runs
// a DSN's pragmas sorted by their text: readers once got the writer's
// 64 MiB, which a server's reads then filled.
func TestConnectionsHaveTheirOwnPageCacheSize(t *testing.T) {
	t.Parallel()
	s, err := Open(t.Context(), filepath.Join(t.TempDir(), "c.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if got := cacheKiB(t, s.writer); got != writerCacheKiB {
		t.Errorf("writer: cache_size %d KiB, want %d", got, writerCacheKiB)
	}
	// Two readers at once: two connections of the pool.
	err = s.View(t.Context(), func(cairn.Tx) error {
		if got := cacheKiB(t, s.reader); got != readerCacheKiB {
			t.Errorf("reader: cache_size %d KiB, want %d", got, readerCacheKiB)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	scan, err := sql.Open("sqlite", s.scanDSN)
	if err != nil {
		t.Fatal(err)
	}
	defer scan.Close()
	if got := cacheKiB(t, scan); got != readerCacheKiB {
		t.Errorf("scan: cache_size %d KiB, want %d", got, readerCacheKiB)
	}
}

// A bulk write (Tx.Bulk) has the larger cache until it ends, whether it
// commits or fails; then the writer's cache is back to its usual size.
func TestBulkEnlargesTheWritersCacheUntilTheTransactionEnds(t *testing.T) {
	t.Parallel()
	s, err := Open(t.Context(), filepath.Join(t.TempDir(), "c.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	failed := errors.New("failed")
	for _, want := range []error{nil, failed} {
		err := s.Update(t.Context(), func(tx cairn.Tx) error {
			st := tx.(*Tx)
			if err := st.Bulk(t.Context()); err != nil {
				return err
			}
			if got := cacheKiB(t, st.tx); got != bulkCacheKiB {
				t.Errorf("in a bulk transaction: cache_size %d KiB, want %d", got, bulkCacheKiB)
			}
			return want
		})
		if err != want {
			t.Fatalf("Update: %v, want %v", err, want)
		}
		if got := cacheKiB(t, s.writer); got != writerCacheKiB {
			t.Errorf("after a bulk transaction (error %v): cache_size %d KiB, want %d", want, got, writerCacheKiB)
		}
	}
	// A read transaction has nothing to write: Bulk leaves it alone.
	err = s.View(t.Context(), func(tx cairn.Tx) error {
		st := tx.(*Tx)
		if err := st.Bulk(t.Context()); err != nil {
			return err
		}
		if got := cacheKiB(t, st.tx); got != readerCacheKiB {
			t.Errorf("a read transaction after Bulk: cache_size %d KiB, want %d", got, readerCacheKiB)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
