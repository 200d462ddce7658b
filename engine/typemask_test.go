package engine

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
)

// TestTypedSearchSkipsOtherTypes: a search narrowed to types finds the
// best memories of those types when hundreds of memories of other types
// score higher, without loading those from the store (it never asks for
// more candidates than its first cap), and follows a memory whose type
// was edited, one deleted and one added after the first search (the
// documents of each type are kept per index state). Its hits are those of
// the same search without the narrowing, filtered by type afterwards.
// With and without the postings cache.
func TestTypedSearchSkipsOtherTypes(t *testing.T) {
	t.Parallel()
	for _, cacheBytes := range []int64{0, 1 << 20} {
		t.Run(fmt.Sprint("cache", cacheBytes), func(t *testing.T) {
			t.Parallel()
			st := openStore(t)
			now := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
			counted := &loadCounter{Store: st}
			e := New(counted, &Options{CacheBytes: cacheBytes, Now: func() time.Time { return now }})
			add := func(typ, content string) string {
				t.Helper()
				res, err := e.AddMemory(t.Context(), &cairn.Memory{Project: "p", Type: typ, Content: content})
				if err != nil {
					t.Fatal(err)
				}
				return res.Memory.ID
			}
			var patterns []string
			for i := range 300 {
				patterns = append(patterns, add("pattern", fmt.Sprintf("retry retry retry the flaky upload, note %d", i)))
			}
			pitfalls := []string{
				add("pitfall", "the upload retry loses the checksum header"),
				add("pitfall", "a retry after a timeout doubles the rows written"),
				add("fix", "the retry budget is read from the environment"),
			}
			add("decision", "we chose exponential backoff for retry")

			search := func(types ...string) []string {
				t.Helper()
				counted.most = 0
				hits, err := e.Search(t.Context(), cairn.Query{Project: "p", Text: "retry", Limit: 3, Types: types, Now: now})
				if err != nil {
					t.Fatal(err)
				}
				if counted.most > minCandidates {
					t.Errorf("the search for %v loaded %d candidates at once, more than its first cap %d: it loaded memories of other types",
						types, counted.most, minCandidates)
				}
				var ids []string
				for _, h := range hits {
					if !slices.Contains(types, h.Memory.Type) {
						t.Errorf("hit %s is a %s, not one of %v", h.Memory.ID, h.Memory.Type, types)
					}
					ids = append(ids, h.Memory.ID)
				}
				// The same search without the narrowing, filtered.
				all, err := e.Search(t.Context(), cairn.Query{Project: "p", Text: "retry", Limit: cairn.MaxLimit, Now: now})
				if err != nil {
					t.Fatal(err)
				}
				var want []string
				for _, h := range all {
					if slices.Contains(types, h.Memory.Type) && len(want) < 3 {
						want = append(want, h.Memory.ID)
					}
				}
				if !slices.Equal(ids, want) {
					t.Errorf("search for %v = %v, want %v (the unnarrowed search's, filtered)", types, ids, want)
				}
				return ids
			}
			got := search("pitfall", "fix")
			if len(got) != 3 {
				t.Fatalf("got %d pitfalls and fixes, want the 3", len(got))
			}
			// A pattern becomes a pitfall, a pitfall is deleted, a new
			// one is added.
			typ := "pitfall"
			if _, err := e.UpdateMemory(t.Context(), patterns[7], cairn.MemoryUpdate{Type: &typ}); err != nil {
				t.Fatal(err)
			}
			if err := e.DeleteMemory(t.Context(), pitfalls[0]); err != nil {
				t.Fatal(err)
			}
			fresh := add("pitfall", "retry the retry of the retry: never")
			got = search("pitfall")
			if !slices.Contains(got, patterns[7]) || !slices.Contains(got, fresh) || slices.Contains(got, pitfalls[0]) {
				t.Errorf("after the edits the pitfalls are %v: want the edited %s and the new %s, not the deleted %s",
					got, patterns[7], fresh, pitfalls[0])
			}
			if got := search("constraint"); len(got) != 0 {
				t.Errorf("a type no memory has found %v", got)
			}
			// Type names are normalised as the memories' are.
			hits, err := e.Search(t.Context(), cairn.Query{Project: "p", Text: "retry", Types: []string{"Decision"}, Now: now})
			if err != nil || len(hits) != 1 || hits[0].Memory.Type != "decision" {
				t.Errorf("a search for type Decision = %v, %v; want the one decision", hits, err)
			}
		})
	}
}
