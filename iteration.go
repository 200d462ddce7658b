package cairn

import (
	"context"
	"time"
	"unicode/utf8"
)

// Outcomes of an agent-loop iteration (seed 003).
const (
	OutcomeDone     = "done"      // the task was completed (the agent said so)
	OutcomeFailed   = "failed"    // the agent said the task failed
	OutcomeNoSignal = "no-signal" // the agent ended without saying either
)

// ValidOutcome reports whether o is one of the outcomes above.
func ValidOutcome(o string) bool {
	return o == OutcomeDone || o == OutcomeFailed || o == OutcomeNoSignal
}

// Iteration is one run of an agent on one task in an agent loop: seed
// 003's iteration outcome and strategy metrics in one row. What the
// iteration learned is stored as memories (a failure report, learnings),
// which other agents find like any other; FailureID links the row to its
// failure report.
type Iteration struct {
	Project    string
	Run        string // the loop run it belongs to; "" when the loop names none
	Task       string // the task's id in the loop
	Iteration  int    // the loop's iteration number, from 1
	Model      string // the model (or tier) that ran it, e.g. "sonnet"
	Outcome    string // OutcomeDone, OutcomeFailed or OutcomeNoSignal
	DurationMS int64
	CostUSD    float64
	Difficulty string // "easy", "medium", "hard" or "" (the agent's estimate)
	FailureID  string // the id of the failure report memory; "" when done
	Summary    string // the start of the agent's result, at most MaxIterationSummary bytes
	CreatedAt  time.Time
}

// Check reports, as EINVALID, what makes it an iteration no store keeps:
// no project or task, a number below 1, an unknown outcome or difficulty,
// a negative duration or cost, a name that is not UTF-8 of at most 200
// bytes. It reads it as given (the engine trims names first).
func (it *Iteration) Check() error {
	switch {
	case it.Project == "":
		return Errorf(EINVALID, "an iteration needs a project")
	case it.Task == "":
		return Errorf(EINVALID, "an iteration needs a task")
	case it.Iteration < 1:
		return Errorf(EINVALID, "iteration %d: iterations are numbered from 1", it.Iteration)
	case !ValidOutcome(it.Outcome):
		return Errorf(EINVALID, "outcome %q: want done, failed or no-signal", it.Outcome)
	case it.Difficulty != "" && it.Difficulty != "easy" && it.Difficulty != "medium" && it.Difficulty != "hard":
		return Errorf(EINVALID, "difficulty %q: want easy, medium or hard", it.Difficulty)
	case it.DurationMS < 0 || it.CostUSD < 0 || it.CostUSD != it.CostUSD:
		return Errorf(EINVALID, "duration and cost cannot be negative")
	}
	for _, s := range []string{it.Project, it.Task, it.Run, it.Model, it.FailureID} {
		if !utf8.ValidString(s) || len(s) > 200 {
			return Errorf(EINVALID, "%.40q: names are valid UTF-8 of at most 200 bytes", s)
		}
	}
	return nil
}

// MaxIterationSummary bounds Iteration.Summary in bytes.
const MaxIterationSummary = 500

// IterationFilter selects iterations of one project.
type IterationFilter struct {
	Project string
	Task    string    // "" for every task
	Since   time.Time // zero for any time; else CreatedAt at or after it
	Limit   int       // 0: no limit
}

// IterationTotals is what old iterations were folded into when they were
// aggregated (see IterationTx.AggregateIterations): one row per project,
// task, model and outcome.
type IterationTotals struct {
	Project, Task, Model, Outcome string
	Count                         int
	DurationMS                    int64
	CostUSD                       float64
	First, Last                   time.Time
}

// IterationTx is the role of a transaction that keeps agent-loop
// iterations: a Tx's Iterations when its SupportsIterations (both of
// cairn's backends do); the engine reports EINVALID for a backend that
// does not.
type IterationTx interface {
	// PutIteration stores it, replacing the iteration with the same
	// project, run, task and iteration number if there is one (recording an
	// iteration again is safe). it.Outcome must be valid.
	PutIteration(ctx context.Context, it *Iteration) error
	// FindIterations returns the iterations matching f, newest first (by
	// CreatedAt, then iteration number, then task).
	FindIterations(ctx context.Context, f IterationFilter) ([]*Iteration, error)
	// AggregateIterations folds the project's iterations created before
	// before into IterationTotals (adding to totals already there) and
	// deletes them, in one step; it returns how many it folded. The
	// failures of a task since its latest done iteration (newest by
	// CreatedAt, then iteration number) are never folded, however old:
	// they are the task's failures in a row, which totals cannot hold.
	AggregateIterations(ctx context.Context, project string, before time.Time) (int, error)
	// FindIterationTotals returns the project's aggregated totals, of one
	// task when task is not "", in no particular order.
	FindIterationTotals(ctx context.Context, project, task string) ([]IterationTotals, error)
}
