package jobs

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
)

const day = 24 * time.Hour

func projectsOf(reps []*cairn.MaintenanceReport) []string {
	var out []string
	for _, r := range reps {
		out = append(out, r.Project)
	}
	return out
}

// Every project of the database is cleaned up when it is due, not only
// the server's own: daily, and only after activity since its last run;
// when each ran is kept in the store, so a restarted server (or another
// one) does not run it again within the day.
func TestMaintainerCleansUpEveryProjectWithActivityOncePerDay(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	path, e, c := openDB(t)
	// A session summary lives 30 days.
	sessions := map[string]*cairn.Memory{}
	for _, p := range []string{"a", "b", "c"} {
		sessions[p] = add(t, e, &cairn.Memory{Project: p, Type: "session", Content: "Session in " + p + ": tried the new parser"})
	}
	m := NewMaintainer(e, nil)
	reps, failed, err := m.runOnce(ctx)
	if err != nil || len(failed) > 0 || !slices.Equal(projectsOf(reps), []string{"a", "b", "c"}) {
		t.Fatalf("first round (no project ran before): %v %v %v", projectsOf(reps), failed, err)
	}
	for _, r := range reps {
		if r.Expired+r.Deleted+r.Decayed != 0 || !r.Applied {
			t.Errorf("first round of %s: %+v", r.Project, r)
		}
	}

	c.Advance(31 * day)
	// Activity in a (a write) and c (a use); none in b.
	add(t, e, &cairn.Memory{Project: "a", Type: "decision", Content: "The parser is generated, never edited by hand."})
	if err := e.RecordUse(ctx, []string{sessions["c"].ID}, "s1"); err != nil {
		t.Fatal(err)
	}
	reps, failed, err = m.runOnce(ctx)
	if err != nil || len(failed) > 0 || !slices.Equal(projectsOf(reps), []string{"a", "c"}) {
		t.Fatalf("after 31 days: %v %v %v, want a and c", projectsOf(reps), failed, err)
	}
	for _, r := range reps {
		if r.Expired != 1 {
			t.Errorf("%s after 31 days: %d expired, want its session", r.Project, r.Expired)
		}
	}
	if exists(t, e, sessions["a"].ID) || exists(t, e, sessions["c"].ID) || !exists(t, e, sessions["b"].ID) {
		t.Errorf("after 31 days: sessions a %v, b %v, c %v; want b's only", exists(t, e, sessions["a"].ID), exists(t, e, sessions["b"].ID), exists(t, e, sessions["c"].ID))
	}

	// An hour later b has activity: it is due (its last run was a month
	// ago); a is not (it ran an hour ago), whatever it did since.
	c.Advance(time.Hour)
	add(t, e, &cairn.Memory{Project: "b", Type: "note", Content: "b is touched again"})
	add(t, e, &cairn.Memory{Project: "a", Type: "note", Content: "a is touched again"})
	reps, _, err = m.runOnce(ctx)
	if err != nil || !slices.Equal(projectsOf(reps), []string{"b"}) || reps[0].Expired != 1 {
		t.Fatalf("an hour later: %v %v, want b with its session expired", projectsOf(reps), err)
	}

	// A restart: another maintainer over another store of the file finds
	// nothing due within the day.
	other := NewMaintainer(openEngine(t, path, c), nil)
	c.Advance(22 * time.Hour)
	if reps, _, err := other.runOnce(ctx); err != nil || len(reps) != 0 {
		t.Fatalf("after a restart, 22 hours later: %v %v, want nothing due", projectsOf(reps), err)
	}
	c.Advance(3 * time.Hour) // a's last run is over a day old, and it had activity since; b had none
	if reps, _, err := other.runOnce(ctx); err != nil || !slices.Equal(projectsOf(reps), []string{"a"}) {
		t.Fatalf("a day later: %v %v, want a", projectsOf(reps), err)
	}
}

// Run waits FirstAfter, then runs a round every CheckEvery, and says in
// its log what a round removed.
func TestMaintainerRunLogsWhatItRemoved(t *testing.T) {
	t.Parallel()
	_, e, c := openDB(t)
	s := add(t, e, &cairn.Memory{Project: "web", Type: "session", Content: "Session: tried the new parser"})
	c.Advance(31 * day)
	var log syncBuffer
	cfg := &MaintainerConfig{FirstAfter: time.Millisecond, CheckEvery: time.Hour, Log: &log}
	cfg.TestSignals.Init()
	m := NewMaintainer(e, cfg)
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan struct{})
	go func() { m.Run(ctx); close(done) }()
	reps := cfg.TestSignals.Ran.Wait(t)
	cancel()
	<-done
	if len(reps) != 1 || reps[0].Project != "web" || reps[0].Expired != 1 || len(reps[0].Items) != 0 || exists(t, e, s.ID) {
		t.Fatalf("the round: %v", projectsOf(reps))
	}
	if want := "cairn: daily cleanup of project web: 1 expired, 0 deleted, 0 decayed\n"; log.String() != want {
		t.Errorf("log %q, want %q", log.String(), want)
	}
	if !cfg.TestSignals.Ran.Empty() {
		t.Error("a second round ran within CheckEvery")
	}
}

// Zero values of a config take the defaults.
func TestJobConfigsDefaultTheirZeroValues(t *testing.T) {
	t.Parallel()
	_, e, _ := openDB(t)
	if m := NewMaintainer(e, nil); m.cfg.Every != DefaultMaintainEvery || m.cfg.CheckEvery != DefaultMaintainCheckEvery || m.cfg.FirstAfter != DefaultMaintainFirstAfter {
		t.Errorf("maintainer: %+v", m.cfg)
	}
	if m := NewMaintainer(e, &MaintainerConfig{CheckEvery: time.Minute}); m.cfg.CheckEvery != time.Minute || m.cfg.Every != DefaultMaintainEvery {
		t.Errorf("maintainer with CheckEvery: %+v", m.cfg)
	}
	if m := NewMirror(e, nil); m.cfg.Every != DefaultMirrorEvery {
		t.Errorf("mirror: %+v", m.cfg)
	}
	if f := NewVectorFiller(e, nil); f.cfg.Every != DefaultVectorFillEvery {
		t.Errorf("vector filler: %+v", f.cfg)
	}
	w := NewUseWriter(e, nil)
	defer w.Close()
	if w.cfg.FlushWait != DefaultUseFlushWait || w.cfg.MaxAge != DefaultUseMaxAge || w.cfg.BatchMax != DefaultUseBatchMax || w.cfg.MaxUnwritten != DefaultUseMaxUnwritten {
		t.Errorf("use writer: %+v", w.cfg)
	}
}

// syncBuffer is a log written by a job's goroutine and read by the test.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
