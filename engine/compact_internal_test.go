package engine

import (
	"fmt"
	"slices"
	"testing"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/index"
)

// TestCompactInStepsRemovesDeadPostingsAcrossTransactions leaves a
// partition with more dead documents than a flush allows (its flushes held
// off, as during a cleanup), compacts it in steps, and checks that no term
// keeps a posting of a removed memory, each term's document frequency
// counts its postings, the dead set is empty, searches find what they
// found before, and it took several transactions (the partition has more
// than compactStep terms).
func TestCompactInStepsRemovesDeadPostingsAcrossTransactions(t *testing.T) {
	t.Parallel()
	st := openStore(t)
	e := New(st, nil)
	ctx := t.Context()
	const n = 1200
	var ids []string
	for i := range n {
		res, err := e.AddMemory(ctx, &cairn.Memory{Project: "p", Content: fmt.Sprintf("shared ocelot word%d and term%d", i, i%7)})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, res.Memory.ID)
	}
	release := e.compacting.hold("p")
	for _, id := range ids[:n/2] {
		if err := e.DeleteMemory(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	release()
	stats := func() *cairn.PartitionStats {
		var ps *cairn.PartitionStats
		if err := st.View(ctx, func(tx cairn.Tx) (err error) { ps, err = tx.Partition(ctx, "p"); return err }); err != nil {
			t.Fatal(err)
		}
		return ps
	}
	if ps := stats(); ps.DeadDocs != n/2 || !compactionDue(ps) {
		t.Fatalf("before: %d dead documents, due %v; want %d, due", ps.DeadDocs, compactionDue(ps), n/2)
	}
	search := func() []string {
		hits, err := e.Search(ctx, cairn.Query{Project: "p", Text: "ocelot term3", Limit: cairn.MaxLimit})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, h := range hits {
			out = append(out, h.Memory.ID)
		}
		slices.Sort(out)
		return out
	}
	want := search()
	version := func() int64 {
		v, err := st.DataVersion(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	commits := version()
	if err := e.compactInSteps(ctx, "p"); err != nil {
		t.Fatal(err)
	}
	if got := version() - commits; got < 3 {
		t.Errorf("compaction took %d transactions, want several (steps of %d terms, then the dead set)", got, compactStep)
	}
	if ps := stats(); ps.DeadDocs != 0 || len(ps.Dead) != 0 {
		t.Errorf("after: %d dead documents (%d bytes), want none", ps.DeadDocs, len(ps.Dead))
	}
	gone := map[int64]bool{}
	for i := range n / 2 {
		gone[int64(i)] = true // document numbers follow the order of adding
	}
	terms := 0
	for after := ""; ; {
		var tps []cairn.TermPostings
		if err := st.View(ctx, func(tx cairn.Tx) (err error) { tps, err = tx.ScanPostings(ctx, "p", after, 1000); return err }); err != nil {
			t.Fatal(err)
		}
		if len(tps) == 0 {
			break
		}
		for _, tp := range tps {
			terms++
			var df int64
			if err := index.Decode(tp.Data, func(doc int64, _ int, _ byte) {
				df++
				if gone[doc] {
					t.Errorf("term %q still holds removed document %d", tp.Term, doc)
				}
			}); err != nil {
				t.Fatal(err)
			}
			if df != tp.DF {
				t.Errorf("term %q: DF %d, %d postings", tp.Term, tp.DF, df)
			}
		}
		after = tps[len(tps)-1].Term
	}
	if terms <= compactStep {
		t.Errorf("%d terms: not enough for several steps", terms)
	}
	if got := search(); !slices.Equal(got, want) {
		t.Errorf("search after compaction = %v, want %v", got, want)
	}
}
