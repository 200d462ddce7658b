package engine

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
)

// TestTagCandidatesEqualAListing: the memories that carry a tag, found
// from the index terms of their tags, are those a listing of the store
// finds (newest created first, the project's of either scope, not another
// project's global ones), narrowed to types, after tags were edited and
// memories deleted, with and without the postings cache.
func TestTagCandidatesEqualAListing(t *testing.T) {
	t.Parallel()
	for _, cacheBytes := range []int64{0, 1 << 20} {
		t.Run(fmt.Sprint("cache", cacheBytes), func(t *testing.T) {
			t.Parallel()
			st := openStore(t)
			now := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
			e := New(st, &Options{CacheBytes: cacheBytes, Now: func() time.Time { return now }})
			r := rand.New(rand.NewPCG(11, uint64(cacheBytes)))
			tags := []string{"error:aa11", "error:bb22", "cmd:go-test", "cmd:cargo-build", "team:x"}
			types := []string{"fix", "error_solution", "pitfall"}
			var ids []string
			for i := range 200 {
				now = now.Add(time.Minute)
				m := &cairn.Memory{Project: "p", Type: types[r.IntN(len(types))], Content: fmt.Sprintf("memory %d", i)}
				for range r.IntN(3) {
					m.Tags = append(m.Tags, tags[r.IntN(len(tags))])
				}
				switch r.IntN(10) {
				case 0:
					m.Scope = cairn.ScopeGlobal
				case 1:
					m.Project, m.Scope = "other", cairn.ScopeGlobal
				}
				ids = addAndChurn(t, e, r, ids, m, 12, func() cairn.MemoryUpdate {
					ts := []string{tags[r.IntN(len(tags))]}
					return cairn.MemoryUpdate{Tags: &ts}
				})
			}
			for _, q := range [][]string{{"error:aa11"}, {"cmd:go-test"}, {"error:aa11", "error:bb22"}, {"none:here"}} {
				for _, narrow := range [][]string{nil, {"fix", "error_solution"}} {
					got, err := e.tagCandidates(t.Context(), "p", q, narrow, 1000)
					if err != nil {
						t.Fatal(err)
					}
					var want []string
					seen := map[string]bool{}
					for _, tag := range q {
						ms, _, err := e.FindMemories(t.Context(), cairn.MemoryFilter{Project: "p", Types: narrow, Tags: []string{tag}, Limit: 1000})
						if err != nil {
							t.Fatal(err)
						}
						for _, m := range ms {
							if !seen[m.ID] {
								seen[m.ID] = true
								want = append(want, m.ID)
							}
						}
					}
					var gotIDs []string
					for _, m := range got {
						gotIDs = append(gotIDs, m.ID)
					}
					slices.Sort(want)
					sorted := slices.Clone(gotIDs)
					slices.Sort(sorted)
					if !slices.Equal(sorted, want) {
						t.Errorf("tags %v, types %v: found %v, a listing %v", q, narrow, sorted, want)
					}
					if !slices.IsSortedFunc(got, func(a, b *cairn.Memory) int { return b.CreatedAt.Compare(a.CreatedAt) }) {
						t.Errorf("tags %v: not the newest first", q)
					}
					if len(want) == 0 && q[0] != "none:here" {
						t.Errorf("tags %v, types %v: no memory carries them; the test's corpus is wrong", q, narrow)
					}
				}
			}
			if got, err := e.tagCandidates(t.Context(), "p", []string{"cmd:go-test"}, nil, 3); err != nil || len(got) != 3 {
				t.Errorf("a limit of 3: %d, %v", len(got), err)
			}
		})
	}
}
