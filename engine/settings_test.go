package engine_test

import (
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/engine"
)

// A long-lived engine keeps each project's settings between calls: the
// settings stored or deleted through it, or through an engine derived
// from it, are those of the very next call; those another engine writes
// to the same database, within a second.
func TestSettingsOfKeptUntilWritten(t *testing.T) {
	ctx := t.Context()
	st := newStore(t)
	own := cairn.DefaultSettings()
	e := engine.New(st, &engine.Options{CacheBytes: 1 << 20, Settings: own})
	budget := func(eng *engine.Engine) int {
		t.Helper()
		s, err := eng.SettingsOf(ctx, "p")
		if err != nil {
			t.Fatal(err)
		}
		return s.Context.Budget
	}
	store := func(eng *engine.Engine, n int) {
		t.Helper()
		s := cairn.DefaultSettings()
		s.Context.Budget = n
		if err := eng.SetProjectSettings(ctx, "p", &cairn.ProjectSettings{Settings: s, Source: "test"}); err != nil {
			t.Fatal(err)
		}
	}
	def := own.Context.Budget
	if got := budget(e); got != def {
		t.Fatalf("no stored settings: budget %d, want the engine's own %d", got, def)
	}
	store(e, def+1)
	if got := budget(e); got != def+1 {
		t.Fatalf("after storing: budget %d, want %d", got, def+1)
	}
	store(e.WithProject("q"), def+2) // derived engines share what is kept
	if got := budget(e); got != def+2 {
		t.Fatalf("after storing through a derived engine: budget %d, want %d", got, def+2)
	}
	if err := e.DeleteProjectSettings(ctx, "p"); err != nil {
		t.Fatal(err)
	}
	if got := budget(e); got != def {
		t.Fatalf("after deleting: budget %d, want the engine's own %d", got, def)
	}
	other := engine.New(st, nil) // another process's, on the same database
	store(other, def+3)
	deadline := time.Now().Add(5 * time.Second)
	for budget(e) != def+3 {
		if time.Now().After(deadline) {
			t.Fatalf("settings another engine stored are not in force 5 s later: budget %d, want %d", budget(e), def+3)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
