// Package vector is an exact in-memory vector index: every stored vector
// is scored against the query (no approximate neighbour graph), so the
// best k are the true best k of the stored vectors.
//
// Vectors are normalised to unit length and stored quantised to int8 with
// one scale per vector (a quarter of float32's memory: 100,000 vectors of
// 768 dimensions take 77 MB); the query is quantised to 13-bit integers.
// Scores are the dot products of those, scaled back: the cosine similarity
// of the original vectors within about 0.01. On amd64 with AVX2 the dot
// products run in SIMD code; elsewhere in portable Go.
//
// An Index is safe for concurrent searches once built; Add must not run
// concurrently with anything else.
package vector

import (
	"container/heap"
	"errors"
	"math"
	"runtime"
	"slices"
	"sync"
)

// queryScale is the largest integer a query component is quantised to:
// 13 bits keep every dot product of 768 (and up to 4096) dimensions with
// int8 codes within int32, whatever the vectors.
const queryScale = 4095

// Index holds vectors of one length.
type Index struct {
	dims   int
	ids    []string
	codes  []int8    // len(ids) × dims
	scales []float32 // per vector: code × scale = unit-vector component
}

// New returns an empty index of vectors of dims numbers.
func New(dims int) *Index { return &Index{dims: dims} }

// Dims is the length of the index's vectors.
func (ix *Index) Dims() int { return ix.dims }

// Len is the number of vectors held.
func (ix *Index) Len() int { return len(ix.ids) }

// ID returns the id of the vector at position i.
func (ix *Index) ID(i int) string { return ix.ids[i] }

// Bytes is about how much memory the index holds.
func (ix *Index) Bytes() int { return cap(ix.codes) + 4*cap(ix.scales) + 40*len(ix.ids) }

// Grow makes room for n more vectors, so that adding them allocates
// nothing more (a loader that knows the count avoids holding two copies
// while the index grows).
func (ix *Index) Grow(n int) {
	if n <= 0 {
		return
	}
	ix.codes = slices.Grow(ix.codes, n*ix.dims)
	ix.scales = slices.Grow(ix.scales, n)
	ix.ids = slices.Grow(ix.ids, n)
}

// ErrDims: a vector or query is not of the index's length.
var ErrDims = errors.New("vector: wrong number of dimensions")

// ErrZero: a vector of zeros (or not finite) has no direction.
var ErrZero = errors.New("vector: zero or non-finite vector")

// Add stores v under id at the next position.
func (ix *Index) Add(id string, v []float32) error {
	if len(v) != ix.dims {
		return ErrDims
	}
	maxAbs, norm := 0.0, 0.0
	for _, x := range v {
		f := float64(x)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return ErrZero
		}
		norm += f * f
		maxAbs = max(maxAbs, math.Abs(f))
	}
	if norm == 0 {
		return ErrZero
	}
	norm = math.Sqrt(norm)
	unitMax := maxAbs / norm
	for _, x := range v {
		ix.codes = append(ix.codes, int8(math.Round(float64(x)/norm/unitMax*127)))
	}
	ix.scales = append(ix.scales, float32(unitMax/127))
	ix.ids = append(ix.ids, id)
	return nil
}

// Result is one scored vector.
type Result struct {
	Pos   int     // position in the index
	ID    string  // the id it was added under
	Score float32 // cosine similarity with the query, in [-1, 1]
}

// Search returns the k vectors most similar to q, best first (ties by
// position), among those for which keep (when not nil) is true. keep may
// be called from several goroutines at once.
func (ix *Index) Search(q []float32, k int, keep func(pos int) bool) ([]Result, error) {
	if len(q) != ix.dims {
		return nil, ErrDims
	}
	if k <= 0 || len(ix.ids) == 0 {
		return nil, nil
	}
	qc, qs, err := quantiseQuery(q)
	if err != nil {
		return nil, err
	}
	n := len(ix.ids)
	parts := 1
	if n >= 8192 {
		parts = min(runtime.GOMAXPROCS(0), 8)
	}
	tops := make([]topK, parts)
	var wg sync.WaitGroup
	for p := 0; p < parts; p++ {
		lo, hi := n*p/parts, n*(p+1)/parts
		wg.Add(1)
		go func() {
			defer wg.Done()
			t := topK{k: k}
			for i := lo; i < hi; i++ {
				if keep != nil && !keep(i) {
					continue
				}
				s := float32(dot(ix.codes[i*ix.dims:(i+1)*ix.dims], qc)) * ix.scales[i]
				t.offer(i, s)
			}
			tops[p] = t
		}()
	}
	wg.Wait()
	all := topK{k: k}
	for _, t := range tops {
		for _, r := range t.h {
			all.offer(r.Pos, r.Score)
		}
	}
	out := all.sorted()
	for i := range out {
		out[i].ID = ix.ids[out[i].Pos]
		out[i].Score *= qs
	}
	return out, nil
}

// quantiseQuery returns q as unit-vector integers up to queryScale and
// the factor that turns their dot products back.
func quantiseQuery(q []float32) ([]int16, float32, error) {
	maxAbs, norm := 0.0, 0.0
	for _, x := range q {
		f := float64(x)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil, 0, ErrZero
		}
		norm += f * f
		maxAbs = max(maxAbs, math.Abs(f))
	}
	if norm == 0 {
		return nil, 0, ErrZero
	}
	norm = math.Sqrt(norm)
	unitMax := maxAbs / norm
	out := make([]int16, len(q))
	for i, x := range q {
		out[i] = int16(math.Round(float64(x) / norm / unitMax * queryScale))
	}
	return out, float32(unitMax / queryScale), nil
}

// dotGo is the portable dot product.
func dotGo(a []int8, b []int16) int32 {
	b = b[:len(a)]
	var s0, s1, s2, s3 int32
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += int32(a[i]) * int32(b[i])
		s1 += int32(a[i+1]) * int32(b[i+1])
		s2 += int32(a[i+2]) * int32(b[i+2])
		s3 += int32(a[i+3]) * int32(b[i+3])
	}
	for ; i < len(a); i++ {
		s0 += int32(a[i]) * int32(b[i])
	}
	return s0 + s1 + s2 + s3
}

// topK keeps the k best results seen, in a min-heap.
type topK struct {
	k int
	h resultHeap
}

func (t *topK) offer(pos int, s float32) {
	if len(t.h) < t.k {
		heap.Push(&t.h, Result{Pos: pos, Score: s})
		return
	}
	if worse(t.h[0], Result{Pos: pos, Score: s}) {
		t.h[0] = Result{Pos: pos, Score: s}
		heap.Fix(&t.h, 0)
	}
}

// sorted empties the heap, best first.
func (t *topK) sorted() []Result {
	out := make([]Result, len(t.h))
	for i := len(out) - 1; i >= 0; i-- {
		out[i] = heap.Pop(&t.h).(Result)
	}
	return out
}

// worse reports whether a ranks below b: a lower score, or the same score
// at a later position.
func worse(a, b Result) bool {
	if a.Score != b.Score {
		return a.Score < b.Score
	}
	return a.Pos > b.Pos
}

type resultHeap []Result

func (h resultHeap) Len() int           { return len(h) }
func (h resultHeap) Less(i, j int) bool { return worse(h[i], h[j]) }
func (h resultHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *resultHeap) Push(x any)        { *h = append(*h, x.(Result)) }
func (h *resultHeap) Pop() any {
	old := *h
	r := old[len(old)-1]
	*h = old[:len(old)-1]
	return r
}
