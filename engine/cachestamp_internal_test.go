package engine

import (
	"fmt"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/index"
	"github.com/cairn-dev/cairn/lexical"
)

// A long-lived engine keeps the postings it read, and the documents of
// other types a typed search skips, across removals (a cleanup removes
// memories at every page it commits, and the postings stay as they were),
// while the removed memories are never found; a new document or a
// compaction, which change the postings, have them read again.
func TestPostingsAndTypeMasksOutliveRemovals(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	open := storeOpener(t)
	e := New(open(), &Options{CacheBytes: 8 << 20, Now: func() time.Time { return now }})
	other := New(open(), &Options{Now: func() time.Time { return now }}) // another process
	var ids []string
	for i := range 400 {
		typ := "note"
		if i%2 == 0 {
			typ = "fix"
		}
		res, err := e.AddMemory(ctx, &cairn.Memory{Project: "p", Type: typ, Content: fmt.Sprintf("the flaky retry test %d times out on CI", i)})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, res.Memory.ID)
	}
	removed := map[string]bool{}
	search := func(types ...string) {
		t.Helper()
		hits, err := e.Search(ctx, cairn.Query{Project: "p", Text: "flaky retry", Types: types, Limit: 500})
		if err != nil {
			t.Fatal(err)
		}
		want := 0
		for i, id := range ids {
			if !removed[id] && (types == nil || i%2 == 0) {
				want++
			}
		}
		for _, h := range hits {
			if removed[h.Memory.ID] {
				t.Errorf("search found %s, which was removed", h.Memory.ID)
			}
		}
		if len(hits) != want {
			t.Errorf("search %v found %d memories, want %d", types, len(hits), want)
		}
	}
	kept := func() map[cacheKey]*index.Postings {
		out := map[cacheKey]*index.Postings{}
		e.cache.mu.Lock()
		defer e.cache.mu.Unlock()
		for k, el := range e.cache.entries {
			out[k] = el.Value.(*cacheEntry).p
		}
		return out
	}
	mask := func() typeMask {
		e.cache.mu.Lock()
		defer e.cache.mu.Unlock()
		return e.cache.masks[maskKey{"p", "fix"}]
	}
	// remove removes n memories by another process, of type note first,
	// and one of type fix.
	remove := func(n int) {
		t.Helper()
		del := func(id string) {
			t.Helper()
			if err := other.DeleteMemory(ctx, id); err != nil {
				t.Fatal(err)
			}
			removed[id] = true
		}
		for _, start := range []int{1, 0} {
			for i := start; i < len(ids) && n > 0; i += 2 {
				if !removed[ids[i]] {
					del(ids[i])
					n--
				}
			}
		}
		for i := len(ids) - 1; i >= 0; i-- {
			if i%2 == 0 && !removed[ids[i]] {
				del(ids[i])
				break
			}
		}
	}
	same := func(a, b map[cacheKey]*index.Postings) int {
		n := 0
		for k, p := range a {
			if b[k] == p {
				n++
			}
		}
		return n
	}

	search()
	search("fix")
	before, m := kept(), mask()
	if len(before) == 0 || m.other == nil {
		t.Fatalf("the searches kept %d postings and mask %v", len(before), m.other != nil)
	}
	remove(5)
	search()
	search("fix")
	if after := kept(); same(before, after) != len(before) {
		t.Errorf("after 6 removals %d of the %d postings kept are the same, want all", same(before, after), len(before))
	}
	if m2 := mask(); &m2.other[0] != &m.other[0] {
		t.Error("after removals the documents of other types were read again, want them kept")
	} else if m2.stamp == m.stamp {
		t.Error("the mask's dead set was not renewed after removals")
	}

	// A new document: its words' postings change.
	res, err := other.AddMemory(ctx, &cairn.Memory{Project: "p", Type: "fix", Content: "the flaky retry test 400 times out on CI"})
	if err != nil {
		t.Fatal(err)
	}
	ids = append(ids, res.Memory.ID) // number 400, of type fix
	search()
	if n := same(before, kept()); n == len(before) {
		t.Error("after a new document every postings kept is the same, want those of its words read again")
	}

	// A compaction takes the removed documents out of the postings.
	before = kept()
	remove(300)
	if err := e.store.View(ctx, func(tx cairn.Tx) error {
		ps, err := tx.Partition(ctx, "p")
		if err == nil && ps.Docs+ps.DeadDocs == ps.NextDoc {
			t.Fatalf("the index holds all %d documents, want a compaction to have taken removed ones out", ps.NextDoc)
		}
		return err
	}); err != nil {
		t.Fatal(err)
	}
	search()
	search("fix")
	terms, _ := lexical.Analyze("flaky retry", nil)
	terms = append(terms, typeTerm("fix"))
	var stored map[string]int64
	if err := e.store.View(ctx, func(tx cairn.Tx) (err error) {
		stored, err = tx.DocFreqs(ctx, "p", terms)
		return err
	}); err != nil {
		t.Fatal(err)
	}
	now2 := kept()
	for _, term := range terms {
		p := now2[cacheKey{"p", term}]
		switch {
		case p == nil:
			t.Errorf("after a compaction no postings of %q kept", term)
		case p.DF != stored[term] || p == before[cacheKey{"p", term}]:
			t.Errorf("after a compaction the postings kept of %q hold %d documents, want read again with the %d stored", term, p.DF, stored[term])
		}
	}
}
