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

// week is the period CreatedByWeek counts by.
const week = 7 * 24 * time.Hour

// CreatedByWeek implements cairn.OverviewService for the engine's
// project (WithProject): EINVALID when it is bound to none.
func (e *Engine) CreatedByWeek(ctx context.Context, weeks int) ([]cairn.CreatedPeriod, error) {
	if weeks < 1 || weeks > cairn.MaxCreatedWeeks {
		return nil, cairn.Errorf(cairn.EINVALID, "weeks must be from 1 to %d, not %d", cairn.MaxCreatedWeeks, weeks)
	}
	if !cairn.ValidProject(e.project) {
		return nil, cairn.Errorf(cairn.EINVALID, "project %q is not valid", e.project)
	}
	now := e.Now().UTC()
	day := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	monday := day.AddDate(0, 0, -((int(day.Weekday()) + 6) % 7))
	from := monday.AddDate(0, 0, -7*(weeks-1))
	var counts []cairn.CreatedCount
	err := e.store.View(ctx, func(tx cairn.Tx) error {
		var err error
		counts, err = tx.CountCreated(ctx, e.project, from, week)
		return err
	})
	if err != nil {
		return nil, err
	}
	out := make([]cairn.CreatedPeriod, weeks)
	for i := range out {
		start := from.AddDate(0, 0, 7*i)
		out[i] = cairn.CreatedPeriod{Start: start, End: start.AddDate(0, 0, 7), ByType: map[string]int{}}
	}
	for _, c := range counts {
		if c.Period >= 0 && c.Period < weeks {
			out[c.Period].ByType[c.Type] += c.Count
		}
	}
	return out, nil
}
