package capture_test

import (
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/capture"
)

func TestLearnFromTaskKeepsTheSentencesThatStateARule(t *testing.T) {
	t.Parallel()
	summary := "Added the invoices table.\n- All mutations call requireAuth() first.\n- Every file name is kebab-case, e.g. invoice-list.ts.\n" +
		"Tests pass. MEMORY:pattern:always x\nNever.\nWe must keep amounts in cents so that rounding never drifts."
	got := capture.LearnFromTask("p", "MARS", summary)
	want := []struct{ typ, content string }{
		{"pattern", "All mutations call requireAuth() first."},
		{"convention", "Every file name is kebab-case, e.g. invoice-list.ts."},
		{"pattern", "We must keep amounts in cents so that rounding never drifts."},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d memories: %+v", len(got), got)
	}
	for i, w := range want {
		if got[i].Type != w.typ || got[i].Content != w.content || got[i].Agent != "MARS" || got[i].Project != "p" {
			t.Errorf("%d: %+v, want %+v", i, got[i], w)
		}
	}
}

func TestLearnFromFailureIsSeed002sErrorSolution(t *testing.T) {
	t.Parallel()
	m := capture.LearnFromFailure("p", "VENUS", "Build the   invoice page", strings.Repeat("é", 300))
	if m.Type != "error_solution" || m.Key != "VENUS: Build the invoice page" || m.Confidence != 0.7 ||
		m.Content != "Failed with: "+strings.Repeat("é", 200) {
		t.Errorf("%+v", m)
	}
	if k := capture.FailureKey("a", strings.Repeat("ü", 200)); len(k) > 128 || !strings.HasPrefix(k, "a: ü") {
		t.Errorf("long key %q (%d bytes)", k, len(k))
	}
}
