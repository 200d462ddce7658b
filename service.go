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

	// LowerConfidence lets Confidence go below the stored confidence.
	// Without it, an update never lowers a memory's confidence (a lower
	// Confidence is EINVALID): confidence falls only by decay, by a
	// supersede, or by this explicit act.
	LowerConfidence bool

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

// SearchService ranks memories and says how.
type SearchService interface {
	// SearchRetrieval is Service's Search, and how the hits were ranked:
	// the mode asked for, the mode used, and why it fell back to lexical
	// ranking when it did (a vector mode without an endpoint is
	// EINVALID; an endpoint that fails or is too slow falls back).
	// Searching records nothing: the caller of a context records the use
	// of what it shows (UseRecorder).
	SearchRetrieval(ctx context.Context, q Query) ([]Hit, Retrieval, error)
	// ExplainQuery says how a search weighs text's terms and scores its
	// matches. It reads nothing stored.
	ExplainQuery(ctx context.Context, text string) (*QueryExplanation, error)
}

// SupersedeService links memories that replace others.
type SupersedeService interface {
	// AddSuperseding stores m, as Service's AddMemory does, and marks the
	// memory oldID (or a unique prefix of it) as superseded by the memory
	// stored, in one write: if either fails, nothing is written. It
	// returns the replaced memory (a client may know its ID only).
	// ENOTFOUND when oldID does not exist; EINVALID when m folds into
	// oldID itself, or the link would make a loop.
	AddSuperseding(ctx context.Context, m *Memory, oldID string) (*WriteResult, *Memory, error)
	// SupersedeChain returns the memories linked to id (or a unique
	// prefix) by supersede links, followed both ways, each replaced
	// memory before the one that replaces it; a memory in no chain is a
	// chain of one. ENOTFOUND.
	SupersedeChain(ctx context.Context, id string) ([]*Memory, error)
}

// TypeService guards the open set of types.
type TypeService interface {
	// NearType returns the known type one edit away from typ (a likely
	// typo), or "" when typ is known or far from every known type. Known
	// types are those with a policy and those the memories of project
	// have. Transports refuse such a type unless the user confirms it.
	NearType(ctx context.Context, project, typ string) (string, error)
}

// Clock is a service's clock: what a request without a time of its own
// runs at (recency, expiry, the times of what it writes).
type Clock interface {
	// Now is the clock's reading, in UTC, to the millisecond (the
	// precision the stores keep).
	Now() time.Time
}

// VectorCoverageService reports how far embedding has come.
type VectorCoverageService interface {
	// VectorCoverage says how many memories of project (with the
	// global-scope ones) have a vector of the embeddings model; ok is
	// false when the service has no embeddings endpoint or keeps no
	// vectors.
	VectorCoverage(ctx context.Context, project string) (n VectorCount, model string, ok bool, err error)
}

// ContextService finds what a context block chooses from (package recall
// scores, selects and renders it).
type ContextService interface {
	// ContextCandidates reads the memories req asks for, in one read
	// (req.Now zero: the service's clock). It records nothing: the caller
	// records the use of what it shows (UseRecorder) unless it is a dry
	// run. EINVALID for an invalid project, or a search that Search would
	// refuse.
	ContextCandidates(ctx context.Context, req CandidateRequest) (*Candidates, error)
	// NewFromOtherSessions returns what parallel agents learned while
	// session worked: memories of project created by other sessions
	// after session's previous context, newest first, at most limit;
	// none for a session that has had no context yet. It reads only.
	NewFromOtherSessions(ctx context.Context, project, session string, limit int) ([]*Memory, error)
}

// IngestCursor is where the reading of a transcript stopped.
type IngestCursor struct {
	// Source names the transcript as its reader does: the absolute path
	// of the file on the reader's machine.
	Source string
	// Offset is how many bytes of it were read; 0 for a source never read.
	Offset int64
	// Pending is the reader's state to resume with (failures that still
	// wait for their fix), opaque to the service.
	Pending string
}

// IngestService keeps where the reading of each transcript stopped, per
// project, in the database: a transcript read by one process (a hook, a
// client of a server on another machine) is read from there by the next
// one. The memories read go through Service's AddMemory.
type IngestService interface {
	// FindIngestCursor returns the cursor of source in project: Offset 0
	// and no Pending for a source never read there. EINVALID for an
	// empty source or project.
	FindIngestCursor(ctx context.Context, project, source string) (*IngestCursor, error)
	// PutIngestCursor records c as the cursor of c.Source in project,
	// replacing the one there. A reader stores the memories it read
	// first and the cursor after them: a reader stopped in between reads
	// those lines again, and their memories fold into the ones stored
	// (same key, or same content). EINVALID for an empty source or
	// project, or a negative offset.
	PutIngestCursor(ctx context.Context, project string, c IngestCursor) error
}

// IngestBatch is what one read of a transcript taught: its memories in the
// order they were read, and where the read stopped.
type IngestBatch struct {
	Memories []*Memory
	// Cursor, when not nil, is put after the memories are stored, as
	// IngestService's PutIngestCursor does.
	Cursor *IngestCursor
}

// IngestItem is what became of one memory of a batch: Result when it was
// stored, else Err (EINVALID: the service refused it).
type IngestItem struct {
	Result *WriteResult
	Err    error
}

// IngestBatchService stores a batch of an ingest in one call.
type IngestBatchService interface {
	// IngestBatch stores each memory of b in project (its Project field
	// is set to it) as Service's AddMemory does, in order, and then puts
	// b.Cursor, in one transaction: the memories the service accepts and
	// the cursor are written together or not at all. A memory the
	// service refuses as invalid is skipped, its item holding the
	// EINVALID error; any other failure writes nothing and is the call's
	// error. The items follow b.Memories. EINVALID for an empty project,
	// or a cursor PutIngestCursor would refuse (nothing is written).
	IngestBatch(ctx context.Context, project string, b IngestBatch) ([]IngestItem, error)
}

// SettingsService keeps each project's settings (its policy, Settings):
// the command that owns a project's folder writes them from its
// cairn.toml, and every process that answers for the project applies
// them. The engine implements it over a store; the client of a server
// over HTTP.
type SettingsService interface {
	// ProjectSettings returns the settings stored for project; ENOTFOUND
	// when none are (the answering process's own then apply).
	ProjectSettings(ctx context.Context, project string) (*ProjectSettings, error)
	// SetProjectSettings stores ps as project's settings, replacing
	// what was stored. EINVALID for a bad project or settings.
	SetProjectSettings(ctx context.Context, project string, ps *ProjectSettings) error
	// DeleteProjectSettings removes project's stored settings; none is no
	// error.
	DeleteProjectSettings(ctx context.Context, project string) error
}

// ProjectSettings is a project's settings and where they came from.
type ProjectSettings struct {
	Settings *Settings `json:"settings"`
	// Source says where the settings were read from, for people: the
	// files, or "defaults" when the project has none.
	Source string `json:"source,omitempty"`
	// Fingerprint identifies the state of the files the settings were
	// read from (their sizes and times of change), so that the writer
	// can tell whether to write them again.
	Fingerprint string `json:"fingerprint,omitempty"`
	// Folder is the project's folder, as the command that wrote the
	// settings saw it.
	Folder string `json:"folder,omitempty"`
	// UpdatedAt is when they were stored (UTC, to the millisecond); set
	// by the store.
	UpdatedAt time.Time `json:"updated_at,omitzero"`
}
