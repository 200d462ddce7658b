package index_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/index"
)

// randomPartition builds a partition of n documents whose words follow a
// Zipf-like law over a vocabulary of v words (so that some words are in
// most documents and most in few), written in chunks of random sizes as
// separate transactions append them, with some documents dead and, with
// after > 0, the last documents written after the statistics were read.
func randomPartition(r *rand.Rand, n, v, after int, deadShare float64) (*cairn.PartitionStats, map[string]cairn.TermPostings, index.DeadSet) {
	zipf := rand.NewZipf(r, 1.1, 2, uint64(v-1))
	data := map[string][]byte{}
	df := map[string]int64{}
	stats := &cairn.PartitionStats{Name: "p"}
	var dead index.DeadSet
	for doc := 0; doc < n; {
		b := index.NewBuilder()
		for end := min(n, doc+1+r.IntN(300)); doc < end; doc++ {
			terms := make([]string, 1+r.IntN(40))
			if r.IntN(5) == 0 { // past the length pivot
				terms = make([]string, 40+r.IntN(160))
			}
			for i := range terms {
				terms[i] = fmt.Sprintf("w%d", zipf.Uint64())
			}
			if r.IntN(50) == 0 { // a very long document, past QuantLen's exact range
				terms = append(terms, slices.Repeat([]string{"w0"}, 300)...)
			}
			b.Add(int64(doc), len(terms), terms)
			if doc >= n-after {
				continue // not counted in the statistics
			}
			if r.Float64() < deadShare {
				dead.Add(int64(doc))
				continue
			}
			stats.Docs++
			stats.TotalLen += int64(len(terms))
		}
		for _, tp := range b.Postings() {
			data[tp.Term] = append(data[tp.Term], tp.Data...)
			df[tp.Term] += tp.DF
		}
	}
	stats.NextDoc = int64(n - after)
	stats.DeadDocs = int64(dead.Len())
	tps := map[string]cairn.TermPostings{}
	for t, d := range data {
		tps[t] = cairn.TermPostings{Term: t, DF: df[t], Data: d}
	}
	return stats, tps, dead
}

