package recall_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/engine"
	"github.com/cairn-dev/cairn/recall"
	"github.com/cairn-dev/cairn/sqlite"
)

// newEngine is an engine over a fresh database that reads clock.
func newEngine(t *testing.T, clock func() time.Time) *engine.Engine {
	t.Helper()
	st, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "c.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return engine.New(st, &engine.Options{Now: clock})
}

// The configuration decides the lasting tiers: a trusted architecture
// memory is a critical constraint unless min_constraint_confidence is 0,
// and a disabled dynamic tier shows no session summary.
func TestTheLastingTiersFollowTheConfiguration(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	e := newEngine(t, func() time.Time { return now })
	arch := add(t, e, &cairn.Memory{Type: "architecture", Content: "All writes go through the engine package.", Confidence: 0.95})
	sess := add(t, e, &cairn.Memory{Type: "session", Content: "Session: added rate limiting."})
	b, err := recall.Build(t.Context(), e, cairn.DefaultSettings(), cairn.ContextRequest{Project: "p"})
	if err != nil {
		t.Fatal(err)
	}
	if ids := b.IDs(); !slices.Contains(ids, arch) || !slices.Contains(ids, sess) {
		t.Fatalf("the default block %v lacks the critical constraint %s or the session %s", ids, arch, sess)
	}
	c := cairn.DefaultSettings()
	c.Context.Static.MinConstraintConfidence = 0 // "none of those"
	c.Context.Dynamic.Enabled = false
	if b, err = recall.Build(t.Context(), e, c, cairn.ContextRequest{Project: "p"}); err != nil {
		t.Fatal(err)
	}
	if ids := b.IDs(); slices.Contains(ids, arch) || slices.Contains(ids, sess) {
		t.Errorf("min_constraint_confidence 0 and a disabled dynamic tier: %v", ids)
	}
}

// With a prompt, the memory that matches it is in the block however many
// static memories the project has: they compete by value and take at most
// StaticShare of the budget. At session start they take the whole budget.
func TestRelevantMemoryIsNeverCrowdedOutByStaticOnes(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	now := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	eng := newEngine(t, func() time.Time { return now })
	filler := strings.Repeat(" The reasons were discussed at length in the design review and recorded in the wiki.", 4)
	for i := range 5 {
		for _, typ := range []string{"preference", "decision", "convention"} {
			c := fmt.Sprintf("%s %d: keep modules small and cohesive.%s", typ, i, filler)
			if _, err := eng.AddMemory(ctx, &cairn.Memory{Project: "p", Type: typ, Content: c, Confidence: 0.9}); err != nil {
				t.Fatal(err)
			}
		}
	}
	res, err := eng.AddMemory(ctx, &cairn.Memory{Project: "p", Type: "pitfall", Content: "The payments webhook retries forever when the signing secret rotates.", Confidence: 0.5})
	if err != nil {
		t.Fatal(err)
	}
	want := res.Memory.ID
	for _, format := range []string{"markdown", "json"} {
		b, err := recall.Build(ctx, eng, cairn.DefaultSettings(), cairn.ContextRequest{Project: "p", Prompt: "why does the payments webhook retry forever",
			Format: format, Budget: 600, BudgetSet: true})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(b.IDs(), want) {
			t.Errorf("%s: the matching memory %s is not in the block: %v, omitted %+v", format, want, b.IDs(), b.Result.Omitted)
		}
		static := 0
		for _, p := range b.Result.Placed {
			if p.Section != "relevant" {
				static += p.Tokens
			}
		}
		if static > int(recall.StaticShare*600) {
			t.Errorf("%s: static memories took %d tokens, over %v of 600", format, static, recall.StaticShare)
		}
	}
	b, err := recall.Build(ctx, eng, cairn.DefaultSettings(), cairn.ContextRequest{Project: "p", Budget: 600, BudgetSet: true})
	if err != nil {
		t.Fatal(err)
	}
	if used := b.Result.Tokens; used < 450 {
		t.Errorf("at session start static memories may fill the budget: %d of 600 tokens used", used)
	}
}

