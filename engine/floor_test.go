package engine_test

import (
	"fmt"
	"testing"

	"github.com/cairn-dev/cairn"
)

// Filler words count for nothing in the Strength of a prompt's matches
// only: in a search or a tool's output they are words like any other
// ("want 3 widgets, got 2" is not "widgets").
func TestFillerWordsCountOutsidePrompts(t *testing.T) {
	t.Parallel()
	e := rankingEngine(t, day0)
	for i := range 20 {
		put(t, e, &cairn.Memory{Content: fmt.Sprintf("note %d on the billing export job and its retries", i)})
	}
	fix := put(t, e, &cairn.Memory{Type: "fix", Content: "store_test.go: relation widgets does not exist; ran make migrate"})
	strength := func(prompt bool) float64 {
		for _, h := range searchHits(t, e, cairn.Query{Text: "store_test.go: want 3 widgets, got 2 after the import", Prompt: prompt}) {
			if h.Memory.ID == fix.ID {
				return h.Strength
			}
		}
		t.Fatalf("the search did not find %s", fix.ID)
		return 0
	}
	if asked, said := strength(false), strength(true); asked >= said {
		t.Errorf("strength %v in a search, %v in a prompt: want want and got to count against it in a search", asked, said)
	}
}

// A prompt whose words are more typical of another project of the
// database than of its own holds nothing of its own project's memories
// (Strength 0, its typicality in the explanation), though they share some
// of its words; put to the project it belongs to, the same prompt matches
// as before. A database of one project has nothing to compare with, nor
// has one whose other projects hold a handful of memories (a project of
// one memory holds each of its words in all of them): their strengths are
// as they were.
func TestPromptOfAnotherProjectHoldsNothing(t *testing.T) {
	t.Parallel()
	billing := []string{
		"invoice totals round half up; the rounding tests fail for currencies without a minor unit",
		"the webhook handler retries three times before it gives up",
		"tax rates are read from the rates table at startup",
		"refunds are issued as credit notes, never as negative invoices",
		"the nightly export writes one csv per customer",
		"the invoice tests fail when the clock is not frozen",
	}
	maps := []string{
		"tile projections use web mercator; the projection tests fail near the poles",
		"the tile cache is keyed by zoom level and projection",
		"the tile server answers 404 above zoom 19",
		"pole regions are drawn from a separate polar projection",
	}
	for i := range 20 {
		billing = append(billing, fmt.Sprintf("ledger entry %d is posted by the closing job", i))
		maps = append(maps, fmt.Sprintf("legend item %d is drawn by the style sheet", i))
	}
	const prompt = "why do the projection tests fail near the poles?"
	best := func(hits []cairn.Hit) cairn.Hit {
		var b cairn.Hit
		for _, h := range hits {
			if h.Strength >= b.Strength {
				b = h
			}
		}
		return b
	}
	alone := rankingEngine(t, day0)
	for _, c := range billing {
		put(t, alone, &cairn.Memory{Project: "billing", Content: c})
	}
	if b := best(searchHits(t, alone, cairn.Query{Project: "billing", Text: prompt, Prompt: true})); b.Strength < 0.3 || b.Explain.Typicality != 0 {
		t.Fatalf("alone in its database, billing's best strength %.2f (typicality %v): want it above 0.3, unmeasured", b.Strength, b.Explain.Typicality)
	}
	few := rankingEngine(t, day0)
	for _, c := range billing {
		put(t, few, &cairn.Memory{Project: "billing", Content: c})
	}
	for _, c := range maps[:4] {
		put(t, few, &cairn.Memory{Project: "maps", Content: c})
	}
	if b := best(searchHits(t, few, cairn.Query{Project: "billing", Text: prompt, Prompt: true})); b.Strength < 0.3 || b.Explain.Typicality != 0 {
		t.Errorf("beside a project of 4 memories, billing's best strength %.2f (typicality %v): want it above 0.3, unmeasured", b.Strength, b.Explain.Typicality)
	}
	e := rankingEngine(t, day0)
	for _, c := range billing {
		put(t, e, &cairn.Memory{Project: "billing", Content: c})
	}
	for _, c := range maps {
		put(t, e, &cairn.Memory{Project: "maps", Content: c})
	}
	hits := searchHits(t, e, cairn.Query{Project: "billing", Text: prompt, Prompt: true})
	if len(hits) == 0 {
		t.Fatal("the prompt found nothing in billing: want its shared words to find the failing tests")
	}
	for _, h := range hits {
		if h.Strength != 0 || h.Explain.Typicality >= 0 {
			t.Errorf("billing's %q: strength %.2f, typicality %.2f; want 0 and below 0", h.Memory.Content, h.Strength, h.Explain.Typicality)
		}
	}
	if b := best(searchHits(t, e, cairn.Query{Project: "maps", Text: prompt, Prompt: true})); b.Strength < 0.5 || b.Explain.Typicality <= 0 {
		t.Errorf("in maps, the best strength %.2f, typicality %.2f: want above 0.5 and above 0", b.Strength, b.Explain.Typicality)
	}
	// A search is not a prompt: nothing is measured, nothing changes.
	if b := best(searchHits(t, e, cairn.Query{Project: "billing", Text: prompt})); b.Strength == 0 || b.Explain.Typicality != 0 {
		t.Errorf("a search in billing: best strength %.2f, typicality %v; want its words' share, unmeasured", b.Strength, b.Explain.Typicality)
	}
}
