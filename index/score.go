package index

import (
	"cmp"
	"math"
	"math/bits"
	"slices"
	"sync"

	"github.com/cairn-dev/cairn"
)

// Params are the BM25 parameters.
type Params struct {
	K1 float64 // term frequency saturation
	B  float64 // length normalisation, from 0 (none) to 1 (full)
	// Pivot is the length, in terms, that length normalisation measures
	// a document against; 0 means the partition's average length.
	Pivot float64
}

// DefaultParams returns the BM25 values cairn ranks with: k1 1.2, full
// length normalisation (b 1) against a fixed length of 64 terms (about
// five sentences of prose), not against the partition's average.
//
// Memories differ in length by two orders of magnitude: a one-line
// decision beside a long session summary, a fix with its error output, a
// reply that restates the question. Against the average, which a few long
// memories set, a long memory is normalised little, holds every query
// word somewhere, and outranks the short statement that answers; against
// a fixed length, a memory up to a few sentences long is scored by the
// query words it holds (its term frequencies saturate at once), and a
// longer one by how densely it holds them. The docs page on ranking gives
// the measurements.
func DefaultParams() Params { return Params{K1: 1.2, B: 1, Pivot: 64} }

// Density is the share of a query term that a document of length dl
// (in terms) holding it tf times holds, for a measure of how much of a
// query a document holds: all of it for a document up to Pivot long,
// and for a longer one tf × Pivot / dl, at most all: a term a long
// document holds once among hundreds of others is held less than by a
// short one that states it. With Pivot 0 every document holds all of it.
func (p Params) Density(tf int, dl float64) float64 {
	if tf <= 0 {
		return 0
	}
	if p.Pivot <= 0 || dl <= p.Pivot {
		return 1
	}
	return min(1, float64(tf)*p.Pivot/dl)
}

// Scored is a document and its score: BM25 times the coverage factor
// (see Scorer.Coord).
type Scored struct {
	Doc   int64
	Score float64
	BM25  float64 // the BM25 score alone
	// Coverage is the share of the query's weight (Scorer.Coord) whose
	// terms the document holds, each by how densely it holds it
	// (Params.Density), in [0, 1]; 1 when Coord is 0.
	Coverage float64
	// Held has bit i set when the document is in the postings of the
	// i-th term added to the scorer (counting from 0, Add, AddExpansion
	// and their Postings forms alike, in the order they were called;
	// postings that add nothing, empty or in an empty partition, take no
	// place), for the first HeldTerms terms; later terms have no bit.
	// Every document Top returns has its bits, however it was scored.
	Held uint64
	// Len is the document's quantised length (see QuantLen) when Held has
	// a bit set, else 0.
	Len byte
}

// HeldTerms is how many of a scorer's terms have a bit in Scored.Held.
const HeldTerms = 64

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
//
// Add and AddExpansion only record a term; Top does the work. It walks
// the query's postings in document order and bounds what each document
// can still score (MaxScore): once the k best documents so far score
// above what a document can reach with the terms it may hold, the
// postings of the cheapest terms are no longer walked but only consulted,
// through their skip tables, for the documents that can still enter the
// k best. Its result is the same as scoring every posting.
type Scorer struct {
	Params Params
	Stats  *cairn.PartitionStats
	Dead   DeadSet
	// Coord, when positive, is the query's total weight: a document's
	// score is then its BM25 times (1 − CoordShare) + CoordShare ×
	// coverage, where coverage is the weight of the query terms it holds
	// (as added with Add), each by its density (Params.Density), over
	// Coord. A memory that matches every word of a query outranks one
	// that matches one rare word often; a long memory that holds each
	// word once among hundreds does not cover the query.
	Coord      float64
	CoordShare float64
	// Exhaustive makes the scorer score every posting of every term, as a
	// reference for the bounded work: slower, and the same results.
	Exhaustive bool

	terms []scoredTerm
	ex    *accumulator // made by Matches, and by Top when it cannot bound
	// known are the scores of the documents the last bounded Top scored
	// in full, for the terms added so far: a later Top for more documents
	// knows from them a score its k-th best reaches at least.
	known []float64
	scr   *scratch // a bounded Top's working memory
	// passed counts the blocks of postings the bounded Tops passed
	// without decoding them (topBounded).
	passed int
}

// scoredTerm is a term added to a scorer: its postings, score weight w
// and coverage weight cw.
type scoredTerm struct {
	p     *Postings
	w, cw float64
}

