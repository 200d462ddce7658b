package engine

import (
	"fmt"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
)

// finish ranks every hit kept in pooled working memory and returns copies
// of the best: the answer holds q.Limit hits, and the working memory it
// puts back holds no memory, so the pool keeps no search's rows alive.
func TestFinishReturnsTheBestAndPoolsNoMemories(t *testing.T) {
	now := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	e := New(storeOpener(t)(), &Options{Now: func() time.Time { return now }, CacheBytes: 1 << 20})
	ctx := t.Context()
	for i := range 20 {
		if _, err := e.AddMemory(ctx, &cairn.Memory{Project: "p", Type: "note", Content: fmt.Sprintf("the deploy script failed on host %d", i)}); err != nil {
			t.Fatal(err)
		}
	}
	q := cairn.Query{Project: "p", Text: "deploy script failed", Limit: 5}
	first, err := e.Search(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	if len(first) != 5 {
		t.Fatalf("%d hits, want 5", len(first))
	}
	work := rankingHits.Get().(*[]hit)
	defer rankingHits.Put(work)
	if len(*work) > 0 && len(*work) < 20 {
		t.Errorf("the working memory held %d hits, want all 20 kept", len(*work))
	}
	for i, h := range *work {
		if h.Memory != nil {
			t.Fatalf("the pooled working memory still holds hit %d's memory %s", i, h.Memory.ID)
		}
	}
	q.Limit = 20
	all, err := e.Search(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	for i, h := range first {
		if all[i].Memory.ID != h.Memory.ID || all[i].Score != h.Score {
			t.Errorf("hit %d: %s %.4f, the longer answer's %s %.4f", i, h.Memory.ID, h.Score, all[i].Memory.ID, all[i].Score)
		}
	}
}
