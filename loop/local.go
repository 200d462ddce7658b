package loop

import (
	"context"

	"github.com/cairn-dev/cairn"
)

// Local runs the loop operations of cairn.LoopService but LoopContext
// (package recall builds that block; local.Project puts the two
// together) over a Service, for one project.
type Local struct {
	Svc     Service
	Project string
}

// LoopRecord implements cairn.LoopService.
func (l Local) LoopRecord(ctx context.Context, r cairn.LoopRecord) (*cairn.LoopRecorded, error) {
	r.Project = l.Project
	return RecordIteration(ctx, l.Svc, r)
}

// LoopModel implements cairn.LoopService.
func (l Local) LoopModel(ctx context.Context, task string, tiers []string, p cairn.LoopPolicy) (*cairn.LoopChoice, error) {
	return ChooseModel(ctx, l.Svc, l.Project, task, tiers, p)
}

// LoopStatus implements cairn.LoopService.
func (l Local) LoopStatus(ctx context.Context, p cairn.LoopPolicy) ([]cairn.TaskState, error) {
	return Status(ctx, l.Svc, l.Project, p)
}

// LoopPrune implements cairn.LoopService.
func (l Local) LoopPrune(ctx context.Context, opts cairn.LoopPruneOptions) (*cairn.LoopPruned, error) {
	return Prune(ctx, l.Svc, l.Project, opts)
}
