package recall_test

import (
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/recall"
)

// Two sessions of one project: what session b writes while session a
// works is in a's next context under "New from Parallel Work", once; a's
// own memories, memories without a session, memories older than a's
// previous context, and a session's first context get no such section,
// nor does a block whose tiers leave the section out.
func TestParallelWorkOfAnotherSessionIsShownOnceInTheNextContext(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	now := time.Date(2026, 11, 1, 9, 0, 0, 0, time.UTC)
	eng := newEngine(t, func() time.Time { now = now.Add(time.Second); return now })
	add := func(session, typ, content string) string {
		t.Helper()
		res, err := eng.AddMemory(ctx, &cairn.Memory{Project: "p", SessionID: session, Type: typ, Content: content})
		if err != nil {
			t.Fatal(err)
		}
		return res.Memory.ID
	}
	// block builds a context for session and records its use, as the
	// CLI does.
	block := func(session string, tiers []string) *recall.Block {
		t.Helper()
		b, err := recall.Build(ctx, eng, cairn.DefaultSettings(), cairn.ContextRequest{Project: "p", Session: session, Prompt: "zebra crossing", Tiers: tiers})
		if err != nil {
			t.Fatal(err)
		}
		if err := eng.RecordUse(ctx, b.IDs(), session); err != nil {
			t.Fatal(err)
		}
		return b
	}
	section := func(b *recall.Block) string {
		_, rest, ok := strings.Cut(b.Text, "### New from Parallel Work\n")
		if !ok {
			return ""
		}
		sec, _, _ := strings.Cut(rest, "\n###")
		return sec
	}

	old := add("b", "decision", "Use Postgres for the order service.")
	if b := block("a", nil); section(b) != "" || !strings.Contains(b.Text, old) {
		t.Fatalf("a's first context:\n%s", b.Text)
	}
	news := add("b", "pitfall", "The payment mock needs a fresh idempotency key per test.")
	own := add("a", "learning", "Session a's own finding about the cart.")
	add("", "note", "Imported by hand, without a session.")

	b := block("a", nil)
	sec := section(b)
	if !strings.Contains(sec, news) || strings.Contains(sec, own) || strings.Contains(sec, old) || strings.Contains(sec, "by hand") {
		t.Fatalf("a's second context's parallel work:\n%s\nwhole block:\n%s", sec, b.Text)
	}
	if b := block("a", nil); section(b) != "" {
		t.Errorf("a's third context shows parallel work again:\n%s", b.Text)
	}
	if b := block("c", nil); section(b) != "" {
		t.Errorf("c's first context shows parallel work:\n%s", b.Text)
	}
	later := add("b", "pitfall", "The tax service rounds half to even.")
	if b := block("a", []string{cairn.ContextRelevant}); section(b) != "" {
		t.Errorf("a block of the relevant tier only shows parallel work:\n%s", b.Text)
	}
	// The block above showed nothing, so later is still news to a.
	if b := block("a", []string{cairn.ContextRelevant, cairn.ContextParallel}); !strings.Contains(section(b), later) {
		t.Errorf("a block of the relevant tier and parallel work:\n%s", b.Text)
	}
}
