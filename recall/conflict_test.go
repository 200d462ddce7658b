package recall_test

import (
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/recall"
)

func TestTwoContradictingMemoriesAreOneConflictLineUntilResolved(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	clock := now.Add(-48 * time.Hour)
	e := newEngine(t, func() time.Time { return clock })
	old, err := e.AddMemory(t.Context(), &cairn.Memory{Project: "p", Type: "pitfall", Content: "The payment sandbox accepts refunds for test cards"})
	if err != nil {
		t.Fatal(err)
	}
	clock = now
	nw, err := e.AddMemory(t.Context(), &cairn.Memory{Project: "p", Type: "pitfall", Content: "The payment sandbox never accepts refunds for test cards"})
	if err != nil {
		t.Fatal(err)
	}
	build := func() string {
		b, err := recall.Build(t.Context(), e, cairn.DefaultSettings(), cairn.ContextRequest{Project: "p", Prompt: "refunds in the payment sandbox with test cards"})
		if err != nil {
			t.Fatal(err)
		}
		return b.Text
	}
	text := build()
	if n := strings.Count(text, "\n- "); n != 1 {
		t.Errorf("want one item, got %d:\n%s", n, text)
	}
	for _, want := range []string{"**Conflict**", old.Memory.ID, nw.Memory.ID, "2026-05-30", "2026-06-01", "vs. later \"The payment sandbox never accepts"} {
		if !strings.Contains(text, want) {
			t.Errorf("the block lacks %q:\n%s", want, text)
		}
	}
	// Resolved: the newer one supersedes the older; the block shows it alone.
	if _, err := e.UpdateMemory(t.Context(), old.Memory.ID, cairn.MemoryUpdate{SupersededBy: &nw.Memory.ID}); err != nil {
		t.Fatal(err)
	}
	text = build()
	if strings.Contains(text, "Conflict") || !strings.Contains(text, "never accepts refunds") || strings.Contains(text, old.Memory.ID) {
		t.Errorf("after supersede:\n%s", text)
	}
}
