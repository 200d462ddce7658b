package index

import (
	"container/heap"
	"encoding/binary"
	"math"
	"math/bits"
	"sync"

	"github.com/cairn-dev/cairn"
)

// Params are the BM25 parameters.
type Params struct {
	K1 float64 // term frequency saturation
	B  float64 // length normalisation
}

// DefaultParams returns the usual BM25 values (k1 1.2, b 0.75).
func DefaultParams() Params { return Params{K1: 1.2, B: 0.75} }

// Scored is a document and its BM25 score.
type Scored struct {
	Doc   int64
	Score float64
}

// Query is a weighted term of a search.
type Query struct {
	Term   string
	Weight float64 // multiplies the term's contribution; 1 is neutral
}

// IDF is the Lucene BM25 idf of a term found in df of n documents: always
// positive, so a very common term still counts a little.
func IDF(n, df int64) float64 {
	if df > n {
		df = n
	}
	return math.Log(1 + (float64(n)-float64(df)+0.5)/(float64(df)+0.5))
}

// Scorer ranks the documents of one partition. It is not safe for
// concurrent use; create one per search.
type Scorer struct {
	Params Params
	Stats  *cairn.PartitionStats
	Dead   DeadSet

	// A dense accumulator (one score per document of the partition) with
	// a bitmap of the documents that have a score, rather than a list of
	// them: in a fresh process every page of memory costs a fault, and a
	// list would cost many more pages than the bitmap's 1 bit a document.
	acc     []float32
	hit     []uint64
	matches int
	touched []int64 // sparse mode only
	sparse  map[int64]float64
}

// accPool recycles dense accumulators between searches of a long-lived
// process; a pooled accumulator is all zeros.
var accPool sync.Pool

// Release returns the scorer's buffers for reuse. The scorer must not be
// used afterwards.
func (s *Scorer) Release() {
	if s.acc != nil {
		for w, word := range s.hit {
			for word != 0 {
				b := bits.TrailingZeros64(word)
				word &^= 1 << b
				s.acc[int64(w)<<6|int64(b)] = 0
			}
		}
		a := s.acc
		accPool.Put(&a)
		s.acc = nil
	}
}

func getAcc(n int64) []float32 {
	if p, ok := accPool.Get().(*[]float32); ok && int64(cap(*p)) >= n {
		return (*p)[:n]
	}
	return make([]float32, n)
}

// maxDense is the largest partition scored with a dense accumulator.
const maxDense = 1 << 22

// Add scores the postings of one term with weight w.
func (s *Scorer) Add(tp cairn.TermPostings, w float64) error {
	n := s.Stats.Docs
	if n <= 0 || len(tp.Data) == 0 {
		return nil
	}
	if s.acc == nil && s.sparse == nil {
		if s.Stats.NextDoc <= maxDense {
			s.acc = getAcc(s.Stats.NextDoc)
			s.hit = make([]uint64, (s.Stats.NextDoc+63)/64)
		} else {
			s.sparse = map[int64]float64{}
		}
	}
	avgdl := float64(s.Stats.TotalLen) / float64(n)
	if avgdl <= 0 {
		avgdl = 1
	}
	k1, b := s.Params.K1, s.Params.B
	idf := IDF(n, tp.DF) * w
	// Precompute the length norm per quantised length.
	var norm [256]float64
	for i := range norm {
		norm[i] = k1 * (1 - b + b*lenTable[i]/avgdl)
	}
	if s.acc == nil {
		return Decode(tp.Data, func(doc int64, tf int, dl byte) {
			if s.Dead.Has(doc) {
				return
			}
			f := float64(tf)
			if _, ok := s.sparse[doc]; !ok {
				s.touched = append(s.touched, doc)
			}
			s.sparse[doc] += idf * f * (k1 + 1) / (f + norm[dl])
		})
	}
	// The hot loop: decode and accumulate in one pass, without a call per
	// posting. Entries are almost always one-byte deltas.
	acc, dead, data := s.acc, s.Dead, tp.Data
	var doc int64 = -1
	for i := 0; i < len(data); {
		c := data[i]
		if c != 0 && c < 0x80 {
			if doc < 0 {
				return ErrCorrupt
			}
			doc += int64(c)
			i++
		} else {
			v, n := binary.Uvarint(data[i:])
			if n <= 0 {
				return ErrCorrupt
			}
			i += n
			if v == 0 {
				a, n := binary.Uvarint(data[i:])
				if n <= 0 || a > math.MaxInt64 {
					return ErrCorrupt
				}
				i += n
				doc = int64(a)
			} else {
				if doc < 0 || v > uint64(math.MaxInt64-doc) {
					return ErrCorrupt
				}
				doc += int64(v)
			}
		}
		if i+2 > len(data) {
			return ErrCorrupt
		}
		tf, dl := data[i], data[i+1]
		i += 2
		if doc >= int64(len(acc)) || (len(dead) > 0 && dead.Has(doc)) {
			continue // dead, or written after the stats were read
		}
		f := float64(tf)
		if w, bit := doc>>6, uint64(1)<<(doc&63); s.hit[w]&bit == 0 {
			s.hit[w] |= bit
			s.matches++
		}
		acc[doc] += float32(idf * f * (k1 + 1) / (f + norm[dl]))
	}
	return nil
}

// Matches reports how many documents have a score.
func (s *Scorer) Matches() int {
	if s.acc != nil {
		return s.matches
	}
	return len(s.touched)
}

// Top returns up to k documents by score, best first; ties go to the newer
// document.
func (s *Scorer) Top(k int) []Scored {
	if k <= 0 {
		return nil
	}
	h := make(minHeap, 0, k)
	offer := func(doc int64, v float64) {
		x := Scored{Doc: doc, Score: v}
		if len(h) < k {
			heap.Push(&h, x)
		} else if less(h[0], x) {
			h[0] = x
			heap.Fix(&h, 0)
		}
	}
	if s.acc != nil {
		for w, word := range s.hit {
			for word != 0 {
				b := bits.TrailingZeros64(word)
				word &^= 1 << b
				doc := int64(w)<<6 | int64(b)
				if v := float64(s.acc[doc]); len(h) < k || v >= h[0].Score {
					offer(doc, v)
				}
			}
		}
	} else {
		for _, doc := range s.touched {
			offer(doc, s.sparse[doc])
		}
	}
	out := make([]Scored, len(h))
	for i := len(h) - 1; i >= 0; i-- {
		out[i] = heap.Pop(&h).(Scored)
	}
	return out
}

// less orders by score, then by document number (older is less).
func less(a, b Scored) bool {
	if a.Score != b.Score {
		return a.Score < b.Score
	}
	return a.Doc < b.Doc
}

type minHeap []Scored

func (h minHeap) Len() int           { return len(h) }
func (h minHeap) Less(i, j int) bool { return less(h[i], h[j]) }
func (h minHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *minHeap) Push(x any)        { *h = append(*h, x.(Scored)) }
func (h *minHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
