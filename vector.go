package cairn

import "context"

// VectorStore is the role of a Store that also keeps embeddings: vectors of
// memories' content, made by a model through an embeddings endpoint. It is
// optional (a Store's Vectors when its SupportsVectors); a Store without
// it ranks lexically only.
//
// A vector is keyed by the content hash of what was embedded
// (Memory.ContentHash) and the model's name, not by memory: memories with
// the same content share one vector, a memory whose content changes no
// longer has one (its new hash has none) until it is embedded again, and a
// new model's vectors are kept apart from the old one's. Vectors are never
// needed by writes: a memory without one is simply not found by vector
// search until it gets one.
//
// "The memories of project" below means what a search of project sees: the
// project's memories and the global-scope memories of every project; for
// FindUnembedded and CountVectors, project "" means every memory.
//
// Each method runs in its own transaction. A VectorStore is safe for
// concurrent use, like the Store.
type VectorStore interface {
	// PutVectors stores each vector under model and its hash, replacing
	// one stored before. EINVALID for an empty model, hash or vector.
	PutVectors(ctx context.Context, model string, vs []HashVector) error
	// FindVectors returns the stored vectors of model for the given
	// hashes, by hash; hashes without one are left out.
	FindVectors(ctx context.Context, model string, hashes []string) (map[string][]float32, error)
	// FindUnembedded returns up to limit distinct content hashes of the
	// memories of project that have no vector of model, each with that
	// content, in hash order after the hash `after` ("" from the start),
	// so that a caller can page through them and resume.
	FindUnembedded(ctx context.Context, model, project, after string, limit int) ([]HashText, error)
	// ScanMemoryVectors calls fn with every memory of project that has a
	// vector of model, in no particular order; fn's error stops the scan
	// and is returned. The vector passed to fn is fn's to keep.
	ScanMemoryVectors(ctx context.Context, model, project string, fn func(MemoryVector) error) error
	// CountVectors says how many memories of project there are and how
	// many of them have a vector of model.
	CountVectors(ctx context.Context, model, project string) (VectorCount, error)
}

// HashVector is a vector and the content hash it was made from.
type HashVector struct {
	Hash   string
	Vector []float32
}

// HashText is a content hash and the content it is the hash of.
type HashText struct {
	Hash string
	Text string
}

// MemoryVector is the vector of one memory, with what a search needs to
// keep it to its project.
type MemoryVector struct {
	ID      string
	Project string
	Global  bool   // the memory is of global scope
	Hash    string // the content hash the vector was made from
	Vector  []float32
}

// VectorCount is the embedding coverage of a project's memories.
type VectorCount struct {
	Memories int // the memories of the project (with the global-scope ones)
	Embedded int // those with a vector of the model
}
