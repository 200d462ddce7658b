package loop

import (
	"context"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/contextpack"
)

// ContextRequest asks for the memory of the next iteration on a task
// (package recall builds it: the loop profile of its pipeline).
type ContextRequest struct {
	Project     string
	Task        string // required
	Title       string // the task's title, when the loop has one
	Description string
	Files       []string // files the task is about
	// Budget is the most characters of the whole text; 0 means
	// DefaultBudget.
	Budget    int
	Iteration int      // the iteration about to run; 0: one after the latest recorded
	Tiers     []string // for the model choice shown in Loop Status
	Policy    Policy
	Format    string // contextpack's formats; "" is markdown
	// Root is the project's folder: a learning whose files changed there
	// since it was written or verified is marked possibly stale and counts
	// for half, as in every context block; "" checks nothing.
	Root    string
	Explain bool
	Now     time.Time
}

// DefaultBudget is the character budget of a loop context when none is
// given.
const DefaultBudget = 4000

// Context is a rendered loop context and what it is made of.
type Context struct {
	contextpack.Result
	Choice *Choice
}

// Task is what the recorded iterations say about one task before its
// next iteration: its state, the model chosen for it, and the number of
// the iteration about to run.
type Task struct {
	State     TaskState
	Choice    Choice
	Iteration int
	// Policy is the policy the state was read with, defaults filled in.
	Policy Policy
	// Recorded reports whether the project has iterations the choice read
	// (the task's own, or others' recent ones).
	Recorded bool
}

// LoadTask reads the task's iterations and chooses its model, as
// ChooseModel does; iteration is the iteration about to run (0: one after
// the project's latest recorded).
func LoadTask(ctx context.Context, svc Service, project, task string, iteration int, tiers []string, p Policy) (*Task, error) {
	p = p.withDefaults()
	if len(tiers) == 0 {
		tiers = DefaultTiers
	}
	task = strings.TrimSpace(task)
	st, recent, err := load(ctx, svc, project, task, p)
	if err != nil {
		return nil, err
	}
	similar, err := loadSimilar(ctx, svc, project, st)
	if err != nil {
		return nil, err
	}
	t := &Task{State: st, Choice: choose(st, recent, similar, tiers, p), Iteration: iteration, Policy: p, Recorded: len(recent) > 0}
	if t.Iteration <= 0 {
		t.Iteration = 1
		for _, it := range recent {
			t.Iteration = max(t.Iteration, it.Iteration+1)
		}
	}
	return t, nil
}
