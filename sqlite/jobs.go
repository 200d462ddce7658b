package sqlite

import (
	"context"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/internal/storesql"
)

const (
	sqlFindJobStates = `SELECT project, ran_at, cursor, data FROM job_state WHERE job = ? ORDER BY project`
	sqlPutJobState   = `INSERT INTO job_state(job, project, ran_at, cursor, data) VALUES (?,?,?,?,?)
ON CONFLICT(job, project) DO UPDATE SET ran_at=excluded.ran_at, cursor=excluded.cursor, data=excluded.data`
)

// FindJobStates implements cairn.Tx.
func (t *Tx) FindJobStates(ctx context.Context, job string) ([]cairn.JobState, error) {
	rows, err := t.query(ctx, "find job states", sqlFindJobStates, job)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []cairn.JobState
	for rows.Next() {
		s := cairn.JobState{Job: job}
		var ran int64
		if err := rows.Scan(&s.Project, &ran, &s.Cursor, &s.Data); err != nil {
			return nil, translate(err, "read job state")
		}
		s.RanAt = storesql.FromMS(ran)
		out = append(out, s)
	}
	return out, translate(rows.Err(), "read job states")
}

// PutJobState implements cairn.Tx.
func (t *Tx) PutJobState(ctx context.Context, s cairn.JobState) error {
	if s.Job == "" {
		return cairn.Errorf(cairn.EINVALID, "a job state needs its job's name")
	}
	_, err := t.exec(ctx, "put job state", sqlPutJobState, s.Job, s.Project, storesql.MS(s.RanAt), s.Cursor, s.Data)
	return err
}
