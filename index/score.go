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

// DefaultParams returns the BM25 values cairn ranks with: k1 1.2 and b
// 0.4, below the usual 0.75 because memories are short (one to five
// sentences) and a full length normalisation favours the shortest ones
// ("Thanks!"); README's "How search ranks" gives the measurement.
func DefaultParams() Params { return Params{K1: 1.2, B: 0.4} }

// Scored is a document and its score: BM25 times the coverage factor
// (see Scorer.Coord).
type Scored struct {
	Doc   int64
	Score float64
	BM25  float64 // the BM25 score alone
	// Coverage is the share of the query's weight (Scorer.Coord) whose
	// terms the document holds, in [0, 1]; 1 when Coord is 0.
	Coverage float64
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
	// Coord, when positive, is the query's total weight: a document's
	// score is then its BM25 times (1 − CoordShare) + CoordShare ×
	// coverage, where coverage is the weight of the query terms it holds
	// (as added with Add) over Coord. A memory that matches every word of
	// a query outranks one that matches one rare word often.
	Coord      float64
	CoordShare float64

	// A dense accumulator (one score per document of the partition) with
	// a bitmap of the documents that have a score, rather than a list of
	// them: in a fresh process every page of memory costs a fault, and a
	// list would cost many more pages than the bitmap's 1 bit a document.
	acc     []float32
	cov     []float32 // weight of the query terms each document holds
	hit     []uint64
	matches int
	touched []int64 // sparse mode only
	sparse  map[int64]float64
	scov    map[int64]float64
}

// accPool recycles dense accumulators between searches of a long-lived
// process; a pooled accumulator is all zeros.
var accPool sync.Pool

// Release returns the scorer's buffers for reuse. The scorer must not be
// used afterwards.
func (s *Scorer) Release() {
	s.release(s.acc)
	s.release(s.cov)
	s.acc, s.cov = nil, nil
}

// release zeroes the entries of a dense accumulator that have a score and
// pools it.
func (s *Scorer) release(a []float32) {
	if a == nil {
		return
	}
	for w, word := range s.hit {
		for word != 0 {
			b := bits.TrailingZeros64(word)
			word &^= 1 << b
			a[int64(w)<<6|int64(b)] = 0
		}
	}
	accPool.Put(&a)
}

func getAcc(n int64) []float32 {
	if p, ok := accPool.Get().(*[]float32); ok && int64(cap(*p)) >= n {
		return (*p)[:n]
	}
	return make([]float32, n)
}

// maxDense is the largest partition scored with a dense accumulator.
const maxDense = 1 << 22

// Add scores the postings of one query term with weight w; the term
// counts toward coverage with the same weight.
func (s *Scorer) Add(tp cairn.TermPostings, w float64) error { return s.add(tp, w, w) }

// AddExpansion scores the postings of a term that is not the query's own
// (feedback) with weight w; it does not count toward coverage.
func (s *Scorer) AddExpansion(tp cairn.TermPostings, w float64) error { return s.add(tp, w, 0) }

func (s *Scorer) add(tp cairn.TermPostings, w, cw float64) error {
	n := s.Stats.Docs
	if n <= 0 || len(tp.Data) == 0 {
		return nil
	}
	if s.acc == nil && s.sparse == nil {
		if s.Stats.NextDoc <= maxDense {
			s.acc = getAcc(s.Stats.NextDoc)
			s.hit = make([]uint64, (s.Stats.NextDoc+63)/64)
			if s.Coord > 0 {
				s.cov = getAcc(s.Stats.NextDoc)
			}
		} else {
			s.sparse = map[int64]float64{}
			s.scov = map[int64]float64{}
		}
	}
	cwf := float32(cw)
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
			s.scov[doc] += cw
		})
	}
	// The hot loop: decode and accumulate in one pass, without a call per
	// posting. Entries are almost always one-byte deltas.
	acc, cov, dead, data := s.acc, s.cov, s.Dead, tp.Data
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
		if cov != nil {
			cov[doc] += cwf
		}
	}
	return nil
}

// scored is doc's entry: its BM25 sum bm and held query weight c.
func (s *Scorer) scored(doc int64, bm, c float64) Scored {
	if s.Coord <= 0 {
		return Scored{Doc: doc, Score: bm, BM25: bm, Coverage: 1}
	}
	cover := min(1, c/s.Coord)
	return Scored{Doc: doc, Score: bm * (1 - s.CoordShare + s.CoordShare*cover), BM25: bm, Coverage: cover}
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
	offer := func(x Scored) {
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
				v := float64(s.acc[doc])
				if len(h) == k && v < h[0].Score {
					continue // coverage never raises a score above BM25
				}
				c := 0.0
				if s.cov != nil {
					c = float64(s.cov[doc])
				}
				offer(s.scored(doc, v, c))
			}
		}
	} else {
		for _, doc := range s.touched {
			offer(s.scored(doc, s.sparse[doc], s.scov[doc]))
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
