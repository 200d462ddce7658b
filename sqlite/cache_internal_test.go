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

// maxServerCacheKiB bounds the page caches a long-lived process keeps
// between requests: the writer's and its idle readers'.
const maxServerCacheKiB = 2 << 10

// The page caches a server keeps between requests, the writer's and those
// of the readers the pool keeps idle, stay within maxServerCacheKiB: each
// is about twice its nominal size in the driver's allocator, outside the
// Go runtime's memory limit, and at 1 MiB a reader they took a server at
// 1,000,000 memories past its 150 MB budget.
func TestIdleConnectionsPageCachesStayWithinTheServersBound(t *testing.T) {
	t.Parallel()
	s, err := Open(t.Context(), filepath.Join(t.TempDir(), "c.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// Hold readerIdle+2 readers at once, then let them go: the pool keeps
	// readerIdle of them.
	var conns []*sql.Conn
	total := cacheKiB(t, s.writer)
	for range readerIdle + 2 {
		c, err := s.reader.Conn(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
	}
	for _, c := range conns {
		c.Close()
	}
	if got := s.reader.Stats().Idle; got != readerIdle {
		t.Fatalf("%d idle readers, want %d", got, readerIdle)
	}
	conns = conns[:0]
	for range readerIdle {
		c, err := s.reader.Conn(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		conns = append(conns, c)
		total += cacheKiB(t, c)
	}
	for _, c := range conns {
		c.Close()
	}
	if total > maxServerCacheKiB {
		t.Errorf("the writer and %d idle readers keep %d KiB of page cache, want at most %d", readerIdle, total, maxServerCacheKiB)
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

// A run of writes (WriteRun, the daily cleanup's pages) has the writer's
// larger cache from its start until its last end, across transactions
// and around a bulk write's; then the writer's cache is back to the size
// a server keeps.
func TestWriteRunEnlargesTheWritersCacheUntilItEnds(t *testing.T) {
	t.Parallel()
	s, err := Open(t.Context(), filepath.Join(t.TempDir(), "c.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	want := func(what string, kib int) {
		t.Helper()
		if got := cacheKiB(t, s.writer); got != kib {
			t.Errorf("%s: writer's cache_size %d KiB, want %d", what, got, kib)
		}
	}
	end := s.WriteRun(t.Context())
	want("in a run", writerRunCacheKiB)
	err = s.Update(t.Context(), func(tx cairn.Tx) error {
		if got := cacheKiB(t, tx.(*Tx).tx); got != writerRunCacheKiB {
			t.Errorf("a transaction of the run: cache_size %d KiB, want %d", got, writerRunCacheKiB)
		}
		return tx.(*Tx).Bulk(t.Context())
	})
	if err != nil {
		t.Fatal(err)
	}
	want("after a bulk transaction in a run", writerRunCacheKiB)
	inner := s.WriteRun(t.Context())
	inner()
	inner() // a second call does nothing
	want("after an overlapping run ended", writerRunCacheKiB)
	end()
	want("after the run", writerCacheKiB)
	end()
	want("after a second end", writerCacheKiB)
	if writerCacheKiB >= writerRunCacheKiB {
		t.Errorf("a run's cache (%d KiB) is not larger than the usual one (%d KiB)", writerRunCacheKiB, writerCacheKiB)
	}
}
