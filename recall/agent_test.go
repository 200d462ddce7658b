package recall_test

import (
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/recall"
)

func TestContextForAnAgentShowsItsLearnedPatternsByConfidence(t *testing.T) {
	t.Parallel()
	e := newEngine(t, func() time.Time { return time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC) })
	add := func(agent, typ, content string, conf float64) string {
		w, err := e.AddMemory(t.Context(), &cairn.Memory{Project: "p", Agent: agent, Type: typ, Content: content, Confidence: conf})
		if err != nil {
			t.Fatal(err)
		}
		return w.Memory.ID
	}
	var mars []string
	for i, c := range []float64{0.9, 0.5, 0.8, 0.6, 0.7, 0.4} {
		mars = append(mars, add("mars", "pattern", []string{"Mutations call requireAuth first", "Queries take a companyId",
			"Handlers return typed errors", "Schemas live in convex/schema.ts", "Indexes are named by_field", "Crons run in UTC"}[i], c))
	}
	add("mars", "session", "Session: wired the auth", 0.95)
	venus := add("venus", "pattern", "Components are functions with hooks", 0.95)

	b, err := recall.Build(t.Context(), e, cairn.DefaultSettings(), cairn.ContextRequest{Project: "p", Agent: "mars"})
	if err != nil {
		t.Fatal(err)
	}
	i := strings.Index(b.Text, "### mars Learned Patterns")
	if i < 0 {
		t.Fatalf("no section:\n%s", b.Text)
	}
	sec := b.Text[i:]
	if j := strings.Index(sec[4:], "\n### "); j >= 0 {
		sec = sec[:j+4]
	}
	// The five of highest confidence, in that order; not the 0.4 one, not
	// the session, not another agent's.
	order := []string{mars[0], mars[2], mars[4], mars[3], mars[1]}
	last := -1
	for _, id := range order {
		k := strings.Index(sec, id)
		if k < 0 || k < last {
			t.Errorf("%s missing or out of order in:\n%s", id, sec)
		}
		last = k
	}
	for _, id := range []string{mars[5], venus} {
		if strings.Contains(sec, id) {
			t.Errorf("%s should not be in the section:\n%s", id, sec)
		}
	}
	if strings.Contains(sec, "Session: wired") {
		t.Errorf("a session record counted as a pattern:\n%s", sec)
	}
	// A hook's block (tiers chosen) has no such section.
	hb, err := recall.Build(t.Context(), e, cairn.DefaultSettings(), cairn.ContextRequest{Project: "p", Agent: "mars", Tiers: []string{cairn.ContextStatic}})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(hb.Text, "Learned Patterns") {
		t.Errorf("hook block:\n%s", hb.Text)
	}
}
