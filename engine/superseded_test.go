package engine_test

import (
	"slices"
	"testing"

	"github.com/cairn-dev/cairn"
)

// A replaced decision that matches the query better than its revision
// still ranks below it, as does every link of a chain below the link
// that replaced it; the scores still fall down the list, and a memory
// outside the chain keeps its place among the others.
func TestSupersededMemoryRanksBelowItsReplacement(t *testing.T) {
	t.Parallel()
	e := rankingEngine(t, day0)
	first := put(t, e, &cairn.Memory{Type: "decision", Content: "Sessions are stored in Redis: session lookup by session id is fast, and sessions expire on their own."})
	second := put(t, e, &cairn.Memory{Type: "decision", Content: "Sessions moved to Memcached after the Redis cluster was retired."})
	third := put(t, e, &cairn.Memory{Type: "decision", Content: "Sessions now live in PostgreSQL: the cache lost them on restart."})
	other := put(t, e, &cairn.Memory{Type: "pitfall", Content: "Session lookup by id must lower-case the session id first."})
	q := cairn.Query{Text: "where are sessions stored, session lookup by session id"}
	before := hitIDs(searchHits(t, e, q))
	if i, j := slices.Index(before, first.ID), slices.Index(before, third.ID); i < 0 || j < 0 || i > j {
		t.Fatalf("the test needs the first decision above the last before any supersede: %v", before)
	}
	for _, s := range [][2]*cairn.Memory{{first, second}, {second, third}} {
		if _, err := e.UpdateMemory(t.Context(), s[0].ID, cairn.MemoryUpdate{SupersededBy: &s[1].ID}); err != nil {
			t.Fatal(err)
		}
	}
	hits := searchHits(t, e, q)
	got := hitIDs(hits)
	pos := func(id string) int { return slices.Index(got, id) }
	if pos(third.ID) < 0 || pos(second.ID) < pos(third.ID) || pos(first.ID) < pos(second.ID) {
		t.Errorf("search = %v; want %s (current) above %s above %s (each below what replaced it)", got, third.ID, second.ID, first.ID)
	}
	if pos(other.ID) < 0 {
		t.Errorf("search = %v lost %s", got, other.ID)
	}
	for i := 1; i < len(hits); i++ {
		if hits[i].Score > hits[i-1].Score {
			t.Errorf("scores rise down the list at %d: %v > %v", i, hits[i].Score, hits[i-1].Score)
		}
	}
	// Without its replacement among the hits, a replaced memory keeps
	// its place and says what replaced it.
	only := searchHits(t, e, cairn.Query{Text: "Redis session lookup expire on their own", Types: []string{"decision"}, Limit: 1})
	if len(only) != 1 || only[0].Memory.ID != first.ID || only[0].Memory.SupersededBy != second.ID {
		t.Errorf("search limited to one = %v, want %s marked superseded by %s", hitIDs(only), first.ID, second.ID)
	}
}
