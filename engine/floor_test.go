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
