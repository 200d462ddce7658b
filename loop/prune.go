package loop

import (
	"context"
	"time"

	"github.com/cairn-dev/cairn"
)

// PruneOptions say what is old. Zero values mean the defaults.
type PruneOptions struct {
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

// Pruned is what Prune did.
type Pruned struct {
	Archived   []string // ids of the failure reports archived
	Aggregated int      // iterations folded into totals
}

// Prune archives the failure reports of tasks done long ago and folds old
// iterations into totals. Learnings are memories: superseded and expired
// ones are handled by cairn cleanup like any other. Running it twice does
// nothing more the second time.
func Prune(ctx context.Context, svc Service, project string, opts PruneOptions) (*Pruned, error) {
	if opts.ArchiveAfter <= 0 {
		opts.ArchiveAfter = 30 * 24 * time.Hour
	}
	if opts.AggregateAfter <= 0 {
		opts.AggregateAfter = 90 * 24 * time.Hour
	}
	if opts.Now.IsZero() {
		opts.Now = svc.Now()
	}
	states, err := Status(ctx, svc, project, Policy{})
	if err != nil {
		return nil, err
	}
	out := &Pruned{}
	now := opts.Now.UTC()
	for _, st := range states {
		if !st.Done || now.Sub(st.LastAt) < opts.ArchiveAfter {
			continue
		}
		for _, it := range st.Recent {
			if it.FailureID == "" {
				continue
			}
			m, err := svc.FindMemoryByID(ctx, it.FailureID)
			if err != nil {
				if cairn.ErrorCode(err) == cairn.ENOTFOUND {
					continue // deleted by hand
				}
				return nil, err
			}
			if !m.Live(now) {
				continue
			}
			if _, err := svc.UpdateMemory(ctx, m.ID, cairn.MemoryUpdate{ExpiresAt: &now}); err != nil {
				return nil, err
			}
			out.Archived = append(out.Archived, m.ID)
		}
	}
	n, err := svc.AggregateIterations(ctx, project, now.Add(-opts.AggregateAfter))
	if err != nil {
		return nil, err
	}
	out.Aggregated = n
	return out, nil
}
