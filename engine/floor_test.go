package engine_test

import (
	"fmt"
	"math"
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
// database than of its own holds next to nothing of its own project's
// memories (Strength far below any floor: times the small chance that the
// prompt is the project's; its typicality in the explanation), though they share some
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
		if h.Strength >= 0.05 || h.Explain.Typicality >= 0 {
			t.Errorf("billing's %q: strength %.2f, typicality %.2f; want far below any floor and below 0", h.Memory.Content, h.Strength, h.Explain.Typicality)
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

// A prompt whose project is in doubt (its words about as typical of
// another project of the database as of its own) holds its project's
// memories in proportion to the chance that it is the project's
// (cairn.PromptBelongs of its typicality): a memory that would clear the
// relevance floor on its words alone needs a stronger match. A prompt
// plainly the project's keeps nearly all its strength.
func TestDoubtfulPromptNeedsAStrongerMatch(t *testing.T) {
	t.Parallel()
	e := rankingEngine(t, day0)
	for i := range 20 {
		put(t, e, &cairn.Memory{Project: "api", Content: fmt.Sprintf("route %d is served by the gateway", i)})
		put(t, e, &cairn.Memory{Project: "web", Content: fmt.Sprintf("page %d is rendered by the template", i)})
	}
	for _, c := range []string{
		"the login form keeps its session in a cookie",
		"a session cookie lasts a day",
		"the login page shows the session timeout",
	} {
		put(t, e, &cairn.Memory{Project: "web", Content: c})
	}
	for _, c := range []string{
		"the login endpoint issues a session token",
		"session tokens are signed with the rotating key",
		"the token refresh endpoint rejects expired signatures",
	} {
		put(t, e, &cairn.Memory{Project: "api", Content: c})
	}
	strengths := func(text string, prompt bool) map[string]cairn.Hit {
		out := map[string]cairn.Hit{}
		for _, h := range searchHits(t, e, cairn.Query{Project: "api", Text: text, Prompt: prompt}) {
			out[h.Memory.ID] = h
		}
		return out
	}
	for _, c := range []struct {
		prompt   string
		doubtful bool
	}{
		{"when does the login session expire", true},
		{"which endpoint signs the session token with the rotating key", false},
	} {
		asked, said := strengths(c.prompt, false), strengths(c.prompt, true)
		for id, h := range said {
			raw := asked[id].Strength
			x := h.Explain.Typicality
			if x == 0 {
				t.Fatalf("%q: typicality not measured", c.prompt)
			}
			want := raw * cairn.PromptBelongs(x)
			if math.Abs(h.Strength-want) > 1e-9 {
				t.Errorf("%q: %q has strength %.3f in a prompt, %.3f in a search, typicality %.2f: want %.3f", c.prompt, h.Memory.Content, h.Strength, raw, x, want)
			}
			if c.doubtful && (x < 0 || x > 2) {
				t.Errorf("%q: typicality %.2f, want a doubtful prompt (between 0 and 2)", c.prompt, x)
			}
			if !c.doubtful && raw > 0 && h.Strength < 0.95*raw {
				t.Errorf("%q: typicality %.2f, strength %.3f of %.3f: want a prompt plainly the project's to keep its strength", c.prompt, x, h.Strength, raw)
			}
		}
	}
}