// TestBoundedTopEqualsExhaustiveScoring compares Top, which skips the
// postings of documents that cannot enter the k best, with scoring every
// posting, on random partitions (seeded): queries of 1 to 12 words with
// random weights, common and rare words, words without postings, dead
// documents (up to nine in ten, as in a search narrowed to a few types),
// documents written after the statistics, coverage on and
// off, feedback terms that add score but no coverage, k from 1 to past
// the number of matches (as a search grows k when filters reject
// candidates), partitions past the size where scores are summed in
// float64, and queries of more terms than Scored.Held has bits for.
// Documents, scores and coverage must be equal to the bit, each
// document's Held bits must name exactly the added terms whose postings
// hold it (see heldRef) and its Len be its quantised length when it has
// a bit, and TopMore must report more matches whenever there are more
// than k.
func TestBoundedTopEqualsExhaustiveScoring(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(7, 11))
	queries, compared := 0, 0
	for round := 0; round < 60; round++ {
		n := 1 + r.IntN(3000)
		v := 20 + r.IntN(2000)
		after := 0
		if r.IntN(4) == 0 {
			after = r.IntN(n)
		}
		stats, tps, dead := randomPartition(r, n, v, after, []float64{0, 0.05, 0.5, 0.9}[r.IntN(4)])
		if r.IntN(6) == 0 {
			stats.NextDoc = 1<<22 + 1 // the float64 sums of large partitions
		}
		for range 25 {
			queries++
			nw := 1 + r.IntN(12)
			if r.IntN(10) == 0 {
				nw = 40 + r.IntN(60)
			}
			var qs []index.Query
			var qw float64
			for range nw {
				w := []float64{1, 0.5, 0.25, 0.2, 1.7, 0}[r.IntN(6)]
				qs = append(qs, index.Query{Term: fmt.Sprintf("w%d", r.IntN(v+5)), Weight: w})
				qw += w
			}
			var exp []index.Query
			for range r.IntN(3) * r.IntN(4) {
				exp = append(exp, index.Query{Term: fmt.Sprintf("w%d", r.IntN(v)), Weight: 0.4 * r.Float64()})
			}
			coord := 0.0
			if r.IntN(3) > 0 {
				coord = qw
			}
			share := []float64{0, 0.5, 1}[r.IntN(3)]
			scorers := [2]*index.Scorer{}
			for i := range scorers {
				s := &index.Scorer{Params: index.DefaultParams(), Stats: stats, Dead: dead, Coord: coord, CoordShare: share, Exhaustive: i == 1}
				for _, q := range qs {
					if err := s.Add(tps[q.Term], q.Weight); err != nil {
						t.Fatal(err)
					}
				}
				if i == 0 && queries%2 == 0 {
					// A Top before the expansion: the scorer's working
					// memory then serves a later Top with more terms.
					s.Top(3)
				}
				for _, q := range exp {
					if err := s.AddExpansion(tps[q.Term], q.Weight); err != nil {
						t.Fatal(err)
					}
				}
				scorers[i] = s
			}
			var added []cairn.TermPostings // the terms that take a place, in order
			for _, q := range append(slices.Clone(qs), exp...) {
				if tp := tps[q.Term]; len(tp.Data) > 0 {
					added = append(added, tp)
				}
			}
			held, lens := heldRef(t, added)
			bounded, exhaustive := scorers[0], scorers[1]
			matches := exhaustive.Matches()
			for _, k := range []int{1, 5, 20, 80, 320, matches, matches + 1} {
				if k <= 0 {
					continue
				}
				compared++
				got, more := bounded.TopMore(k)
				want := exhaustive.Top(k)
				if !slices.Equal(got, want) {
					t.Fatalf("round %d, query %v + %v, k %d, coord %v share %v: bounded Top\n%v\nwant\n%v", round, qs, exp, k, coord, share, got, want)
				}
				for _, sc := range got {
					if want := held[sc.Doc]; sc.Held != want {
						t.Fatalf("round %d, query %v + %v, k %d: document %d holds terms %b, want %b", round, qs, exp, k, sc.Doc, sc.Held, want)
					}
					if want := lens[sc.Doc]; sc.Held != 0 && sc.Len != want {
						t.Fatalf("round %d, query %v + %v, k %d: document %d has length %d, want %d", round, qs, exp, k, sc.Doc, sc.Len, want)
					}
				}
				if matches > k && !more {
					t.Fatalf("round %d, query %v, k %d: TopMore says no more, but %d documents match", round, qs, k, matches)
				}
				if more && matches < k {
					t.Fatalf("round %d, query %v, k %d: TopMore says more, but %d documents match", round, qs, k, matches)
				}
			}
			bounded.Release()
			exhaustive.Release()
		}
	}
	t.Logf("%d queries, %d comparisons", queries, compared)
}

// heldRef is Scored.Held of every document, computed from the postings:
// bit i for each of the first index.HeldTerms terms added whose postings
// hold the document; and each document's quantised length.
func heldRef(t *testing.T, added []cairn.TermPostings) (map[int64]uint64, map[int64]byte) {
	t.Helper()
	held, lens := map[int64]uint64{}, map[int64]byte{}
	for i, tp := range added[:min(len(added), index.HeldTerms)] {
		err := index.Decode(tp.Data, func(d int64, _ int, dl byte) { held[d] |= 1 << i; lens[d] = dl })
		if err != nil {
			t.Fatal(err)
		}
	}
	return held, lens
}

