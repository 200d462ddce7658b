package cairn

import (
	"context"
	"iter"
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

// The services below are what transports need besides Service, each a
// small contract of its own, so that a transport names what it calls.
// engine.Engine implements them all; bound to a project
// (engine.Engine.WithProject), it looks ids up in that project and among
// global-scope memories only. Implementations are safe for concurrent
// use.

// ActivityService reads the activity log.
type ActivityService interface {
	// FindActivity lists what happened to memories, newest first, and how
	// many entries match in all (0 with SkipTotal). f.Project is required
	// (EINVALID without it).
	FindActivity(ctx context.Context, f ActivityFilter) ([]Activity, int, error)
}

// LifecycleService runs the lifecycle of a project's memories.
type LifecycleService interface {
	// Maintain decays unused memories and removes expired and low-value
	// ones of project: a dry run that changes nothing unless apply; the
	// report says what was (or would be) done. One transaction: a
	// cancelled run changes nothing.
	Maintain(ctx context.Context, project string, apply bool) (*MaintenanceReport, error)
}

// ImportService reads memories in bulk.
type ImportService interface {
	// Import stores records in one transaction: with opts.SkipInvalid the
	// valid ones (the others reported in ImportReport.Skipped), else all
	// or, at the first invalid record, none (EINVALID naming its line). A
	// given id, project and created_at are kept; the same memory
	// imported again is unchanged. The records are read as they are
	// stored: the sequence may stream a large file.
	Import(ctx context.Context, records iter.Seq[ImportRecord], opts ImportOptions) (*ImportReport, error)
}

// UseRecorder records what a context showed.
type UseRecorder interface {
	// RecordUse records that a context block showed the memories ids in
	// session: their use counts and last use rise, and their confidence a
	// little. Unknown ids are skipped. The caller of a context decides
	// whether its use is recorded (a dry run records nothing); a
	// long-running server may batch these writes.
	RecordUse(ctx context.Context, ids []string, session string) error
}
