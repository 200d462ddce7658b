package index_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/index"
)

// newestWant is NewestDocs by its definition: every document of the
// postings, below end and not in skip, the highest first, at most n.
func newestWant(t *testing.T, tps []cairn.TermPostings, skip index.DeadSet, end int64, n int) []int64 {
	t.Helper()
	var all []int64
	for _, tp := range tps {
		if err := index.Decode(tp.Data, func(doc int64, _ int, _ byte) {
			if doc < end && !skip.Has(doc) {
				all = append(all, doc)
			}
		}); err != nil {
			t.Fatal(err)
		}
	}
	slices.Sort(all)
	all = slices.Compact(all)
	slices.Reverse(all)
	return all[:min(len(all), max(n, 0))]
}

func prepareAll(t *testing.T, tps []cairn.TermPostings) []*index.Postings {
	t.Helper()
	var out []*index.Postings
	for _, tp := range tps {
		p, err := index.Prepare(tp)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, p)
	}
	return out
}

// The newest documents of several terms, some over many blocks, some
// sharing documents, with dead ones and an end below the last document,
// are those of a walk over every entry.
func TestNewestDocsAreTheHighestOfEveryEntry(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(7, 11))
	for round := range 300 {
		b := index.NewBuilder()
		terms := []string{"a", "b", "c", "d", "e"}
		docs := int64(1 + r.IntN(3000))
		for doc := range docs {
			var held []string
			for i, term := range terms {
				// "a" is held by most documents, "e" by few.
				if r.IntN(100) < 80>>(2*i) {
					held = append(held, term)
				}
			}
			if len(held) > 0 && r.IntN(4) > 0 {
				b.Add(doc, 1+r.IntN(50), held)
			}
		}
		tps := b.Postings()
		if r.IntN(3) == 0 {
			tps = tps[:r.IntN(len(tps)+1)]
		}
		var skip index.DeadSet
		for range r.IntN(int(docs)) {
			skip.Add(r.Int64N(docs + 64))
		}
		end := docs
		if r.IntN(2) == 0 {
			end = r.Int64N(docs + 1)
		}
		ps := prepareAll(t, tps)
		for _, n := range []int{0, 1, 7, 128, 200, 5000} {
			got := index.NewestDocs(ps, skip, end, n)
			if want := newestWant(t, tps, skip, end, n); !slices.Equal(got, want) {
				t.Fatalf("round %d, n %d, end %d: NewestDocs = %v,\nwant %v", round, n, end, got, want)
			}
		}
	}
}

// Postings whose documents do not increase (which no writer of the index
// makes) are read whole, with the same answer.
func TestNewestDocsOfPostingsOutOfOrder(t *testing.T) {
	t.Parallel()
	var a, b []byte
	a = index.AppendPosting(a, 500, 1, 3)
	a = index.AppendPosting(a, 2, 1, 3) // a restart that goes back
	a = index.AppendPosting(a, 300, 1, 3)
	b = index.AppendPosting(b, 2, 2, 3)
	b = index.AppendPosting(b, 400, 1, 3)
	tps := []cairn.TermPostings{{Term: "a", DF: 3, Data: a}, {Term: "b", DF: 2, Data: b}}
	ps := prepareAll(t, tps)
	var skip index.DeadSet
	skip.Add(300)
	for _, n := range []int{1, 2, 3, 10} {
		got := index.NewestDocs(ps, skip, 450, n)
		if want := newestWant(t, tps, skip, 450, n); !slices.Equal(got, want) {
			t.Errorf("n %d: NewestDocs = %v, want %v", n, got, want)
		}
	}
}