// accumulator holds the scores of every document of the partition that
// has one, for exhaustive scoring.
//
// A dense accumulator (one score per document of the partition) with a
// bitmap of the documents that have a score, rather than a list of them:
// in a fresh process every page of memory costs a fault, and a list would
// cost many more pages than the bitmap's 1 bit a document.
type accumulator struct {
	acc     []float32
	cov     []float32 // weight of the query terms each document holds
	hit     []uint64
	matches int
	touched []int64 // sparse mode only
	sparse  map[int64]float64
	scov    map[int64]float64
	added   int // how many of the scorer's terms it holds
}

// accPool recycles dense accumulators between searches of a long-lived
// process; a pooled accumulator is all zeros.
var accPool sync.Pool

// Release returns the scorer's buffers for reuse. The scorer must not be
// used afterwards.
func (s *Scorer) Release() {
	if s.scr != nil {
		if cap(s.known) <= keptKnown {
			s.scr.known = s.known[:0]
		}
		s.known = nil
		s.scr.release()
		s.scr = nil
	}
	if a := s.ex; a != nil {
		a.release(a.acc)
		a.release(a.cov)
		a.acc, a.cov = nil, nil
	}
}

// release zeroes the entries of a dense accumulator that have a score and
// pools it.
func (a *accumulator) release(v []float32) {
	if v == nil {
		return
	}
	for w, word := range a.hit {
		for word != 0 {
			b := bits.TrailingZeros64(word)
			word &^= 1 << b
			v[int64(w)<<6|int64(b)] = 0
		}
	}
	accPool.Put(&v)
}

func getAcc(n int64) []float32 {
	if p, ok := accPool.Get().(*[]float32); ok && int64(cap(*p)) >= n {
		return (*p)[:n]
	}
	return make([]float32, n)
}

// maxDense is the largest partition scored with float32 sums (and, when
// exhaustive, a dense accumulator); larger ones sum in float64.
const maxDense = 1 << 22

// Add scores the postings of one query term with weight w; the term
// counts toward coverage with the same weight. It returns ErrCorrupt for
// postings that cannot be decoded.
func (s *Scorer) Add(tp cairn.TermPostings, w float64) error { return s.addRaw(tp, w, w) }

// AddExpansion scores the postings of a term that is not the query's own
// (feedback) with weight w; it does not count toward coverage.
func (s *Scorer) AddExpansion(tp cairn.TermPostings, w float64) error {
	return s.addRaw(tp, w, 0)
}

// AddPostings is Add for postings made ready by Prepare.
func (s *Scorer) AddPostings(p *Postings, w float64) { s.add(p, w, w) }

// AddExpansionPostings is AddExpansion for postings made ready by Prepare.
func (s *Scorer) AddExpansionPostings(p *Postings, w float64) { s.add(p, w, 0) }

func (s *Scorer) addRaw(tp cairn.TermPostings, w, cw float64) error {
	if s.Stats.Docs <= 0 || len(tp.Data) == 0 {
		return nil
	}
	p, err := Prepare(tp)
	if err != nil {
		return err
	}
	s.add(p, w, cw)
	return nil
}

func (s *Scorer) add(p *Postings, w, cw float64) {
	if s.Stats.Docs <= 0 || len(p.Data) == 0 {
		return
	}
	s.terms = append(s.terms, scoredTerm{p: p, w: w, cw: cw})
	s.known = s.known[:0]
}

// norms returns the BM25 length norm of every quantised length.
func (s *Scorer) norms() *[256]float64 { return s.normsInto(new([256]float64)) }

// normsInto is norms, written into norm.
func (s *Scorer) normsInto(norm *[256]float64) *[256]float64 {
	avgdl := float64(s.Stats.TotalLen) / float64(s.Stats.Docs)
	if s.Params.Pivot > 0 {
		avgdl = s.Params.Pivot
	}
	if avgdl <= 0 {
		avgdl = 1
	}
	k1, b := s.Params.K1, s.Params.B
	for i := range norm {
		norm[i] = k1 * (1 - b + b*lenTable[i]/avgdl)
	}
	return norm
}

