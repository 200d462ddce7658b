package engine_test

import (
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/engine"
)

// An engine bound to a project lists that project alone, and an unbound
// one every project with memories. Tried: a bound project without
// memories; and its weekly counts, which need a project and 1 to
// MaxCreatedWeeks weeks.
func TestProjectsOfABoundEngineAreItsOwn(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	e := engine.New(newStore(t), &engine.Options{Now: func() time.Time { return now }})
	for _, p := range []string{"a", "b"} {
		if _, err := e.WithProject(p).AddMemory(t.Context(), &cairn.Memory{Project: p, Content: "a memory of " + p}); err != nil {
			t.Fatal(err)
		}
	}
	names := func(e *engine.Engine) []string {
		ps, err := e.Projects(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, p := range ps {
			out = append(out, p.Name)
		}
		return out
	}
	if got := names(e); len(got) != 2 || got[0] != "a" || got[1] != "b" {
		t.Errorf("Projects = %v, want [a b]", got)
	}
	if got := names(e.WithProject("b")); len(got) != 1 || got[0] != "b" {
		t.Errorf("Projects bound to b = %v, want [b]", got)
	}
	if got := names(e.WithProject("c")); len(got) != 0 {
		t.Errorf("Projects bound to c, without memories = %v, want none", got)
	}
	// 2026-05-01 is a Friday: its week started on Monday 2026-04-27.
	ps, err := e.WithProject("a").CreatedByWeek(t.Context(), 2)
	if err != nil || len(ps) != 2 || ps[1].ByType["note"] != 1 || len(ps[0].ByType) != 0 ||
		!ps[1].Start.Equal(time.Date(2026, 4, 27, 0, 0, 0, 0, time.UTC)) || !ps[0].End.Equal(ps[1].Start) {
		t.Errorf("CreatedByWeek(a, 2) = %+v, %v; want one note in the week of 2026-04-27, none the week before", ps, err)
	}
	if _, err := e.CreatedByWeek(t.Context(), 1); cairn.ErrorCode(err) != cairn.EINVALID {
		t.Errorf("CreatedByWeek of no project: %v, want EINVALID", err)
	}
	for _, n := range []int{0, cairn.MaxCreatedWeeks + 1} {
		if _, err := e.WithProject("a").CreatedByWeek(t.Context(), n); cairn.ErrorCode(err) != cairn.EINVALID {
			t.Errorf("CreatedByWeek of %d weeks: %v, want EINVALID", n, err)
		}
	}
}
