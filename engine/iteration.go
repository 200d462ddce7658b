package engine

import (
	"context"
	"strings"
	"time"

	"github.com/cairn-dev/cairn"
)

// iterationTx is tx's iteration role, or EINVALID for a backend without
// one.
func iterationTx(tx cairn.Tx) (cairn.IterationTx, error) {
	if !tx.SupportsIterations() {
		return nil, cairn.Errorf(cairn.EINVALID, "this storage backend does not keep agent-loop iterations")
	}
	return tx.Iterations(), nil
}

// PutIteration validates and stores one agent-loop iteration, replacing
// the one with the same project, run, task and iteration number (so that
// recording an iteration again is safe). The project, task and outcome are
// required; the iteration number is at least 1; the difficulty is "",
// easy, medium or hard; the summary is cut to cairn.MaxIterationSummary
// bytes; a zero CreatedAt becomes now. EINVALID names what is wrong.
func (e *Engine) PutIteration(ctx context.Context, it *cairn.Iteration) error {
	if err := e.normalizeIteration(it); err != nil {
		return err
	}
	return e.store.Update(ctx, func(tx cairn.Tx) error {
		itx, err := iterationTx(tx)
		if err != nil {
			return err
		}
		return itx.PutIteration(ctx, it)
	})
}

func (e *Engine) normalizeIteration(it *cairn.Iteration) error {
	it.Project, it.Task, it.Run = strings.TrimSpace(it.Project), strings.TrimSpace(it.Task), strings.TrimSpace(it.Run)
	it.Model, it.Difficulty = strings.TrimSpace(it.Model), strings.ToLower(strings.TrimSpace(it.Difficulty))
	if e.project != "" && it.Project != e.project {
		return cairn.Errorf(cairn.EINVALID, "an iteration of project %q cannot be recorded from project %q", it.Project, e.project)
	}
	if err := it.Check(); err != nil {
		return err
	}
	it.Summary = strings.ToValidUTF8(it.Summary, "")
	if e.redact != nil {
		it.Summary = e.redact(it.Summary)
	}
	it.Summary = cutBytes(it.Summary, cairn.MaxIterationSummary)
	if it.CreatedAt.IsZero() {
		it.CreatedAt = e.Now()
	}
	it.CreatedAt = it.CreatedAt.UTC().Truncate(time.Millisecond)
	return nil
}

// cutBytes cuts s to at most n bytes at a rune boundary, ending with "…"
// when it was cut.
func cutBytes(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) <= n {
		return s
	}
	return strings.TrimSpace(cairn.CutBytes(s, n-len("…"))) + "…"
}

// FindIterations returns the iterations matching f, newest first. With an
// engine serving one project (WithProject), f.Project must be that project.
func (e *Engine) FindIterations(ctx context.Context, f cairn.IterationFilter) ([]*cairn.Iteration, error) {
	if e.project != "" && f.Project != e.project {
		return nil, cairn.Errorf(cairn.EINVALID, "iterations of project %q cannot be read from project %q", f.Project, e.project)
	}
	var out []*cairn.Iteration
	err := e.store.View(ctx, func(tx cairn.Tx) error {
		itx, err := iterationTx(tx)
		if err != nil {
			return err
		}
		out, err = itx.FindIterations(ctx, f)
		return err
	})
	return out, err
}

// IterationTotals returns the project's aggregated iteration totals, of
// one task when task is not "".
func (e *Engine) IterationTotals(ctx context.Context, project, task string) ([]cairn.IterationTotals, error) {
	if e.project != "" && project != e.project {
		return nil, cairn.Errorf(cairn.EINVALID, "iterations of project %q cannot be read from project %q", project, e.project)
	}
	var out []cairn.IterationTotals
	err := e.store.View(ctx, func(tx cairn.Tx) error {
		itx, err := iterationTx(tx)
		if err != nil {
			return err
		}
		out, err = itx.FindIterationTotals(ctx, project, task)
		return err
	})
	return out, err
}

// AggregateIterations folds the project's iterations created before
// before into totals and deletes them, in one transaction; it returns how
// many it folded.
func (e *Engine) AggregateIterations(ctx context.Context, project string, before time.Time) (int, error) {
	if e.project != "" && project != e.project {
		return 0, cairn.Errorf(cairn.EINVALID, "iterations of project %q cannot be changed from project %q", project, e.project)
	}
	var n int
	err := e.store.Update(ctx, func(tx cairn.Tx) error {
		itx, err := iterationTx(tx)
		if err != nil {
			return err
		}
		n, err = itx.AggregateIterations(ctx, project, before)
		return err
	})
	return n, err
}