// coverPart is what a term of coverage weight cw adds to the coverage of
// a document holding it tf times, of quantised length dl: cw times how
// densely it holds it (Params.Density), so that a long document does not
// cover a query by holding each of its words somewhere. dense is the
// longest quantised length that holds a term in full (see denseLen).
func (s *Scorer) coverPart(cw float64, tf int, dl, dense byte) float64 {
	if dl <= dense || cw == 0 {
		return cw
	}
	return cw * s.Params.Density(tf, lenTable[dl])
}

// denseLen is the longest quantised length up to which a document holds
// every term it holds in full (Params.Density is 1): 255 without a pivot.
func (s *Scorer) denseLen() byte {
	p := s.Params.Pivot
	if p <= 0 {
		return 255
	}
	d := byte(0)
	for d < 255 && lenTable[d+1] <= p {
		d++
	}
	return d
}

// idf is term t's idf times its weight.
func (s *Scorer) idf(t scoredTerm) float64 { return IDF(s.Stats.Docs, t.p.DF) * t.w }

// part is what one posting adds to a document's BM25 sum: the one
// expression both ways of scoring use, so that they agree to the bit.
func part(idf, f, k1, norm float64) float64 { return idf * f * (k1 + 1) / (f + norm) }

// exhaust scores every posting of the terms added since the last call.
func (s *Scorer) exhaust() {
	if s.ex == nil {
		s.ex = &accumulator{}
	}
	a := s.ex
	if a.added == len(s.terms) {
		return
	}
	if a.acc == nil && a.sparse == nil {
		if s.Stats.NextDoc <= maxDense {
			a.acc = getAcc(s.Stats.NextDoc)
			a.hit = make([]uint64, (s.Stats.NextDoc+63)/64)
			if s.Coord > 0 {
				a.cov = getAcc(s.Stats.NextDoc)
			}
		} else {
			a.sparse = map[int64]float64{}
			a.scov = map[int64]float64{}
		}
	}
	norm := s.norms()
	k1 := s.Params.K1
	dense := s.denseLen()
	var c cursor
	for _, t := range s.terms[a.added:] {
		idf, cw := s.idf(t), t.cw
		if a.acc == nil {
			Decode(t.p.Data, func(doc int64, tf int, dl byte) {
				if doc >= s.Stats.NextDoc || s.Dead.Has(doc) {
					return
				}
				if _, ok := a.sparse[doc]; !ok {
					a.touched = append(a.touched, doc)
				}
				a.sparse[doc] += part(idf, float64(tf), k1, norm[dl])
				a.scov[doc] += s.coverPart(cw, tf, dl, dense)
			})
			continue
		}
		// The hot loop: a block of entries decoded at a time, one
		// accumulator write per posting.
		acc, cov, dead := a.acc, a.cov, s.Dead
		for c.reset(t.p); c.doc != endDoc; c.next() {
			doc := c.doc
			if doc >= int64(len(acc)) || (len(dead) > 0 && dead.Has(doc)) {
				continue // dead, or written after the stats were read
			}
			if w, bit := doc>>6, uint64(1)<<(doc&63); a.hit[w]&bit == 0 {
				a.hit[w] |= bit
				a.matches++
			}
			acc[doc] += float32(part(idf, float64(c.tf()), k1, norm[c.dl()]))
			if cov != nil {
				cov[doc] += float32(s.coverPart(cw, int(c.tf()), c.dl(), dense))
			}
		}
	}
	a.added = len(s.terms)
}

// scored is doc's entry: its BM25 sum bm, held query weight c and the
// terms it holds (see Scored.Held).
func (s *Scorer) scored(doc int64, bm, c float64, held uint64) Scored {
	if s.Coord <= 0 {
		return Scored{Doc: doc, Score: bm, BM25: bm, Coverage: 1, Held: held}
	}
	cover := min(1, c/s.Coord)
	return Scored{Doc: doc, Score: bm * (1 - s.CoordShare + s.CoordShare*cover), BM25: bm, Coverage: cover, Held: held}
}

// Matches reports how many documents have a score. It scores every
// posting; TopMore answers whether more than k documents match for less.
func (s *Scorer) Matches() int {
	s.exhaust()
	if s.ex.acc != nil {
		return s.ex.matches
	}
	return len(s.ex.touched)
}

// Top returns up to k documents by score, best first; ties go to the newer
// document.
func (s *Scorer) Top(k int) []Scored {
	top, _ := s.TopMore(k)
	return top
}

