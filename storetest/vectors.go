package storetest

import (
	"context"
	"slices"
	"testing"

	"github.com/cairn-dev/cairn"
)

// RunVectors runs the conformance tests of the cairn.VectorStore role
// against stores made by open; they are skipped for a store that keeps no
// vectors.
func RunVectors(t *testing.T, open Opener) {
	tests := []struct {
		name string
		fn   func(t *testing.T, s cairn.Store, vs cairn.VectorStore)
	}{
		{"VectorsRoundTripByModelAndHash", testVectorsRoundTrip},
		{"VectorsFollowContentNotMemory", testVectorsFollowContent},
		{"UnembeddedPagesByHashAndSkipsOtherProjects", testUnembeddedPages},
		{"MemoryVectorsAndCountsSeeWhatASearchSees", testMemoryVectorsScoped},
		{"BadVectorsAreInvalid", testBadVectors},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			s := openStore(t, open)
			if !s.SupportsVectors() {
				t.Skip("the store keeps no vectors")
			}
			tt.fn(t, s, s.Vectors())
		})
	}
}

func putVectors(t *testing.T, vs cairn.VectorStore, model string, hv ...cairn.HashVector) {
	t.Helper()
	if err := vs.PutVectors(t.Context(), model, hv); err != nil {
		t.Fatalf("PutVectors: %v", err)
	}
}

func testVectorsRoundTrip(t *testing.T, s cairn.Store, vs cairn.VectorStore) {
	ctx := t.Context()
	putVectors(t, vs, "m1", cairn.HashVector{Hash: "h1", Vector: []float32{1, -0.5, 3.25e-7}}, cairn.HashVector{Hash: "h2", Vector: []float32{0, 1}})
	putVectors(t, vs, "m2", cairn.HashVector{Hash: "h1", Vector: []float32{9}})
	got, err := vs.FindVectors(ctx, "m1", []string{"h1", "h2", "h3"})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || !slices.Equal(got["h1"], []float32{1, -0.5, 3.25e-7}) || !slices.Equal(got["h2"], []float32{0, 1}) {
		t.Errorf("model m1: %v", got)
	}
	// Replacing keeps one vector per model and hash.
	putVectors(t, vs, "m1", cairn.HashVector{Hash: "h1", Vector: []float32{2, 2}})
	got, _ = vs.FindVectors(ctx, "m1", []string{"h1"})
	other, _ := vs.FindVectors(ctx, "m2", []string{"h1", "h2"})
	if !slices.Equal(got["h1"], []float32{2, 2}) || len(other) != 1 || !slices.Equal(other["h1"], []float32{9}) {
		t.Errorf("after replacing: m1 %v, m2 %v", got, other)
	}
	many := make([]string, 1200) // more than one query's worth of parameters
	for i := range many {
		many[i] = "none"
	}
	many[1100] = "h2"
	if got, err := vs.FindVectors(ctx, "m1", many); err != nil || len(got) != 1 {
		t.Errorf("many hashes: %v, %v", got, err)
	}
}

func testVectorsFollowContent(t *testing.T, s cairn.Store, vs cairn.VectorStore) {
	ctx := t.Context()
	a, b := mem("p", 1), mem("p", 2)
	b.ContentHash = a.ContentHash // same content: one vector serves both
	create(t, s, a, b)
	putVectors(t, vs, "m", cairn.HashVector{Hash: a.ContentHash, Vector: []float32{1, 0}})
	if n, _ := vs.CountVectors(ctx, "m", "p"); n != (cairn.VectorCount{Memories: 2, Embedded: 2}) {
		t.Errorf("shared content: %+v", n)
	}
	// A changed memory has no vector until its new content gets one.
	b.ContentHash = "hash-changed"
	update(t, s, func(ctx context.Context, tx cairn.Tx) error { return tx.UpdateMemory(ctx, b) })
	if n, _ := vs.CountVectors(ctx, "m", "p"); n != (cairn.VectorCount{Memories: 2, Embedded: 1}) {
		t.Errorf("after a change: %+v", n)
	}
	un, err := vs.FindUnembedded(ctx, "m", "p", "", 10)
	if err != nil || len(un) != 1 || un[0].Hash != "hash-changed" || un[0].Text != b.Content {
		t.Errorf("unembedded after a change: %+v, %v", un, err)
	}
	// Another model sees nothing embedded.
	if n, _ := vs.CountVectors(ctx, "other", "p"); n.Embedded != 0 {
		t.Errorf("other model: %+v", n)
	}
	// A deleted memory's vector is no longer scanned.
	update(t, s, func(ctx context.Context, tx cairn.Tx) error { return tx.DeleteMemory(ctx, a.ID) })
	var seen []string
	vs.ScanMemoryVectors(ctx, "m", "p", func(mv cairn.MemoryVector) error { seen = append(seen, mv.ID); return nil })
	if len(seen) != 0 {
		t.Errorf("after deleting the embedded memory: %v", seen)
	}
}

