package cairn

import (
	"context"
	"time"
)

// Write statuses: what a write did.
const (
	StatusCreated    = "created"    // a new memory was stored
	StatusUpdated    = "updated"    // an existing memory was changed (same key, or an edit)
	StatusReinforced = "reinforced" // the same content was already stored; its use count and confidence rose
	StatusUnchanged  = "unchanged"  // nothing needed to change (e.g. re-importing the same memory)
)

// WriteResult is the outcome of a write: the memory as stored, and what
// happened to it.
type WriteResult struct {
	Memory *Memory
	Status string
}

// MemoryUpdate changes some fields of a memory; nil fields are left as
// they are.
type MemoryUpdate struct {
	Type         *string
	Key          *string
	Title        *string
	Content      *string
	Tags         *[]string
	FileRefs     *[]string
	Confidence   *float64
	Scope        *Scope
	Pinned       *bool
	SupersededBy *string
	ExpiresAt    *time.Time
	VerifiedAt   *time.Time
	Agent        *string
	Hat          *string
	TaskID       *string
	SessionID    *string

	// IfContent, when set, makes the update conditional: it applies only
	// while the stored content is exactly this text, and otherwise fails
	// with ECONFLICT and changes nothing. A read-modify-write (an edit of
	// a file of the memory tool, say) passes the content it read, so that
	// a concurrent writer's change is never overwritten unseen.
	IfContent *string
}

// ImportOptions tune an import.
type ImportOptions struct {
	// Project is used for records that name none.
	Project string
	// SkipInvalid imports the valid records and reports the others; without
	// it, one invalid record aborts the import and nothing is written.
	SkipInvalid bool
}

// ImportRecord is one record read from an import source: the memory, or
// why it could not be read, and where it came from.
type ImportRecord struct {
	Line   int // 1-based line (JSON Lines) or element number (export document)
	Memory *Memory
	Err    error
}

// ImportProblem is a record that was not imported.
type ImportProblem struct {
	Line    int    `json:"line"`
	Message string `json:"message"`
}

// ImportReport says what an import did.
type ImportReport struct {
	Read       int             `json:"read"`
	Created    int             `json:"created"`
	Updated    int             `json:"updated"`
	Reinforced int             `json:"reinforced"`
	Unchanged  int             `json:"unchanged"`
	Skipped    []ImportProblem `json:"skipped"`
}

// Stats describe a project's memories.
type Stats struct {
	Project     string
	Total       int
	ByType      map[string]int
	GlobalTotal int // global-scope memories visible to the project
	IndexTerms  int64
	IndexDocs   int64
	DeadDocs    int64
}

// Service is what transports (CLI, HTTP, MCP) call. Implementations are
// safe for concurrent use; each method is atomic.
type Service interface {
	// AddMemory stores m. With a Key, an existing memory of the same
	// project, type and key is updated instead (confidence never goes
	// down). Without one, content equal (after white-space
	// normalisation) to a live memory of the project reinforces that
	// memory instead of adding a copy. EINVALID for bad input.
	AddMemory(ctx context.Context, m *Memory) (*WriteResult, error)
	// CreateMemory stores m as a new memory and nothing else: when a
	// memory of the same project, type and key exists, it fails with
	// ECONFLICT and changes nothing (the check and the write are one
	// transaction). Content equal to another memory's is stored all the
	// same. m needs a Key.
	CreateMemory(ctx context.Context, m *Memory) (*WriteResult, error)
	// FindMemoryByID returns a memory by id, or by a unique id prefix of at
	// least 6 characters. ENOTFOUND, or EINVALID for an ambiguous prefix.
	FindMemoryByID(ctx context.Context, id string) (*Memory, error)
	// FindMemories lists memories; see MemoryFilter.
	FindMemories(ctx context.Context, f MemoryFilter) ([]*Memory, int, error)
	// UpdateMemory applies upd to the memory. ENOTFOUND, EINVALID.
	UpdateMemory(ctx context.Context, id string, upd MemoryUpdate) (*Memory, error)
	// DeleteMemory removes a memory. ENOTFOUND.
	DeleteMemory(ctx context.Context, id string) error
	// Search ranks memories for q; see Query.
	Search(ctx context.Context, q Query) ([]Hit, error)
	// Stats describes a project's memories.
	Stats(ctx context.Context, project string) (*Stats, error)
}