// TopMore is Top, and reports whether more than k documents may match: it
// is never false when they do, and true only when at least k documents
// match.
func (s *Scorer) TopMore(k int) ([]Scored, bool) {
	if k <= 0 {
		return nil, len(s.terms) > 0
	}
	if !s.Exhaustive && s.boundable() {
		return s.topBounded(k)
	}
	s.exhaust()
	top := s.topExhaustive(k)
	s.markHeld(top)
	return top, s.Matches() > k
}

// topExhaustive is Top over the exhaustive accumulator.
func (s *Scorer) topExhaustive(k int) []Scored {
	var h topHeap
	h.k = k
	a := s.ex
	if a.acc != nil {
		for w, word := range a.hit {
			for word != 0 {
				b := bits.TrailingZeros64(word)
				word &^= 1 << b
				doc := int64(w)<<6 | int64(b)
				v := float64(a.acc[doc])
				if h.full() && v < h.s[0].Score {
					continue // coverage never raises a score above BM25
				}
				c := 0.0
				if a.cov != nil {
					c = float64(a.cov[doc])
				}
				h.offer(s.scored(doc, v, c, 0))
			}
		}
	} else {
		for _, doc := range a.touched {
			h.offer(s.scored(doc, a.sparse[doc], a.scov[doc], 0))
		}
	}
	return h.sorted()
}

// markHeld sets the Held bits of the documents exhaustive scoring ranked
// by looking each up in the postings of the terms that have a bit.
func (s *Scorer) markHeld(top []Scored) {
	if len(top) == 0 {
		return
	}
	byDoc := make([]int, len(top)) // top's places, by document
	for i := range byDoc {
		byDoc[i] = i
	}
	slices.SortFunc(byDoc, func(a, b int) int { return cmp.Compare(top[a].Doc, top[b].Doc) })
	var at map[int64]int // place of each document, for irregular postings
	var c cursor
	for i, t := range s.terms[:min(len(s.terms), HeldTerms)] {
		bit := uint64(1) << i
		if t.p.regular {
			c.reset(t.p)
			for _, x := range byDoc {
				if c.seek(top[x].Doc); c.doc == top[x].Doc {
					top[x].Held |= bit
					top[x].Len = c.dl()
				}
			}
			continue
		}
		// Documents out of order: walk every entry.
		if at == nil {
			at = make(map[int64]int, len(top))
			for x, sc := range top {
				at[sc.Doc] = x
			}
		}
		for c.reset(t.p); c.doc != endDoc; c.next() {
			if x, ok := at[c.doc]; ok {
				top[x].Held |= bit
				top[x].Len = c.dl()
			}
		}
	}
}

// topHeap keeps the k best documents offered, the worst at the root.
type topHeap struct {
	k int
	s minHeap
}

func (h *topHeap) full() bool { return len(h.s) == h.k }

func (h *topHeap) offer(x Scored) {
	if len(h.s) < h.k {
		h.s = append(h.s, x)
		h.s.up(len(h.s) - 1)
	} else if less(h.s[0], x) {
		h.s[0] = x
		h.s.down(0, len(h.s))
	}
}

// sorted empties the heap into a list, best first, in the heap's own
// array.
func (h *topHeap) sorted() []Scored {
	out := h.s
	for n := len(out) - 1; n > 0; n-- {
		out[0], out[n] = out[n], out[0]
		out.down(0, n)
	}
	h.s = nil
	return out
}

// less orders by score, then by document number (older is less).
func less(a, b Scored) bool {
	if a.Score != b.Score {
		return a.Score < b.Score
	}
	return a.Doc < b.Doc
}

// minHeap is a heap of documents, the least (see less) at the root.
// Its own sift functions, rather than container/heap's, put and take
// documents without boxing each in an interface.
type minHeap []Scored

// up moves h[j] toward the root to its place.
func (h minHeap) up(j int) {
	for j > 0 {
		i := (j - 1) / 2 // parent
		if !less(h[j], h[i]) {
			break
		}
		h[i], h[j] = h[j], h[i]
		j = i
	}
}

// down moves h[i] away from the root to its place among h[:n].
func (h minHeap) down(i, n int) {
	for {
		j := 2*i + 1
		if j >= n || j < 0 {
			break
		}
		if r := j + 1; r < n && less(h[r], h[j]) {
			j = r
		}
		if !less(h[j], h[i]) {
			break
		}
		h[i], h[j] = h[j], h[i]
		i = j
	}
}
