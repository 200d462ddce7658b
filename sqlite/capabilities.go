package sqlite

import "github.com/cairn-dev/cairn"

// The SQLite backend has every optional capability of the store contract.

// SupportsDataVersion implements cairn.Store: see DataVersion.
func (s *Store) SupportsDataVersion() bool { return true }

// SupportsCheckpoint implements cairn.Store: see Checkpoint.
func (s *Store) SupportsCheckpoint() bool { return true }

// SupportsVectors implements cairn.Store: the store keeps vectors.
func (s *Store) SupportsVectors() bool { return true }

// Vectors implements cairn.Store: the store is its own VectorStore.
func (s *Store) Vectors() cairn.VectorStore { return s }

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
