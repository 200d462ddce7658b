package recall_test

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/config"
	"github.com/cairn-dev/cairn/recall"
)

// The static tier shows every static memory that fits the budget, not a
// few of each type; what does not fit is reported as omitted.
func TestTheStaticTierShowsEveryStaticMemoryThatFits(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	e := newEngine(t, func() time.Time { return now })
	var ids []string
	for i := range 8 {
		ids = append(ids, add(t, e, &cairn.Memory{Type: "decision", Content: fmt.Sprintf("Decision %d: service %c owns its tables.", i, 'a'+i)}))
		ids = append(ids, add(t, e, &cairn.Memory{Type: "preference", Content: fmt.Sprintf("Preference %d: name helper %c plainly.", i, 'a'+i)}))
	}
	b, err := recall.Build(t.Context(), e, config.Default(), cairn.ContextRequest{Project: "p", Profile: cairn.ProfileSessionStart})
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range ids {
		if !strings.Contains(b.Text, id) {
			t.Errorf("the session-start block lacks static memory %s:\n%s", id, b.Text)
		}
	}

	long := strings.Repeat(" It was weighed against the other options in a long review.", 12)
	for i := range 30 {
		add(t, e, &cairn.Memory{Type: "convention", Content: fmt.Sprintf("Convention %d: files of package %c stay small.%s", i, 'a'+i%26, long)})
	}
	b, err = recall.Build(t.Context(), e, config.Default(), cairn.ContextRequest{Project: "p", Profile: cairn.ProfileSessionStart, Explain: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Result.Omitted) == 0 || !strings.Contains(b.Result.Explain, "omitted:") || strings.Contains(b.Result.Explain, "(nothing)") {
		t.Errorf("static memories that do not fit are not reported as omitted:\n%s", b.Result.Explain)
	}
	for _, o := range b.Result.Omitted {
		if !strings.Contains(b.Result.Explain, o.ID) {
			t.Errorf("omitted %s is not in the explanation", o.ID)
		}
	}
}

// Within a static section, the memory that matches the prompt comes
// first, then the most trusted.
func TestTheStaticTierIsOrderedByRelevanceThenConfidence(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	e := newEngine(t, func() time.Time { return now })
	low := add(t, e, &cairn.Memory{Type: "decision", Content: "Invoices are rendered to PDF by the billing worker.", Confidence: 0.6})
	high := add(t, e, &cairn.Memory{Type: "decision", Content: "Every service logs in JSON to stdout.", Confidence: 0.95})
	mid := add(t, e, &cairn.Memory{Type: "decision", Content: "Feature flags live in the settings table.", Confidence: 0.8})
	order := func(b *recall.Block) []string {
		var out []string
		for _, p := range b.Result.Placed {
			if p.Section == "decisions" {
				out = append(out, p.ID)
			}
		}
		return out
	}
	b, err := recall.Build(t.Context(), e, config.Default(), cairn.ContextRequest{Project: "p"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := order(b), []string{high, mid, low}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("without a prompt the decisions are %v, want by confidence %v", got, want)
	}
	b, err = recall.Build(t.Context(), e, config.Default(), cairn.ContextRequest{Project: "p", Prompt: "how are invoices rendered to PDF"})
	if err != nil {
		t.Fatal(err)
	}
	if got := order(b); len(got) != 3 || got[0] != low || got[1] != high {
		t.Errorf("for a prompt about invoices the decisions are %v, want %s (the match) first, then %s", got, low, high)
	}
}

// Critical Constraints shows at most five (seed 002's cap), the most
// trusted; the others are reported as left out.
func TestCriticalConstraintsKeepACapOfFive(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	e := newEngine(t, func() time.Time { return now })
	var ids []string
	for i := range 7 {
		ids = append(ids, add(t, e, &cairn.Memory{Type: "constraint", Content: fmt.Sprintf("Constraint %d: table %c is append-only.", i, 'a'+i),
			Confidence: 0.9 - float64(i)*0.05}))
	}
	b, err := recall.Build(t.Context(), e, config.Default(), cairn.ContextRequest{Project: "p", Explain: true})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, p := range b.Result.Placed {
		if p.Section == "constraints" {
			n++
		}
	}
	if n != recall.CriticalCap {
		t.Errorf("%d critical constraints shown, want %d", n, recall.CriticalCap)
	}
	for i, id := range ids {
		if shown := strings.Contains(b.Text, id); shown != (i < recall.CriticalCap) {
			t.Errorf("constraint %d (%s) shown %v", i, id, shown)
		}
	}
	if x := recall.Explain(b); !strings.Contains(x, "left out "+ids[6]+": over the Critical Constraints cap of 5") {
		t.Errorf("the explanation does not say why %s was left out:\n%s", ids[6], x)
	}
}

// The hooks' blocks show each item's age and, in the relevant section,
// its relevance, as cairn context does.
func TestHookBlocksShowAgeAndRelevance(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	e := newEngine(t, func() time.Time { return now })
	then := now.Add(-72 * time.Hour)
	add(t, e, &cairn.Memory{Type: "pitfall", Content: "The payments webhook retries forever when the signing secret rotates.", CreatedAt: then})
	add(t, e, &cairn.Memory{Type: "decision", Content: "Payments go through the ledger service.", CreatedAt: then})
	for _, tc := range []struct {
		profile, prompt string
		want            []string
	}{
		{cairn.ProfilePrompt, "why does the payments webhook retry forever", []string{"3 days ago", "% relevant"}},
		{cairn.ProfileSessionStart, "", []string{"3 days ago"}},
	} {
		b, err := recall.Build(t.Context(), e, config.Default(), cairn.ContextRequest{Project: "p", Profile: tc.profile, Prompt: tc.prompt})
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range tc.want {
			if !strings.Contains(b.Text, w) {
				t.Errorf("the %s block lacks %q:\n%s", tc.profile, w, b.Text)
			}
		}
	}
}
