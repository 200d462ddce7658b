package recall_test

import (
	"slices"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/config"
	"github.com/cairn-dev/cairn/recall"
)

// A keyword phrase tells cairn how to build the block; it is not what the
// prompt is about: a prompt with one finds the same memories as without
// it, even where memories hold the phrase's words. Tried: the default
// phrases in brackets, in capitals, spread over white space and at the
// end; a phrase the configuration adds (cairn.StripPhrases' own test
// tries the phrase's words inside longer words).
func TestAKeywordPhraseIsNotSearchedFor(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 11, 1, 0, 0, 0, 0, time.UTC)
	e := newEngine(t, func() time.Time { return now })
	cart := add(t, e, &cairn.Memory{Type: "pitfall", Content: "The cart total rounds per line, not per order."})
	add(t, e, &cairn.Memory{Type: "pattern", Content: "Quick task runner: the task queue runs a quick task before a long one."})
	add(t, e, &cairn.Memory{Type: "convention", Content: "Eco mode: a build in eco mode skips the slow integration tests."})
	add(t, e, &cairn.Memory{Type: "decision", Content: "No tests hit the network: no tests may open a socket; the fakes answer instead."})
	build := func(c *config.Config, prompt string) []string {
		t.Helper()
		b, err := recall.Build(t.Context(), e, c, cairn.ContextRequest{Profile: cairn.ProfilePrompt, Project: "p", Prompt: prompt})
		if err != nil {
			t.Fatal(err)
		}
		return b.IDs()
	}
	custom := func() *config.Config {
		c := config.Default()
		c.Keywords = append(c.Keywords, config.KeywordOverride{Phrase: "no tests", SearchLimit: 3})
		return c
	}
	base := build(config.Default(), "fix cart rounding")
	if !slices.Equal(base, []string{cart}) {
		t.Fatalf("the prompt without a keyword finds %v, want [%s]", base, cart)
	}
	for _, prompt := range []string{
		"(quick task) fix cart rounding",
		"fix cart rounding, QUICK\n  Task",
		"eco mode: fix cart rounding",
		"fix cart rounding [quick task] [eco mode]",
	} {
		if got := build(config.Default(), prompt); !slices.Equal(got, base) {
			t.Errorf("%q finds %v, want %v as without the phrase", prompt, got, base)
		}
	}
	if got := build(custom(), "no tests: fix cart rounding"); !slices.Equal(got, base) {
		t.Errorf("a configured phrase: finds %v, want %v", got, base)
	}
}
