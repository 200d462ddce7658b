package sqlite

import (
	"context"
	"sync"

	"github.com/cairn-dev/cairn"
)

// The SQLite backend has every optional capability of the store contract.

// SupportsDataVersion implements cairn.Store: see DataVersion.
func (s *Store) SupportsDataVersion() bool { return true }

// SupportsCheckpoint implements cairn.Store: see Checkpoint.
func (s *Store) SupportsCheckpoint() bool { return true }

// SupportsVectors implements cairn.Store: the store keeps vectors.
func (s *Store) SupportsVectors() bool { return true }

// Vectors implements cairn.Store: the store is its own VectorStore.
func (s *Store) Vectors() cairn.VectorStore { return s }

// WriteRun implements cairn.Store: until end is called, the writer's page
// cache may hold writerRunCacheKiB instead of writerCacheKiB, so that the
// transactions of the run find the pages the ones before read. When the
// last run under way ends, the cache returns to its usual size and the
// pages go back to the allocator. A failure to resize leaves the cache as
// it was: a slower run, not a wrong one.
func (s *Store) WriteRun(ctx context.Context) (end func()) {
	if s.readOnly || s.writer == nil {
		return func() {}
	}
	s.runMu.Lock()
	s.runs++
	if s.runs == 1 {
		s.writer.ExecContext(ctx, "PRAGMA "+cacheSize(writerRunCacheKiB))
	}
	s.runMu.Unlock()
	var once sync.Once
	return func() {
		once.Do(func() {
			s.runMu.Lock()
			defer s.runMu.Unlock()
			s.runs--
			if s.runs == 0 {
				s.writer.ExecContext(context.WithoutCancel(ctx), "PRAGMA "+cacheSize(writerCacheKiB))
			}
		})
	}
}

// writerKiB is the writer's usual page cache, in KiB: writerRunCacheKiB
// during a run of writes, else writerCacheKiB. The caller holds runMu.
func (s *Store) writerKiB() int {
	if s.runs > 0 {
		return writerRunCacheKiB
	}
	return writerCacheKiB
}

// SupportsBulk implements cairn.Tx: see Bulk.
func (t *Tx) SupportsBulk() bool { return true }

// SupportsTouchEach implements cairn.Tx: see TouchEach.
func (t *Tx) SupportsTouchEach() bool { return true }

// SupportsUseQueue implements cairn.Tx: see QueueUses.
func (t *Tx) SupportsUseQueue() bool { return true }

// SupportsIterations implements cairn.Tx: the store keeps iterations.
func (t *Tx) SupportsIterations() bool { return true }

// Iterations implements cairn.Tx: the transaction is its own IterationTx.
func (t *Tx) Iterations() cairn.IterationTx { return t }
