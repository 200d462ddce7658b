package engine_test

import (
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/engine"
)

// An engine bound to a project lists that project alone, and an unbound
// one every project with memories. Tried: a bound project without
// memories, an invalid project and a period that is not positive.
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
	if cs, err := e.CountCreated(t.Context(), "a", now.Add(-time.Hour), time.Hour); err != nil || len(cs) != 1 || cs[0].Period != 1 || cs[0].Count != 1 {
		t.Errorf("CountCreated(a) = %+v, %v; want one in period 1", cs, err)
	}
	if _, err := e.CountCreated(t.Context(), "", now, time.Hour); cairn.ErrorCode(err) != cairn.EINVALID {
		t.Errorf("CountCreated of no project: %v, want EINVALID", err)
	}
	if _, err := e.CountCreated(t.Context(), "a", now, -time.Hour); cairn.ErrorCode(err) != cairn.EINVALID {
		t.Errorf("CountCreated with a negative period: %v, want EINVALID", err)
	}
}
