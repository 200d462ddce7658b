package engine

import (
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/index"
)

// A long-lived engine decodes a partition's dead set once while it stays
// the same, and decodes it anew once a removal changed it, even one by
// another process: a search never scores a removed memory from a kept
// decoding.
func TestDeadSetIsKeptUntilItChanges(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	open := storeOpener(t)
	e := New(open(), &Options{CacheBytes: 8 << 20, Now: func() time.Time { return now }})
	var ids []string
	for i := range 40 {
		res, err := e.AddMemory(ctx, &cairn.Memory{Project: "p", Content: fmt.Sprintf("the flaky retry test %d times out on CI", i)})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, res.Memory.ID)
	}
	stats := func() *cairn.PartitionStats {
		t.Helper()
		var ps *cairn.PartitionStats
		if err := e.store.View(ctx, func(tx cairn.Tx) (err error) {
			ps, err = tx.Partition(ctx, "p")
			return err
		}); err != nil {
			t.Fatal(err)
		}
		return ps
	}
	decoded := func(ps *cairn.PartitionStats) index.DeadSet {
		t.Helper()
		d, err := e.deadSet(ps)
		if err != nil {
			t.Fatal(err)
		}
		want, err := index.DecodeDead(ps.Dead)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(d, want) {
			t.Fatalf("deadSet = %v, the stored set decodes to %v", d, want)
		}
		return d
	}
	// Before any removal the empty set is kept as well, by the
	// statistics a search reads (searchDead), so that a search does not
	// read the partition whole.
	if _, err := e.Search(ctx, cairn.Query{Project: "p", Text: "flaky retry", Limit: 5}); err != nil {
		t.Fatal(err)
	}
	if kept, ok := e.cache.deads["p"]; !ok || kept.stamp != stampOf(stats()) || kept.set.Len() != 0 {
		t.Errorf("after a search of a partition without removals the engine keeps %+v (ok %v), want its empty set by its statistics", kept, ok)
	}
	for _, id := range ids[:3] {
		if err := e.DeleteMemory(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	first := decoded(stats())
	if first.Len() != 3 {
		t.Fatalf("%d dead documents after 3 removals, want 3", first.Len())
	}
	if again := decoded(stats()); &again[0] != &first[0] {
		t.Error("the same stored dead set was decoded again, want the kept decoding")
	}
	search := func(left int) {
		t.Helper()
		hits, err := e.Search(ctx, cairn.Query{Project: "p", Text: "flaky retry", Limit: 50})
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range hits {
			if slices.Contains([]string{ids[0], ids[1], ids[2], ids[10]}, h.Memory.ID) && (h.Memory.ID != ids[10] || left == 36) {
				t.Errorf("search found %s, which was removed", h.Memory.ID)
			}
		}
		if len(hits) != left {
			t.Errorf("search found %d memories, want the %d left", len(hits), left)
		}
	}
	search(37)
	// Removed by another process: this engine learns of it from the
	// statistics alone.
	other := New(open(), &Options{Now: func() time.Time { return now }})
	if err := other.DeleteMemory(ctx, ids[10]); err != nil {
		t.Fatal(err)
	}
	search(36)
	// A stale set would not change what is found (the removed memory's
	// row is gone), but it would score removed documents.
	if kept := e.cache.deads["p"].set; kept.Len() != 4 {
		t.Errorf("the search kept %d dead documents after a fourth removal by another process, want 4", kept.Len())
	}
	if after := decoded(stats()); after.Len() != 4 {
		t.Errorf("%d dead documents after a fourth removal, want 4", after.Len())
	}
}
