package jobs

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/engine"
	"github.com/cairn-dev/cairn/internal/testsignal"
)

// Defaults of MaintainerConfig.
const (
	// DefaultMaintainEvery: the lifecycle (decay, expiry, cleanup of
	// low-value memories) runs daily, as seed 000's cleanup does.
	DefaultMaintainEvery = 24 * time.Hour
	// DefaultMaintainCheckEvery is how often a running server asks which
	// projects are due.
	DefaultMaintainCheckEvery = time.Hour
	// DefaultMaintainFirstAfter is how long a server waits after it starts
	// before it first asks: its first minute answers the prompt of the
	// session that started it, and takes no write lock for the lifecycle.
	DefaultMaintainFirstAfter = time.Minute
)

// MaintainerConfig tunes a Maintainer; zero values take the defaults.
type MaintainerConfig struct {
	Every      time.Duration // how often a project's lifecycle runs
	CheckEvery time.Duration // how often Run looks for projects that are due
	FirstAfter time.Duration // how long Run waits before it first looks
	// Log receives a line for each project cleaned up that changed
	// something, and for each failure; nil: none.
	Log io.Writer

	TestSignals MaintainerTestSignals
}

// MaintainerTestSignals tell a test what the maintainer did.
type MaintainerTestSignals struct {
	// Ran gets the reports of each round of Run, one per project cleaned
	// up (none when no project was due), with their counts and no items
	// (Engine.MaintainCounts).
	Ran testsignal.Signal[[]*cairn.MaintenanceReport]
}

// Init turns every signal on.
func (ts *MaintainerTestSignals) Init() { ts.Ran.Init() }

// Maintainer applies the lifecycle to every project of the store that is
// due: that has had activity (a memory written or used) since its last
// run, which is at least Every ago, or that never had one. A project
// nobody touches is left alone: its memories change only with time, and
// a search already leaves out those that expired. When a project last ran
// is kept in the job state (job "maintain"), so a restart does not clean
// up again, and two servers of one database each find a project done by
// the other (two that find it due at the same moment both run it: the
// second finds little to do).
type Maintainer struct {
	eng *engine.Engine
	cfg MaintainerConfig
}

// NewMaintainer returns the maintainer of eng's store (cfg nil:
// defaults). eng must not be bound to a project (Engine.WithProject): the
// maintainer covers them all.
func NewMaintainer(eng *engine.Engine, cfg *MaintainerConfig) *Maintainer {
	var c MaintainerConfig
	if cfg != nil {
		c = *cfg
	}
	c.Every = cmp.Or(c.Every, DefaultMaintainEvery)
	c.CheckEvery = cmp.Or(c.CheckEvery, DefaultMaintainCheckEvery)
	c.FirstAfter = cmp.Or(c.FirstAfter, DefaultMaintainFirstAfter)
	if c.Log == nil {
		c.Log = io.Discard
	}
	return &Maintainer{eng: eng, cfg: c}
}

// Run looks for projects that are due FirstAfter after it is called and
// then every CheckEvery, until ctx ends.
func (m *Maintainer) Run(ctx context.Context) {
	every(ctx, m.cfg.FirstAfter, m.cfg.CheckEvery, func(ctx context.Context) {
		reps, failed, err := m.runOnce(ctx)
		if ctx.Err() != nil {
			return
		}
		for _, rep := range reps {
			if rep.Expired+rep.Deleted+rep.Decayed > 0 {
				fmt.Fprintf(m.cfg.Log, "cairn: daily cleanup of project %s: %d expired, %d deleted, %d decayed\n", rep.Project, rep.Expired, rep.Deleted, rep.Decayed)
			}
		}
		for _, err := range append(failed, err) {
			if err != nil {
				fmt.Fprintf(m.cfg.Log, "cairn: %s\n", oneLine(cairn.ErrorMessage(err)))
			}
		}
		m.cfg.TestSignals.Ran.Signal(reps)
	})
}

// runOnce applies the lifecycle to every project that is due, at the
// engine's time, and records each run. It returns the reports of the
// projects it cleaned up, by name, and the failures of the others, each
// naming its project (a project that fails is tried again at the next
// round); err is a failure to find the projects.
func (m *Maintainer) runOnce(ctx context.Context) (reps []*cairn.MaintenanceReport, failed []error, err error) {
	now := m.eng.Now()
	var projects []cairn.ProjectSummary
	err = m.eng.Store().View(ctx, func(tx cairn.Tx) error {
		var err error
		projects, err = tx.FindProjects(ctx)
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	ran, err := states(ctx, m.eng, jobMaintain)
	if err != nil {
		return nil, nil, err
	}
	for _, p := range projects {
		if last := ran[p.Name].RanAt; !last.IsZero() && (now.Sub(last) < m.cfg.Every || !p.LastActivity.After(last)) {
			continue
		}
		rep, err := m.eng.MaintainCounts(ctx, p.Name)
		if err == nil {
			err = putState(ctx, m.eng, cairn.JobState{Job: jobMaintain, Project: p.Name, RanAt: now})
		}
		if err != nil {
			if ctx.Err() != nil {
				return reps, failed, ctx.Err()
			}
			failed = append(failed, cairn.WrapError(cairn.ErrorCode(err), err, "the daily cleanup of project %s failed", p.Name))
			continue
		}
		reps = append(reps, rep)
	}
	return reps, failed, nil
}

// oneLine folds a message onto one line of a log.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