func testUnembeddedPages(t *testing.T, s cairn.Store, vs cairn.VectorStore) {
	ctx := t.Context()
	var ms []*cairn.Memory
	for i := int64(1); i <= 7; i++ {
		ms = append(ms, mem("p", i))
	}
	ms = append(ms, mem("q", 8))
	create(t, s, ms...)
	putVectors(t, vs, "m", cairn.HashVector{Hash: "hash-3", Vector: []float32{1}})
	var hashes []string
	after := ""
	for {
		page, err := vs.FindUnembedded(ctx, "m", "p", after, 4)
		if err != nil {
			t.Fatal(err)
		}
		if len(page) == 0 {
			break
		}
		for _, ht := range page {
			hashes = append(hashes, ht.Hash)
		}
		after = page[len(page)-1].Hash
	}
	want := []string{"hash-1", "hash-2", "hash-4", "hash-5", "hash-6", "hash-7"}
	if !slices.Equal(hashes, want) {
		t.Errorf("pages: %v, want %v", hashes, want)
	}
	// "" is every project.
	all, err := vs.FindUnembedded(ctx, "m", "", "", 100)
	if err != nil || len(all) != 7 || all[6].Hash != "hash-8" {
		t.Errorf("every project: %+v, %v", all, err)
	}
	if n, _ := vs.CountVectors(ctx, "m", ""); n != (cairn.VectorCount{Memories: 8, Embedded: 1}) {
		t.Errorf("count of every project: %+v", n)
	}
}

func testMemoryVectorsScoped(t *testing.T, s cairn.Store, vs cairn.VectorStore) {
	ctx := t.Context()
	own, other, global := mem("p", 1), mem("q", 2), mem("q", 3)
	global.Scope, global.Partition = cairn.ScopeGlobal, ""
	create(t, s, own, other, global)
	putVectors(t, vs, "m",
		cairn.HashVector{Hash: own.ContentHash, Vector: []float32{1, 0}},
		cairn.HashVector{Hash: other.ContentHash, Vector: []float32{0, 1}},
		cairn.HashVector{Hash: global.ContentHash, Vector: []float32{1, 1}})
	got := map[string]cairn.MemoryVector{}
	err := vs.ScanMemoryVectors(ctx, "m", "p", func(mv cairn.MemoryVector) error { got[mv.ID] = mv; return nil })
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[own.ID].Global || got[own.ID].Project != "p" || !got[global.ID].Global || got[global.ID].Project != "q" {
		t.Errorf("scan of p: %+v", got)
	}
	if !slices.Equal(got[own.ID].Vector, []float32{1, 0}) || got[own.ID].Hash != own.ContentHash {
		t.Errorf("vector of %s: %v", own.ID, got[own.ID].Vector)
	}
	if n, _ := vs.CountVectors(ctx, "m", "p"); n != (cairn.VectorCount{Memories: 2, Embedded: 2}) {
		t.Errorf("count of p: %+v", n)
	}
	stop := cairn.Errorf(cairn.EINVALID, "stop")
	if err := vs.ScanMemoryVectors(ctx, "m", "p", func(cairn.MemoryVector) error { return stop }); err != stop {
		t.Errorf("fn's error: %v", err)
	}
}

// Bad input tried: no model, no hash, an empty vector.
func testBadVectors(t *testing.T, s cairn.Store, vs cairn.VectorStore) {
	ctx := t.Context()
	wantCode(t, vs.PutVectors(ctx, "", []cairn.HashVector{{Hash: "h", Vector: []float32{1}}}), cairn.EINVALID, "no model")
	wantCode(t, vs.PutVectors(ctx, "m", []cairn.HashVector{{Hash: "", Vector: []float32{1}}}), cairn.EINVALID, "no hash")
	wantCode(t, vs.PutVectors(ctx, "m", []cairn.HashVector{{Hash: "ok", Vector: []float32{1}}, {Hash: "h"}}), cairn.EINVALID, "empty vector")
	if got, _ := vs.FindVectors(ctx, "m", []string{"ok"}); len(got) != 0 {
		t.Errorf("a rejected batch stored %v", got)
	}
}
