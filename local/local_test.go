package local_test

import (
	"context"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/engine"
	"github.com/cairn-dev/cairn/local"
	"github.com/cairn-dev/cairn/sqlite"
)

func newEngine(t *testing.T) *engine.Engine {
	t.Helper()
	st, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "c.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return engine.New(st, nil)
}

func add(t *testing.T, app cairn.App, project, content string) {
	t.Helper()
	if _, err := app.AddMemory(t.Context(), &cairn.Memory{Project: project, Type: "decision", Content: content}); err != nil {
		t.Fatal(err)
	}
}

// A command that owns the project's folder builds its blocks with its
// own settings, not those stored for the project; without them the
// stored settings apply.
func TestOwnSettingsBuildTheBlockInsteadOfTheStoredOnes(t *testing.T) {
	t.Parallel()
	eng := newEngine(t)
	app := local.New(eng, "p", nil)
	add(t, app, "p", "Deploys go through the blue-green switch")
	stored := cairn.DefaultSettings()
	stored.Context.Format = "xml"
	if err := app.SetProjectSettings(t.Context(), "p", &cairn.ProjectSettings{Settings: stored}); err != nil {
		t.Fatal(err)
	}
	call := cairn.ContextCall{ContextRequest: cairn.ContextRequest{Prompt: "how do deploys work"}}
	b, err := app.Context(t.Context(), call)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.Text, "<notice>") {
		t.Errorf("with the stored settings (xml), the block is:\n%s", b.Text)
	}
	own := cairn.DefaultSettings() // markdown
	b, err = local.New(eng, "p", &local.Options{Settings: own}).Context(t.Context(), call)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.Text, "<notice>") || !strings.Contains(b.Text, "## Project Knowledge") {
		t.Errorf("with the command's own settings (markdown), the block is:\n%s", b.Text)
	}
}

// The project's folder is asked for only by a block whose call names
// none; other calls never read it (a server reads it from the database).
func TestRootIsAskedOnlyByABlockThatNamesNone(t *testing.T) {
	t.Parallel()
	var asked atomic.Int32
	app := local.New(newEngine(t), "p", &local.Options{Root: func(project string) string {
		if project != "p" {
			t.Errorf("the folder of %q was asked", project)
		}
		asked.Add(1)
		return t.TempDir()
	}})
	add(t, app, "p", "The cache is flushed on every deploy")
	if _, err := app.Search(t.Context(), cairn.Query{Project: "p", Text: "cache"}); err != nil {
		t.Fatal(err)
	}
	if _, err := app.Lookup(t.Context(), cairn.LookupRequest{Kind: cairn.LookupFile, Subject: "main.go"}); err != nil {
		t.Fatal(err)
	}
	if n := asked.Load(); n != 0 {
		t.Fatalf("a search and a lookup asked for the folder %d times", n)
	}
	call := cairn.ContextCall{ContextRequest: cairn.ContextRequest{Prompt: "cache", Root: t.TempDir()}}
	if _, err := app.Context(t.Context(), call); err != nil {
		t.Fatal(err)
	}
	if n := asked.Load(); n != 0 {
		t.Fatalf("a block that names its folder asked for it %d times", n)
	}
	call.Root = ""
	if _, err := app.Context(t.Context(), call); err != nil {
		t.Fatal(err)
	}
	if n := asked.Load(); n != 1 {
		t.Fatalf("a block that names no folder asked for it %d times, want 1", n)
	}
}

// Calls the settings cannot serve are EINVALID, as they are through a
// server's client: an unknown profile, months that are not months, a
// negative budget.
func TestCallsTheSettingsCannotServeAreInvalid(t *testing.T) {
	t.Parallel()
	app := local.New(newEngine(t), "p", nil)
	add(t, app, "p", "The deploy script needs AWS_PROFILE set")
	for name, call := range map[string]cairn.ContextCall{
		"unknown profile": {ContextRequest: cairn.ContextRequest{Profile: "nope", Prompt: "deploy"}},
		"bad month":       {ContextRequest: cairn.ContextRequest{Prompt: "deploy", Index: true, Conversations: []string{"2024-13"}}},
		"negative budget": {ContextRequest: cairn.ContextRequest{Prompt: "deploy", Budget: -5, BudgetSet: true}},
	} {
		if _, err := app.Context(t.Context(), call); cairn.ErrorCode(err) != cairn.EINVALID {
			t.Errorf("%s: %v, want EINVALID", name, err)
		}
	}
}

// Named binds another project: what it writes is that project's, and
// the first project does not see it.
func TestNamedBindsAnotherProject(t *testing.T) {
	t.Parallel()
	a := local.New(newEngine(t), "a", nil)
	b := a.Named("b")
	add(t, b, "b", "Project b keeps its own notes")
	for _, c := range []struct {
		app  cairn.App
		name string
		want int
	}{{a, "a", 0}, {b, "b", 1}} {
		_, n, err := c.app.FindMemories(t.Context(), cairn.MemoryFilter{Project: c.name})
		if err != nil {
			t.Fatal(err)
		}
		if n != c.want {
			t.Errorf("project %s holds %d memories, want %d", c.name, n, c.want)
		}
	}
}

// Conflicts are listed at the engine's clock: a pair one side of which
// has expired by then is resolved. Seed 002's recall records its use at
// once, not through Options.Record's queue, and only when asked.
func TestConflictsAndRecallRunOnTheEnginesClockAndRecorder(t *testing.T) {
	t.Parallel()
	st, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "c.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	now := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	eng := engine.New(st, &engine.Options{Now: func() time.Time { return now }})
	queued := 0
	app := local.New(eng, "p", &local.Options{Record: func(context.Context, []string, string) error {
		queued++
		return nil
	}})
	old, err := app.AddMemory(t.Context(), &cairn.Memory{Project: "p", Type: "convention", Content: "Always use tabs for indentation in Go files",
		ExpiresAt: now.Add(24 * time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	add(t, app, "p", "Never use tabs for indentation in Go files")
	if cs, err := app.FindConflicts(t.Context()); err != nil || len(cs) != 1 || cs[0].Old.ID != old.Memory.ID {
		t.Fatalf("conflicts now: %+v, %v; want the pair", cs, err)
	}
	later := local.New(eng.WithClock(func() time.Time { return now.Add(48 * time.Hour) }), "p", nil)
	if cs, err := later.FindConflicts(t.Context()); err != nil || len(cs) != 0 {
		t.Errorf("conflicts once the older one expired: %+v, %v; want none", cs, err)
	}

	uses := func(id string) int {
		m, err := eng.FindMemoryByID(t.Context(), id)
		if err != nil {
			t.Fatal(err)
		}
		return m.UseCount
	}
	ms, err := app.RecallByValue(t.Context(), cairn.ValueRecall{Types: []string{"decision"}, Session: "s1"})
	if err != nil || len(ms) != 1 || uses(ms[0].ID) != 0 {
		t.Fatalf("recall without Record: %v, %v; want one memory, its use not recorded", ms, err)
	}
	id := ms[0].ID
	if ms, err := app.RecallByValue(t.Context(), cairn.ValueRecall{Types: []string{"decision"}, Session: "s1", Record: true}); err != nil ||
		len(ms) != 1 || ms[0].UseCount != 0 || uses(id) != 1 || queued != 0 {
		t.Errorf("recall with Record: %v, %v; use count then %d, %d queued; want 0 shown, 1 stored at once", ms, err, uses(id), queued)
	}
}
