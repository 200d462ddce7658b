package postgres

import (
	"context"
	"time"

	"github.com/cairn-dev/cairn"
)

// The PostgreSQL backend reports its data version (through LISTEN and
// NOTIFY), keeps vectors and iterations; it has no log to checkpoint (the
// server manages its own), no transaction needs preparing for an import
// (bulk creation streams by itself, see stream.go), a batch of uses is
// written through TouchMemories, and a long-lived process's uses are
// queued (QueueUses, FoldUses in uses.go).

// SupportsDataVersion implements cairn.Store: see DataVersion.
func (s *Store) SupportsDataVersion() bool { return true }

// SupportsCheckpoint implements cairn.Store: there is nothing to do.
func (s *Store) SupportsCheckpoint() bool { return false }

// Checkpoint implements cairn.Store: unsupported.
func (s *Store) Checkpoint(context.Context) error { return unsupported("Checkpoint") }

// WriteRun implements cairn.Store: there is nothing to prepare.
func (s *Store) WriteRun(context.Context) (end func()) { return func() {} }

// SupportsVectors implements cairn.Store: the store keeps vectors.
func (s *Store) SupportsVectors() bool { return true }

// Vectors implements cairn.Store: the store is its own VectorStore.
func (s *Store) Vectors() cairn.VectorStore { return s }

// SupportsBulk implements cairn.Tx: there is nothing to prepare.
func (t *Tx) SupportsBulk() bool { return false }

// Bulk implements cairn.Tx: unsupported.
func (t *Tx) Bulk(context.Context) error { return unsupported("Bulk") }

// SupportsTouchEach implements cairn.Tx: uses go through TouchMemories.
func (t *Tx) SupportsTouchEach() bool { return false }

// TouchEach implements cairn.Tx: unsupported.
func (t *Tx) TouchEach(context.Context, []string, []time.Time, float64, float64) (map[string]string, error) {
	return nil, unsupported("TouchEach")
}

// SupportsUseQueue implements cairn.Tx: see QueueUses.
func (t *Tx) SupportsUseQueue() bool { return true }

// SupportsIterations implements cairn.Tx: the store keeps iterations.
func (t *Tx) SupportsIterations() bool { return true }

// Iterations implements cairn.Tx: the transaction is its own IterationTx.
func (t *Tx) Iterations() cairn.IterationTx { return t }

func unsupported(method string) error {
	return cairn.Errorf(cairn.EINTERNAL, "the PostgreSQL backend does not support %s (ask its Supports method first)", method)
}
