package loop

import (
	"context"
	"strings"

	"github.com/cairn-dev/cairn"
)

// Task is what the recorded iterations say about one task before its
// next iteration: its state, the model chosen for it, and the number of
// the iteration about to run.
type Task struct {
	State     cairn.TaskState
	Choice    cairn.LoopChoice
	Iteration int
	// Policy is the policy the state was read with, defaults filled in.
	Policy cairn.LoopPolicy
	// Recorded reports whether the project has iterations the choice read
	// (the task's own, or others' recent ones).
	Recorded bool
}

// LoadTask reads the task's iterations and chooses its model, as
// ChooseModel does; iteration is the iteration about to run (0: one after
// the project's latest recorded).
func LoadTask(ctx context.Context, svc Service, project, task string, iteration int, tiers []string, p cairn.LoopPolicy) (*Task, error) {
	p = withDefaults(p)
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
