package postgres

import (
	"context"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/internal/storesql"
)

const iterationColumns = `project, run, task, iteration, model, outcome, duration_ms, cost_usd, difficulty, failure_id, summary, created_at`

// PutIteration implements cairn.IterationTx. It takes the project's lock,
// as every other write of the project does.
func (t *Tx) PutIteration(ctx context.Context, it *cairn.Iteration) error {
	if !cairn.ValidOutcome(it.Outcome) {
		return cairn.Errorf(cairn.EINVALID, "outcome %q: want done, failed or no-signal", it.Outcome)
	}
	if err := t.needWrite("record iteration"); err != nil {
		return err
	}
	if err := t.lock(ctx, lockProject, it.Project); err != nil {
		return err
	}
	_, err := t.exec(ctx, "record iteration", `INSERT INTO iterations(`+iterationColumns+`) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12)
ON CONFLICT (project, run, task, iteration) DO UPDATE SET model=excluded.model, outcome=excluded.outcome,
duration_ms=excluded.duration_ms, cost_usd=excluded.cost_usd, difficulty=excluded.difficulty,
failure_id=excluded.failure_id, summary=excluded.summary, created_at=excluded.created_at`,
		it.Project, it.Run, it.Task, it.Iteration, it.Model, it.Outcome, it.DurationMS, it.CostUSD, it.Difficulty, it.FailureID, it.Summary, storesql.MS(it.CreatedAt))
	return err
}

// FindIterations implements cairn.IterationTx.
func (t *Tx) FindIterations(ctx context.Context, f cairn.IterationFilter) ([]*cairn.Iteration, error) {
	var q strings.Builder
	q.WriteString(`SELECT ` + iterationColumns + ` FROM iterations WHERE project = $1`)
	args := []any{f.Project}
	arg := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	if f.Task != "" {
		q.WriteString(` AND task = ` + arg(f.Task))
	}
	if !f.Since.IsZero() {
		q.WriteString(` AND created_at >= ` + arg(storesql.MS(f.Since)))
	}
	q.WriteString(` ORDER BY created_at DESC, iteration DESC, task DESC`)
	if f.Limit > 0 {
		q.WriteString(` LIMIT ` + arg(f.Limit))
	}
	rows, err := t.tx.Query(ctx, q.String(), args...)
	if err != nil {
		return nil, translate(err, "find iterations")
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
	if err := t.needWrite("aggregate iterations"); err != nil {
		return 0, err
	}
	if err := t.lock(ctx, lockProject, project); err != nil {
		return 0, err
	}
	if _, err := t.exec(ctx, "aggregate iterations", `INSERT INTO iteration_totals AS tt (project, task, model, outcome, count, duration_ms, cost_usd, first_at, last_at)
SELECT project, task, model, outcome, COUNT(*), SUM(duration_ms), SUM(cost_usd), MIN(created_at), MAX(created_at)
FROM iterations WHERE project = $1 AND created_at < $2 AND `+storesql.FoldableIteration+` GROUP BY project, task, model, outcome
ON CONFLICT (project, task, model, outcome) DO UPDATE SET count = tt.count + excluded.count,
duration_ms = tt.duration_ms + excluded.duration_ms, cost_usd = tt.cost_usd + excluded.cost_usd,
first_at = LEAST(tt.first_at, excluded.first_at), last_at = GREATEST(tt.last_at, excluded.last_at)`, project, storesql.MS(before)); err != nil {
		return 0, err
	}
	n, err := t.exec(ctx, "aggregate iterations", `DELETE FROM iterations WHERE project = $1 AND created_at < $2 AND `+storesql.FoldableIteration, project, storesql.MS(before))
	return int(n), err
}

// FindIterationTotals implements cairn.IterationTx.
func (t *Tx) FindIterationTotals(ctx context.Context, project, task string) ([]cairn.IterationTotals, error) {
	rows, err := t.tx.Query(ctx, `SELECT project, task, model, outcome, count, duration_ms, cost_usd, first_at, last_at
FROM iteration_totals WHERE project = $1 AND ($2 = '' OR task = $2) ORDER BY task, model, outcome`, project, task)
	if err != nil {
		return nil, translate(err, "find iteration totals")
	}
	defer rows.Close()
	var out []cairn.IterationTotals
	for rows.Next() {
		var s cairn.IterationTotals
		var first, last int64
		if err := rows.Scan(&s.Project, &s.Task, &s.Model, &s.Outcome, &s.Count, &s.DurationMS, &s.CostUSD, &first, &last); err != nil {
			return nil, translate(err, "read iteration totals")
		}
		s.First, s.Last = storesql.FromMS(first), storesql.FromMS(last)
		out = append(out, s)
	}
	return out, translate(rows.Err(), "read iteration totals")
}

var _ cairn.IterationTx = (*Tx)(nil)
