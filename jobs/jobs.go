// Package jobs is the background work of a long-running cairn process
// (cairn serve, and cairn mcp for its uses): writing the use of what
// contexts showed in batches (UseWriter), the daily lifecycle of every
// project with activity (Maintainer), the per-type JSON Lines files of
// every project that has a folder for them (Mirror), and the vectors of
// memories written without one (VectorFiller).
//
// Each job has a config whose zero values take the defaults, a runOnce
// that does one round of its work (what tests call), a Run that repeats it
// until its context ends, and test signals that tell a test what it did,
// so that tests neither sleep nor set environment variables. Time comes
// from the engine's clock. What a job must remember across restarts (when
// a project was last cleaned up, how far its files are written) is kept
// in the store's job state (cairn.JobTx), one row per job and project.
package jobs

import (
	"context"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/engine"
)

// The jobs' names in the job state.
const (
	jobMaintain = "maintain"
	jobMirror   = "mirror"
)

// states returns the job states of job, by project.
func states(ctx context.Context, eng *engine.Engine, job string) (map[string]cairn.JobState, error) {
	out := map[string]cairn.JobState{}
	err := eng.Store().View(ctx, func(tx cairn.Tx) error {
		ss, err := tx.FindJobStates(ctx, job)
		for _, s := range ss {
			out[s.Project] = s
		}
		return err
	})
	return out, err
}

// putState stores s.
func putState(ctx context.Context, eng *engine.Engine, s cairn.JobState) error {
	return eng.Store().Update(ctx, func(tx cairn.Tx) error { return tx.PutJobState(ctx, s) })
}

// every calls runOnce after first, then every interval, until ctx ends.
func every(ctx context.Context, first, interval time.Duration, runOnce func(context.Context)) {
	select {
	case <-ctx.Done():
		return
	case <-time.After(first):
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		runOnce(ctx)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}
