package cairn

import "time"

// Iteration memory for agent loops (seed 003), one call per operation
// (LoopService): the types a loop operation takes and answers, the same
// in the process that holds the memories and over the REST API.

// LoopRecord is one finished iteration, as the loop saw it.
type LoopRecord struct {
	Project    string
	Run        string // the loop run, when the loop names one
	Task       string // required
	Iteration  int    // the loop's iteration number, from 1
	Model      string
	Outcome    string // OutcomeDone, OutcomeFailed or OutcomeNoSignal
	DurationMS int64
	CostUSD    float64
	Result     string // the agent's final output: its signals are read
	Agent      string // e.g. "claude"; provenance of what is stored
	Session    string // the agent session, when known
	// SummarizeAfter: once more than this many live loop learnings of one
	// type are about one file (or this task), they are summarised; 0
	// means the default (5).
	SummarizeAfter int
	Now            time.Time
}

// SignalProblem is a signal of an agent's output that could not be read.
type SignalProblem struct {
	Line   int
	Text   string // the line, trimmed and shortened
	Reason string
}

// LoopRecorded is what recording an iteration stored.
type LoopRecorded struct {
	Iteration Iteration
	// Memories are the memories written from the result's signals and the
	// failure report, with their write status (created, reinforced, …).
	Memories []*WriteResult
	// Problems are the malformed signals of the result: none is dropped
	// silently, and none stops the others from being stored.
	Problems []SignalProblem
	// MinimalReport is true when the failure report was made from the
	// result text because the agent wrote none.
	MinimalReport bool
	// Summaries are the summaries written because the learnings about one
	// file or task grew beyond LoopRecord.SummarizeAfter.
	Summaries []*WriteResult
}

// LoopPolicy holds the thresholds of the escalation lifecycle. The zero
// value means the defaults below.
type LoopPolicy struct {
	// EscalateAfter consecutive failures on a task, the next attempt runs
	// one tier up (default 2).
	EscalateAfter int
	// StuckAfter consecutive failures, the task is stuck: the context
	// carries the Stuck Loop Warning with a decomposition suggestion, and
	// the most capable tier runs it (default 3).
	StuckAfter int
	// ReviewAfter consecutive failures, the task is flagged for a person
	// (default 5).
	ReviewAfter int
	// RecentWindow is how many of the project's latest iterations make the
	// recent success rate (default 10).
	RecentWindow int
}

// LoopContextRequest asks for the memory of the next iteration on a
// task.
type LoopContextRequest struct {
	Project     string
	Task        string // required
	Title       string // the task's title, when the loop has one
	Description string
	Files       []string // files the task is about
	// Budget is the most characters of the whole text; 0 means
	// DefaultLoopBudget.
	Budget    int
	Iteration int      // the iteration about to run; 0: one after the latest recorded
	Tiers     []string // for the model choice shown in Loop Status
	Policy    LoopPolicy
	Format    string // markdown, xml or json; "" is markdown
	// Root is the project's folder: a learning whose files changed there
	// since it was written or verified is marked possibly stale and counts
	// for half, as in every context block; "" checks nothing.
	Root    string
	Explain bool
	Now     time.Time
}

// DefaultLoopBudget is the character budget of a loop context when none
// is given.
const DefaultLoopBudget = 4000

// LoopContext is the block of the next iteration on a task.
type LoopContext struct {
	Text    string   // the rendered block; "" when nothing is recorded or relevant
	IDs     []string // the memories it shows, in block order
	Explain string   // when LoopContextRequest.Explain
	Choice  *LoopChoice
}

// TaskState is what the recorded iterations say about one task.
type TaskState struct {
	Task     string
	Attempts int // every recorded attempt, aggregated ones included
	Failures int // failed or signal-less attempts, aggregated ones included
	// ConsecutiveFailures counts the failed or signal-less attempts since
	// the task was last done (or since its first attempt).
	ConsecutiveFailures int
	LastOutcome         string
	LastModel           string
	LastAt              time.Time
	Difficulty          string // the latest estimate, "" when none
	Done                bool   // the latest attempt was done
	Stuck               bool   // ConsecutiveFailures reached LoopPolicy.StuckAfter
	Flagged             bool   // ConsecutiveFailures reached LoopPolicy.ReviewAfter
	// Attempts, newest first, of the iterations not yet aggregated.
	Recent []*Iteration
}

// LoopChoice is a model tier picked for the next attempt at a task, and
// why.
type LoopChoice struct {
	Model  string
	Tier   int // its index in the tiers, cheapest 0
	Reason string
	State  TaskState
	// RecentDone and RecentCount are the project's recent success rate
	// that the choice read: done iterations of the latest ones.
	RecentDone, RecentCount int
}

// LoopPruneOptions say what is old. Zero values mean the defaults.
type LoopPruneOptions struct {
	// ArchiveAfter: the failure reports of a task whose latest attempt was
	// done longer ago than this are archived (they expire, so that no
	// context shows them; cleanup removes them later). Default 30 days.
	ArchiveAfter time.Duration
	// AggregateAfter: iterations older than this are folded into totals
	// per task, model and outcome (model choice and status still count
	// them). Default 90 days.
	AggregateAfter time.Duration
	Now            time.Time
}

// LoopPruned is what a prune did.
type LoopPruned struct {
	Archived   []string // ids of the failure reports archived
	Aggregated int      // iterations folded into totals
}

// Policy is the escalation policy of a [loop] settings table.
func (lc LoopSettings) Policy() LoopPolicy {
	return LoopPolicy{EscalateAfter: lc.EscalateAfter, StuckAfter: lc.StuckAfter, ReviewAfter: lc.ReviewAfter}
}