// A memory whose files changed after it was written is marked possibly
// stale and counts for less; verifying it clears the mark until they
// change again.
func TestMemoriesWhoseFilesChangedAreMarkedStale(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	root := t.TempDir()
	file := filepath.Join(root, "internal", "auth", "refresh.go")
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte("package auth\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	now := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	eng := newEngine(t, func() time.Time { return now })
	res, err := eng.AddMemory(ctx, &cairn.Memory{Project: "p", Type: "pitfall", FileRefs: []string{"internal/auth/*.go"},
		Content: "Refresh returns nil, nil for an unknown token.", CreatedAt: now.Add(-48 * time.Hour)})
	if err != nil {
		t.Fatal(err)
	}
	id := res.Memory.ID
	build := func() *recall.Block {
		t.Helper()
		b, err := recall.Build(ctx, eng, cairn.DefaultSettings(), cairn.ContextRequest{Project: "p", Prompt: "refresh returns nil for an unknown token", Root: root})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	// The file has not changed since the memory was written.
	if err := os.Chtimes(file, now.Add(-72*time.Hour), now.Add(-72*time.Hour)); err != nil {
		t.Fatal(err)
	}
	if b := build(); !slices.Contains(b.IDs(), id) || strings.Contains(b.Text, "possibly stale") {
		t.Fatalf("an unchanged file: %v\n%s", b.IDs(), b.Text)
	}
	// Changed a day after.
	if err := os.Chtimes(file, now.Add(-24*time.Hour), now.Add(-24*time.Hour)); err != nil {
		t.Fatal(err)
	}
	b := build()
	if !strings.Contains(b.Text, "[possibly stale] Refresh returns nil") {
		t.Errorf("a changed file: the memory is not marked:\n%s", b.Text)
	}
	for _, p := range b.Result.Placed {
		if p.ID == id && p.Value >= 1 {
			t.Errorf("a stale memory keeps its value %v", p.Value)
		}
	}
	// Verified now: no longer stale.
	if _, err := eng.UpdateMemory(ctx, id, cairn.MemoryUpdate{VerifiedAt: &now}); err != nil {
		t.Fatal(err)
	}
	if b := build(); strings.Contains(b.Text, "possibly stale") {
		t.Errorf("after verify the memory is still marked:\n%s", b.Text)
	}
	// Without a root nothing is checked.
	if err := os.Chtimes(file, now.Add(time.Hour), now.Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	b, err = recall.Build(ctx, eng, cairn.DefaultSettings(), cairn.ContextRequest{Project: "p", Prompt: "refresh returns nil for an unknown token"})
	if err != nil || strings.Contains(b.Text, "possibly stale") {
		t.Errorf("without a root: %v\n%s", err, b.Text)
	}
}

// A session-start block (no prompt) of a project with hundreds of
// memories of every type stays within context.start_budget, holds the
// pinned memory, and ends the agent's questions about how to record.
func TestSessionStartBlockIsSmallAndSaysHowToRecord(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	now := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	eng := newEngine(t, func() time.Time { return now })
	types := []string{"decision", "convention", "constraint", "architecture", "preference", "pattern", "pitfall", "fix", "session", "learning"}
	for i := range 300 {
		typ := types[i%len(types)]
		c := fmt.Sprintf("%s %d: the %s module keeps its state in one place and reports errors with their cause, which took a while to learn.", typ, i, typ)
		if _, err := eng.AddMemory(ctx, &cairn.Memory{Project: "p", Type: typ, Content: c, Confidence: 0.95, CreatedAt: now.Add(-time.Duration(i) * time.Hour)}); err != nil {
			t.Fatal(err)
		}
	}
	pin, err := eng.AddMemory(ctx, &cairn.Memory{Project: "p", Type: "decision", Content: "Releases are cut on Tuesdays.", Pinned: true})
	if err != nil {
		t.Fatal(err)
	}
	c := cairn.DefaultSettings()
	b, err := recall.Build(ctx, eng, c, cairn.ContextRequest{Project: "p"})
	if err != nil {
		t.Fatal(err)
	}
	if b.Result.Tokens > c.Context.StartBudget || c.Context.StartBudget != 600 {
		t.Errorf("session-start block: %d tokens, start budget %d", b.Result.Tokens, c.Context.StartBudget)
	}
	if !strings.Contains(b.Text, "MEMORY:type:") || !slices.Contains(b.IDs(), pin.Memory.ID) {
		t.Errorf("the block lacks the recording paragraph or the pinned memory:\n%s", b.Text)
	}
	// With a prompt the full budget applies and the paragraph is left out.
	b, err = recall.Build(ctx, eng, cairn.DefaultSettings(), cairn.ContextRequest{Project: "p", Prompt: "how does the pitfall module report errors"})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.Text, "MEMORY:type:") || b.Config.Context.Budget != 1500 {
		t.Errorf("a prompt's block: budget %d, paragraph %v", b.Config.Context.Budget, strings.Contains(b.Text, "MEMORY:type:"))
	}
}
