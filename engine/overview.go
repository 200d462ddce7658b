package engine

import (
	"context"
	"time"

	"github.com/cairn-dev/cairn"
)

// What describes a project as a whole: its counts, for a person looking at
// it (cairn stats, the web page's charts) and the memory index.

// Stats implements cairn.Service.
func (e *Engine) Stats(ctx context.Context, project string) (*cairn.Stats, error) {
	if !cairn.ValidProject(project) {
		return nil, cairn.Errorf(cairn.EINVALID, "project %q is not valid", project)
	}
	st := &cairn.Stats{Project: project}
	err := e.store.View(ctx, func(tx cairn.Tx) error {
		var err error
		if st.ByType, err = tx.CountByType(ctx, project); err != nil {
			return err
		}
		for _, n := range st.ByType {
			st.Total += n
		}
		ps, err := tx.Partition(ctx, project)
		if err != nil {
			return err
		}
		st.IndexDocs, st.DeadDocs = ps.Docs, ps.DeadDocs
		g, err := tx.Partition(ctx, "")
		if err != nil {
			return err
		}
		st.GlobalTotal = int(g.Docs)
		return nil
	})
	return st, err
}

// Projects implements cairn.OverviewService.
func (e *Engine) Projects(ctx context.Context) ([]cairn.ProjectSummary, error) {
	var out []cairn.ProjectSummary
	err := e.store.View(ctx, func(tx cairn.Tx) error {
		var err error
		out, err = tx.FindProjects(ctx)
		return err
	})
	if err != nil || e.project == "" {
		return out, err
	}
	for _, p := range out {
		if p.Name == e.project {
			return []cairn.ProjectSummary{p}, nil
		}
	}
	return nil, nil
}

// CountCreated implements cairn.OverviewService.
func (e *Engine) CountCreated(ctx context.Context, project string, from time.Time, step time.Duration) ([]cairn.CreatedCount, error) {
	if !cairn.ValidProject(project) {
		return nil, cairn.Errorf(cairn.EINVALID, "project %q is not valid", project)
	}
	if step <= 0 {
		return nil, cairn.Errorf(cairn.EINVALID, "the period of a count must be positive, not %v", step)
	}
	var out []cairn.CreatedCount
	err := e.store.View(ctx, func(tx cairn.Tx) error {
		var err error
		out, err = tx.CountCreated(ctx, project, from, step)
		return err
	})
	return out, err
}
