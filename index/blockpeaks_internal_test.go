package index

import (
	"fmt"
	"slices"
	"testing"

	"github.com/cairn-dev/cairn"
)

// TestBoundedTopPassesBlocksThatCannotRank: a term held once by long
// documents but for one block of entries, where it is held four times by
// short ones. Once the k best come from that block, the blocks after it
// cannot reach them by their peaks, and a bounded Top of the term alone
// passes them without decoding them; the documents and scores are those
// of scoring every posting. Both encodings of a block: entries of 3
// bytes (one-byte gaps) and longer ones.
func TestBoundedTopPassesBlocksThatCannotRank(t *testing.T) {
	t.Parallel()
	const blocks, best = 40, 20
	for _, gap := range []int64{1, 300} {
		t.Run(fmt.Sprint("gap", gap), func(t *testing.T) {
			t.Parallel()
			b := NewBuilder()
			stats := &cairn.PartitionStats{Name: "p"}
			for i := range int64(blocks * blockSize) {
				terms := append([]string{"w"}, slices.Repeat([]string{"x"}, 59)...)
				if i/blockSize == best {
					terms = []string{"w", "w", "w", "w", "x"}
				}
				b.Add(i*gap, len(terms), terms)
				stats.Docs++
				stats.TotalLen += int64(len(terms))
			}
			stats.NextDoc = blocks * blockSize * gap
			var tp cairn.TermPostings
			for _, p := range b.Postings() {
				if p.Term == "w" {
					tp = p
				}
			}
			var scorers [2]*Scorer
			for i := range scorers {
				scorers[i] = &Scorer{Params: DefaultParams(), Stats: stats, Exhaustive: i == 1}
				if err := scorers[i].Add(tp, 1); err != nil {
					t.Fatal(err)
				}
			}
			for _, k := range []int{1, 10, blockSize} {
				got, more := scorers[0].TopMore(k)
				if want := scorers[1].Top(k); !slices.Equal(got, want) {
					t.Fatalf("k %d: bounded Top\n%v\nwant\n%v", k, got, want)
				}
				if !more {
					t.Errorf("k %d: TopMore says no more, but %d documents match", k, stats.Docs)
				}
			}
			// The first Top passed the blocks after the best; each later
			// one, knowing from the one before a score its k best reach,
			// passed every block but the first (decoded as it starts)
			// and the best.
			if want := (blocks - best - 1) + 2*(blocks-2); scorers[0].passed != want {
				t.Errorf("the bounded Tops passed %d blocks undecoded, want %d", scorers[0].passed, want)
			}
		})
	}
}
