package recall_test

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/recall"
)

func TestTheContextBlockGivesAgesAndRelevanceButHookBlocksDoNot(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	clock := now.Add(-3 * time.Hour)
	e := newEngine(t, func() time.Time { return clock })
	if _, err := e.AddMemory(t.Context(), &cairn.Memory{Project: "p", Type: "pitfall", Content: "The rate limiter test is flaky under -race"}); err != nil {
		t.Fatal(err)
	}
	clock = now
	req := cairn.ContextRequest{Project: "p", Prompt: "the rate limiter test fails under -race"}
	b, err := recall.Build(t.Context(), e, cairn.DefaultSettings(), req)
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`\(id mem-\w+, 2026-06-01, 3 hours ago, \d+% relevant\)`).MatchString(b.Text) {
		t.Errorf("no age and relevance:\n%s", b.Text)
	}
	req.Tiers = []string{cairn.ContextRelevant}
	hb, err := recall.Build(t.Context(), e, cairn.DefaultSettings(), req)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(hb.Text, "ago") || !strings.Contains(hb.Text, "rate limiter") {
		t.Errorf("hook block:\n%s", hb.Text)
	}
}
