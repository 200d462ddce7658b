package cairn

import (
	"context"
	"io"
)

// ContextBlockService builds context blocks where the memories are.
type ContextBlockService interface {
	// Context builds the block of call with the project's settings (those
	// stored for it, else the answering process's own), at call.Now (zero:
	// the service's clock), and records the use of the memories it shows
	// when call.Record. A call that the settings cannot serve (an unknown
	// profile, mode or format, a negative budget, no block within
	// call.MaxJSONChars) is EINVALID. A block returned with an error means
	// that only the recording of its use failed: the block is right, its
	// bookkeeping is not.
	Context(ctx context.Context, call ContextCall) (*ContextBlock, error)
}

// LookupService answers lookups by name (a file, an error, a command)
// where the memories are.
type LookupService interface {
	// Lookup answers req in the service's project (req.Project is set to
	// it): EINVALID for an unknown kind or profile, an empty subject, or a
	// limit or budget out of range. When req.Record asks, the use of what
	// the answer shows is recorded in req.Session; an answer returned with
	// an error means that only that recording failed.
	Lookup(ctx context.Context, req LookupRequest) (*LookupAnswer, error)
}

// LoopService is iteration memory for agent loops (seed 003), one call
// per operation, in the service's project. The policy and tiers travel
// with each call, so that a server answers by its caller's settings.
type LoopService interface {
	// LoopRecord stores one finished iteration: its outcome and metrics,
	// its failure report and every signal of its result. EINVALID for a
	// bad record (nothing is stored).
	LoopRecord(ctx context.Context, r LoopRecord) (*LoopRecorded, error)
	// LoopContext renders the block of the next iteration on a task.
	// EINVALID without a task.
	LoopContext(ctx context.Context, req LoopContextRequest) (*LoopContext, error)
	// LoopModel picks the model tier of the next attempt at task.
	LoopModel(ctx context.Context, task string, tiers []string, p LoopPolicy) (*LoopChoice, error)
	// LoopStatus lists the project's tasks and flags those that need a
	// person.
	LoopStatus(ctx context.Context, p LoopPolicy) ([]TaskState, error)
	// LoopPrune archives the failure reports of tasks done long ago and
	// folds old iterations into totals; running it twice does nothing
	// more the second time.
	LoopPrune(ctx context.Context, opts LoopPruneOptions) (*LoopPruned, error)
}

// StreamImportService imports a stream.
type StreamImportService interface {
	// ImportStream imports what r holds, read as `cairn import` reads a
	// file (JSON Lines of memories, or seed 000's export document), in
	// one transaction, as ImportService's Import does; the report's lines
	// are r's.
	ImportStream(ctx context.Context, r io.Reader, opts ImportOptions) (*ImportReport, error)
}

// Subscription is a live stream of a project's events.
type Subscription interface {
	// Events returns the channel the events arrive on, in order, each
	// once. It is closed when the subscription ends: its context ended,
	// Close was called, or the source failed (Err says which).
	Events() <-chan Event
	// Err is why the channel was closed: nil when the context ended or
	// Close was called. Read it once the channel is closed.
	Err() error
	// Seq is where to resume: every event of the project with a Seq up
	// to this one has been received from the channel (or came before the
	// subscription's start).
	Seq() int64
	// Close ends the subscription; its channel is closed soon after.
	Close()
}

// EventService streams the writes of a project as they are made (how
// parallel agents learn from each other as they work).
type EventService interface {
	// Subscribe streams the events of the service's project with a Seq
	// greater than after, in Seq order, each once: first those already
	// stored, then each new one as it is written; after < 0 means from
	// now. The subscription ends when ctx ends or Close is called.
	// EINVALID for an after beyond the newest stored event (the database
	// was replaced).
	Subscribe(ctx context.Context, after int64) (Subscription, error)
}

// App is the whole surface of one project that cairn's transports use:
// the CLI's commands, the hooks, the MCP server, the REST API and the web
// page. It has two implementations, which behave alike: package local,
// the engine, retrieval and loop of this process, and package client,
// the HTTP client of a server that runs package local. Each is bound to
// one project: ids are looked up in that project and among the
// global-scope memories only, and a lookup, a block or a loop operation
// is the project's. Lookups, blocks and loop operations run where the
// memories are: a client sends each to the server, which answers with its
// own local surface, so a command behaves the same either way (what a
// client gets back carries the fields of the REST API's JSON: a lookup's
// memories their shown fields, a loop choice its task's counts without
// the iterations). Implementations are safe for concurrent use.
//
// Access tokens are administered through the surface too (TokenService),
// but a server answers that part only on its Unix socket, to the
// database's owner: never to a client that reaches it over the network.
type App interface {
	Service
	SearchService
	ActivityService
	LifecycleService
	SupersedeService
	TypeService
	VectorCoverageService
	IngestService
	IngestBatchService
	StreamImportService
	CaptureService
	TaskService
	UseRecorder
	SettingsService
	ContextBlockService
	LookupService
	LoopService
	EventService
	ConflictService
	ValueRecallService
	OverviewService
	TokenService
	// Clock: the request's clock when one was given (--now, Cairn-Now),
	// else the machine's (a client) or the engine's.
	Clock
	// Named is the same surface bound to project instead (an ingest of
	// every project's transcripts stores each in its own project).
	Named(project string) App
}
