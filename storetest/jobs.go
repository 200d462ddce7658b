package storetest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
)

var jobStoreTests = []struct {
	name string
	fn   func(t *testing.T, s cairn.Store)
}{
	{"JobStatesRoundTripByJobAndProject", testJobStatesRoundTrip},
	{"JobStateWritesNeedAnUpdateAndAJob", testJobStateWrites},
}

func jobStates(t *testing.T, s cairn.Store, job string) []cairn.JobState {
	t.Helper()
	var out []cairn.JobState
	view(t, s, func(ctx context.Context, tx cairn.Tx) error {
		var err error
		out, err = tx.FindJobStates(ctx, job)
		return err
	})
	return out
}

func putJobStates(t *testing.T, s cairn.Store, states ...cairn.JobState) {
	t.Helper()
	update(t, s, func(ctx context.Context, tx cairn.Tx) error {
		for _, st := range states {
			if err := tx.PutJobState(ctx, st); err != nil {
				return err
			}
		}
		return nil
	})
}

func testJobStatesRoundTrip(t *testing.T, s cairn.Store) {
	if got := jobStates(t, s, "maintain"); len(got) != 0 {
		t.Fatalf("states of a new store: %v", got)
	}
	b := cairn.JobState{Job: "maintain", Project: "b", RanAt: at(time.Hour), Cursor: 42, Data: "/home/ünï/memory ✓\nline two"}
	a := cairn.JobState{Job: "maintain", Project: "a", RanAt: at(2 * time.Hour)}
	whole := cairn.JobState{Job: "fill", Project: "", RanAt: at(3 * time.Hour), Cursor: 1 << 40}
	never := cairn.JobState{Job: "mirror", Project: "a", Data: "/srv/a"}
	putJobStates(t, s, b, a, whole, never)
	check := func(job string, want ...cairn.JobState) {
		t.Helper()
		got := jobStates(t, s, job)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Errorf("FindJobStates(%q) = %+v, want %+v", job, got, want)
		}
		for _, g := range got {
			if g.RanAt.Location() != time.UTC {
				t.Errorf("%s/%s: RanAt in %v, want UTC", g.Job, g.Project, g.RanAt.Location())
			}
		}
	}
	check("maintain", a, b) // by project
	check("fill", whole)
	check("mirror", never) // a zero RanAt reads back zero
	check("other")
	// A second write replaces the state of its job and project only.
	b2 := cairn.JobState{Job: "maintain", Project: "b", RanAt: at(5 * time.Hour), Cursor: 7}
	putJobStates(t, s, b2)
	check("maintain", a, b2)
	check("mirror", never)
}

func testJobStateWrites(t *testing.T, s cairn.Store) {
	ctx := t.Context()
	var inner error
	err := s.View(ctx, func(tx cairn.Tx) error {
		inner = tx.PutJobState(ctx, cairn.JobState{Job: "maintain", Project: "p", RanAt: at(0)})
		return inner
	})
	wantCode(t, inner, cairn.EINVALID, "PutJobState in View")
	if err == nil {
		t.Error("PutJobState in View: View returned nil")
	}
	err = s.Update(ctx, func(tx cairn.Tx) error {
		return tx.PutJobState(ctx, cairn.JobState{Project: "p", RanAt: at(0)})
	})
	wantCode(t, err, cairn.EINVALID, "PutJobState without a job")
	// A failed Update keeps no state.
	s.Update(ctx, func(tx cairn.Tx) error {
		if err := tx.PutJobState(ctx, cairn.JobState{Job: "maintain", Project: "p", RanAt: at(0)}); err != nil {
			return err
		}
		return fmt.Errorf("rolled back")
	})
	if got := jobStates(t, s, "maintain"); len(got) != 0 {
		t.Errorf("states after a rolled-back Update: %v", got)
	}
}