// TestBoundedTopOnStretchedPostings compares Top with scoring every
// posting on random partitions (seeded) unlike randomPartition's: each
// term's postings have stretches where it is frequent in short documents
// between stretches where it is held once by long ones, and some terms
// are held by nine documents in ten, in runs of consecutive documents
// (blocks of one-byte gaps, and documents at the edges of blocks that
// rank). Queries of 1 to 8 such terms, with random weights, coverage on
// and off, feedback terms, dead documents (up to nine in ten), documents
// written after the statistics, float32 and float64 sums, k from 1 to
// past the matches, each Top after a smaller one (as a search grows k). Documents, scores
// and coverage must be equal to the bit.
func TestBoundedTopOnStretchedPostings(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(3, 5))
	compared := 0
	for round := 0; round < 80; round++ {
		n := 300 + r.IntN(8000)
		lens := make([]int, n)
		for d := range lens {
			if r.IntN(3) == 0 {
				lens[d] = 1 + r.IntN(20)
			} else {
				lens[d] = 65 + r.IntN(2000)
			}
		}
		after := 0
		if r.IntN(4) == 0 {
			after = r.IntN(n / 4)
		}
		deadShare := []float64{0, 0.05, 0.5, 0.9}[r.IntN(4)]
		var dead index.DeadSet
		stats := &cairn.PartitionStats{Name: "p", NextDoc: int64(n - after)}
		for d := 0; d < n-after; d++ {
			if r.Float64() < deadShare {
				dead.Add(int64(d))
				continue
			}
			stats.Docs++
			stats.TotalLen += int64(lens[d])
		}
		stats.DeadDocs = int64(dead.Len())
		if stats.Docs == 0 {
			continue
		}
		if r.IntN(4) == 0 {
			stats.NextDoc = 1<<22 + 1 // the float64 sums of large partitions
		}
		terms := make([]cairn.TermPostings, 3+r.IntN(8))
		for i := range terms {
			var data []byte
			var df int64
			hot, dense := false, r.IntN(3) == 0
			for d, stretch := 0, 0; d < n; d++ {
				if stretch == 0 {
					stretch, hot = 1+r.IntN(1500), r.IntN(4) == 0
				}
				stretch--
				short := lens[d] <= 20
				var tf int
				switch {
				case dense && r.IntN(10) > 0:
					tf = 1
					if hot {
						tf += r.IntN(6)
					}
				case dense:
					continue
				case hot && short && r.IntN(3) > 0:
					tf = 1 + r.IntN(6)
				case hot && r.IntN(8) == 0, !hot && !short && r.IntN(3) == 0:
					tf = 1
				default:
					continue
				}
				data = index.AppendPosting(data, int64(d), tf, index.QuantLen(lens[d]))
				df++
			}
			terms[i] = cairn.TermPostings{Term: fmt.Sprintf("t%d", i), DF: df, Data: data}
		}
		for range 12 {
			nq := 1 + r.IntN(min(8, len(terms)))
			coord, share := 0.0, []float64{0, 0.5, 1}[r.IntN(3)]
			scorers := [2]*index.Scorer{}
			for i := range scorers {
				scorers[i] = &index.Scorer{Params: index.DefaultParams(), Stats: stats, Dead: dead, CoordShare: share, Exhaustive: i == 1}
			}
			for _, q := range r.Perm(len(terms))[:nq] {
				w := []float64{1, 0.5, 2, 0}[r.IntN(4)]
				expansion := r.IntN(5) == 0
				if !expansion {
					coord += w
				}
				for _, s := range scorers {
					var err error
					if expansion {
						err = s.AddExpansion(terms[q], w)
					} else {
						err = s.Add(terms[q], w)
					}
					if err != nil {
						t.Fatal(err)
					}
				}
			}
			if r.IntN(4) > 0 {
				for _, s := range scorers {
					s.Coord = coord
				}
			}
			bounded, exhaustive := scorers[0], scorers[1]
			matches := exhaustive.Matches()
			for _, k := range []int{1, 2, 5, 10, 20, 40, 100, matches + 1} {
				compared++
				got, more := bounded.TopMore(k)
				want := exhaustive.Top(k)
				if !slices.Equal(got, want) {
					t.Fatalf("round %d, k %d, coord %v share %v: bounded Top\n%v\nwant\n%v", round, k, bounded.Coord, share, got, want)
				}
				if matches > k && !more {
					t.Fatalf("round %d, k %d: TopMore says no more, but %d documents match", round, k, matches)
				}
			}
			bounded.Release()
			exhaustive.Release()
		}
	}
	t.Logf("%d comparisons", compared)
}
