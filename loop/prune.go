package loop

import (
	"context"
	"time"

	"github.com/cairn-dev/cairn"
)

// Prune archives the failure reports of tasks done long ago and folds old
// iterations into totals. Learnings are memories: superseded and expired
// ones are handled by cairn cleanup like any other. Running it twice does
// nothing more the second time.
func Prune(ctx context.Context, svc Service, project string, opts cairn.LoopPruneOptions) (*cairn.LoopPruned, error) {
	if opts.ArchiveAfter <= 0 {
		opts.ArchiveAfter = 30 * 24 * time.Hour
	}
	if opts.AggregateAfter <= 0 {
		opts.AggregateAfter = 90 * 24 * time.Hour
	}
	if opts.Now.IsZero() {
		opts.Now = svc.Now()
	}
	states, err := Status(ctx, svc, project, cairn.LoopPolicy{})
	if err != nil {
		return nil, err
	}
	out := &cairn.LoopPruned{}
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
