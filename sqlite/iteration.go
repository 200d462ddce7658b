package sqlite

import (
	"context"
	"database/sql"
	"strings"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/internal/storesql"
)

const iterationColumns = `project, run, task, iteration, model, outcome, duration_ms, cost_usd, difficulty, failure_id, summary, created_at`

const (
	sqlPutIteration = `INSERT INTO iterations(` + iterationColumns + `) VALUES (?,?,?,?,?,?,?,?,?,?,?,?)
ON CONFLICT(project, run, task, iteration) DO UPDATE SET model=excluded.model, outcome=excluded.outcome,
duration_ms=excluded.duration_ms, cost_usd=excluded.cost_usd, difficulty=excluded.difficulty,
failure_id=excluded.failure_id, summary=excluded.summary, created_at=excluded.created_at`
	sqlFoldIterations = `INSERT INTO iteration_totals(project, task, model, outcome, count, duration_ms, cost_usd, first_at, last_at)
SELECT project, task, model, outcome, COUNT(*), SUM(duration_ms), SUM(cost_usd), MIN(created_at), MAX(created_at)
FROM iterations WHERE project = ? AND created_at < ? AND ` + storesql.FoldableIteration + ` GROUP BY project, task, model, outcome
ON CONFLICT(project, task, model, outcome) DO UPDATE SET count = count + excluded.count,
duration_ms = duration_ms + excluded.duration_ms, cost_usd = cost_usd + excluded.cost_usd,
first_at = MIN(first_at, excluded.first_at), last_at = MAX(last_at, excluded.last_at)`
	sqlDeleteOldIterations = `DELETE FROM iterations WHERE project = ? AND created_at < ? AND ` + storesql.FoldableIteration
	sqlFindIterationTotals = `SELECT project, task, model, outcome, count, duration_ms, cost_usd, first_at, last_at
FROM iteration_totals WHERE project = ? AND (? = '' OR task = ?) ORDER BY task, model, outcome`
)

// PutIteration implements cairn.IterationTx.
func (t *Tx) PutIteration(ctx context.Context, it *cairn.Iteration) error {
	if !cairn.ValidOutcome(it.Outcome) {
		return cairn.Errorf(cairn.EINVALID, "outcome %q: want done, failed or no-signal", it.Outcome)
	}
	_, err := t.exec(ctx, "record iteration", sqlPutIteration, it.Project, it.Run, it.Task, it.Iteration, it.Model,
		it.Outcome, it.DurationMS, it.CostUSD, it.Difficulty, it.FailureID, it.Summary, storesql.MS(it.CreatedAt))
	return err
}

// FindIterations implements cairn.IterationTx.
func (t *Tx) FindIterations(ctx context.Context, f cairn.IterationFilter) ([]*cairn.Iteration, error) {
	var q strings.Builder
	q.WriteString(`SELECT ` + iterationColumns + ` FROM iterations WHERE project = ?`)
	args := []any{f.Project}
	if f.Task != "" {
		q.WriteString(` AND task = ?`)
		args = append(args, f.Task)
	}
	if !f.Since.IsZero() {
		q.WriteString(` AND created_at >= ?`)
		args = append(args, storesql.MS(f.Since))
	}
	q.WriteString(` ORDER BY created_at DESC, iteration DESC, task DESC`)
	if f.Limit > 0 {
		q.WriteString(` LIMIT ?+0`)
		args = append(args, f.Limit)
	}
	rows, err := t.query(ctx, "find iterations", q.String(), args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*cairn.Iteration
	for rows.Next() {
		var it cairn.Iteration
		var created int64
		if err := rows.Scan(&it.Project, &it.Run, &it.Task, &it.Iteration, &it.Model, &it.Outcome, &it.DurationMS,
			&it.CostUSD, &it.Difficulty, &it.FailureID, &it.Summary, &created); err != nil {
			return nil, translate(err, "read iteration")
		}
		it.CreatedAt = storesql.FromMS(created)
		out = append(out, &it)
	}
	return out, translate(rows.Err(), "read iterations")
}

// AggregateIterations implements cairn.IterationTx.
func (t *Tx) AggregateIterations(ctx context.Context, project string, before time.Time) (int, error) {
	if _, err := t.exec(ctx, "aggregate iterations", sqlFoldIterations, project, storesql.MS(before)); err != nil {
		return 0, err
	}
	res, err := t.exec(ctx, "aggregate iterations", sqlDeleteOldIterations, project, storesql.MS(before))
	if err != nil {
		return 0, err
	}
	n, _ := res.RowsAffected()
	return int(n), nil
}

// FindIterationTotals implements cairn.IterationTx.
func (t *Tx) FindIterationTotals(ctx context.Context, project, task string) ([]cairn.IterationTotals, error) {
	rows, err := t.query(ctx, "find iteration totals", sqlFindIterationTotals, project, task, task)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []cairn.IterationTotals
	for rows.Next() {
		var s cairn.IterationTotals
		var first, last int64
		var cost sql.NullFloat64
		if err := rows.Scan(&s.Project, &s.Task, &s.Model, &s.Outcome, &s.Count, &s.DurationMS, &cost, &first, &last); err != nil {
			return nil, translate(err, "read iteration totals")
		}
		s.CostUSD = cost.Float64
		s.First, s.Last = storesql.FromMS(first), storesql.FromMS(last)
		out = append(out, s)
	}
	return out, translate(rows.Err(), "read iteration totals")
}

var _ cairn.IterationTx = (*Tx)(nil)
