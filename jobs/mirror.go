package jobs

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"maps"
	"slices"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/engine"
	"github.com/cairn-dev/cairn/internal/testsignal"
	"github.com/cairn-dev/cairn/jsonlmirror"
)

// DefaultMirrorEvery is how often a Mirror looks for changes.
const DefaultMirrorEvery = 2 * time.Second

// MirrorConfig tunes a Mirror; zero values take the defaults.
type MirrorConfig struct {
	// Every is how often Run looks for changes: a change reaches the
	// files within about that long, and a burst of writes within it
	// costs one rewrite.
	Every time.Duration
	// Log receives a line for each failed write; nil: none.
	Log io.Writer

	TestSignals MirrorTestSignals
}

// MirrorTestSignals tell a test what the mirror did.
type MirrorTestSignals struct {
	// Ran gets the projects whose files each round of Run wrote.
	Ran testsignal.Signal[[]string]
}

// Init turns every signal on.
func (ts *MirrorTestSignals) Init() { ts.Ran.Init() }

// Mirror keeps seed 001's per-type JSON Lines files (package jsonlmirror)
// of every project that has a folder for them, registered with
// SetMirrorFolder by the command that owns the project's folder. It
// rewrites a project's files when the project has changed since they
// were written: any event but the use of a memory (a use count is not
// worth a rewrite). How far each project's files are written (the last
// event's Seq) is kept in the job state (job "mirror", whose Data is the
// folder), so a restarted server rewrites only what changed meanwhile.
type Mirror struct {
	eng *engine.Engine
	cfg MirrorConfig

	files map[string]*jsonlmirror.Mirror // by project
	seen  map[string]int64               // how far each project's events were read
}

// NewMirror returns the mirror of eng's store (cfg nil: defaults); eng
// must not be bound to a project.
func NewMirror(eng *engine.Engine, cfg *MirrorConfig) *Mirror {
	var c MirrorConfig
	if cfg != nil {
		c = *cfg
	}
	c.Every = cmp.Or(c.Every, DefaultMirrorEvery)
	if c.Log == nil {
		c.Log = io.Discard
	}
	return &Mirror{eng: eng, cfg: c, files: map[string]*jsonlmirror.Mirror{}, seen: map[string]int64{}}
}

// SetMirrorFolder registers dir as the folder of project's files ("": the
// project has none), for the Mirror of any process sharing the store. A
// new folder is written at the Mirror's next round.
func SetMirrorFolder(ctx context.Context, eng *engine.Engine, project, dir string) error {
	if !cairn.ValidProject(project) {
		return cairn.Errorf(cairn.EINVALID, "project %q is not valid", project)
	}
	all, err := states(ctx, eng, jobMirror)
	if err != nil {
		return err
	}
	if st, ok := all[project]; ok && st.Data == dir || !ok && dir == "" {
		return nil
	}
	return putState(ctx, eng, cairn.JobState{Job: jobMirror, Project: project, Data: dir})
}

// Run writes the files of the projects that changed now and then every
// Every, until ctx ends.
func (m *Mirror) Run(ctx context.Context) {
	every(ctx, 0, m.cfg.Every, func(ctx context.Context) {
		wrote, failed, err := m.runOnce(ctx)
		if ctx.Err() != nil {
			return
		}
		for _, err := range append(failed, err) {
			if err != nil {
				fmt.Fprintf(m.cfg.Log, "cairn: %s\n", oneLine(cairn.ErrorMessage(err)))
			}
		}
		m.cfg.TestSignals.Ran.Signal(wrote)
	})
}

// runOnce writes the files of every registered project that changed since
// they were written (or never were), and records how far each is
// written. It returns the projects written, by name, and the failures of
// the others, each naming its folder (a project that fails is tried
// again at the next round); err is a failure to read the registrations.
func (m *Mirror) runOnce(ctx context.Context) (wrote []string, failed []error, err error) {
	last, err := m.eng.LastEventSeq(ctx)
	if err != nil {
		return nil, nil, err
	}
	regs, err := states(ctx, m.eng, jobMirror)
	if err != nil {
		return nil, nil, err
	}
	for _, project := range slices.Sorted(maps.Keys(regs)) {
		st := regs[project]
		if st.Data == "" {
			delete(m.files, project)
			continue
		}
		f := m.files[project]
		if f == nil || f.Dir != st.Data {
			f = &jsonlmirror.Mirror{Eng: m.eng, Project: project, Dir: st.Data}
			m.files[project] = f
			m.seen[project] = st.Cursor
			if st.RanAt.IsZero() {
				m.seen[project] = -1 // never written
			}
		}
		from := m.seen[project]
		if from >= last {
			continue
		}
		if from >= 0 {
			changed, err := jsonlmirror.Changed(ctx, m.eng, project, from)
			if err != nil {
				failed = append(failed, err)
				continue
			}
			if !changed {
				m.seen[project] = last
				continue
			}
		}
		if _, err := f.Sync(ctx); err != nil {
			failed = append(failed, cairn.WrapError(cairn.ErrorCode(err), err, "cannot keep the JSON Lines files of project %s in %s", project, st.Data))
			continue
		}
		m.seen[project] = last
		if err := putState(ctx, m.eng, cairn.JobState{Job: jobMirror, Project: project, RanAt: m.eng.Now(), Cursor: last, Data: st.Data}); err != nil {
			failed = append(failed, err)
		}
		wrote = append(wrote, project)
	}
	return wrote, failed, nil
}
