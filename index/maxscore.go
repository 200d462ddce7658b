package index

import (
	"cmp"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
)

// boundable reports whether Top may bound scores: every term's postings
// are regular (see Postings) and every part of a score grows with the
// terms a document holds (weights not negative, BM25 parameters and
// coverage share in their usual ranges).
func (s *Scorer) boundable() bool {
	p := s.Params
	if !(p.K1 > 0 && p.B >= 0 && p.B <= 1) || !(s.CoordShare >= 0 && s.CoordShare <= 1) || math.IsNaN(s.Coord) {
		return false
	}
	for _, t := range s.terms {
		if !t.p.regular || !(t.w >= 0 && t.cw >= 0) || math.IsInf(t.w, 0) || math.IsInf(t.cw, 0) {
			return false
		}
	}
	return true
}

// bterm is a term of a bounded search.
type bterm struct {
	cur cursor
	idf float64 // idf times weight
	cw  float64
	ub  float64 // the most the term adds to a document's BM25 sum
	add int     // the term's place in the order it was added
	// at is the document the term last held (-1: none yet), score what
	// it added to it and dl its quantised length.
	at    int64
	score float64
	cov   float64 // what it added to the document's coverage
	dl    byte
	// parts[tf] is what the term adds at term frequency tf (below
	// len(parts)), by quantised length, each made on first use.
	parts [4]*[256]float64
	bm    *bm25
}

// topBounded is TopMore by MaxScore. Terms are ordered by what they can
// add to a score (ub), least first. Documents are walked in order over
// the "essential" terms only: a document that holds none of them cannot
// score above the k-th best so far, because the other terms together can
// add less. For each document the essential terms hold, the others are
// looked up, the likeliest first, until what the document can still reach
// falls below the k-th best. Scores are summed in the order the terms
// were added and in the precision exhaustive scoring uses, so that both
// give the same scores to the bit; every bound is inflated by a margin
// far above the rounding of those sums.
//
// A walk with much left to walk once its k-th best has risen hands the
// last part of its documents to a walk on another goroutine, when a core
// is free (see trySplit), and takes the k best of both.
func (s *Scorer) topBounded(k int) ([]Scored, bool) {
	m := len(s.terms)
	if m == 0 {
		return nil, false
	}
	sc := s.scratch()
	norm := s.normsInto(&sc.norm)
	k1 := s.Params.K1
	wide := s.Stats.NextDoc > maxDense
	// ts are the terms by bound, least first; byAdd[i] is the place of
	// the i-th term added.
	ubs := grow(sc.ubs, m)
	clear(ubs)
	for i, t := range s.terms {
		idf := s.idf(t)
		for _, e := range t.p.peaks {
			ubs[i] = max(ubs[i], part(idf, float64(e.tf), k1, norm[e.dl]))
		}
	}
	byAdd := grow(sc.byAdd, m)
	for i := range byAdd {
		byAdd[i] = i
	}
	slices.SortStableFunc(byAdd, func(a, b int) int { return cmp.Compare(ubs[a], ubs[b]) })
	sc.recycle()
	sc.bm = bm25{k1: k1, norm: norm, wide: wide, tables: sc}
	ts := grow(sc.ts, m)
	for j, i := range byAdd {
		t := s.terms[i]
		ts[j] = bterm{idf: s.idf(t), cw: t.cw, ub: ubs[i], add: i, at: -1, bm: &sc.bm}
		ts[j].cur.reset(t.p)
	}
	for j := range ts {
		byAdd[ts[j].add] = j
	}
	sc.ubs, sc.byAdd, sc.ts = ubs, byAdd, ts
	// A document that holds terms adding se to its BM25 sum and ce to its
	// coverage, and perhaps the terms ts[:j] besides, scores at most
	// (se + pub[j]) × (base + share × min(1, (ce + pcw[j]) × perWeight));
	// pub and perWeight carry the margin.
	b := bounds{byAdd: byAdd, slack: 1 + 1e-6*float64(m+8), base: 1, wide: wide, dense: s.denseLen()}
	pub := grow(sc.pub, m+1)
	pcw := grow(sc.pcw, m+1)
	pub[0], pcw[0] = 0, 0
	sc.pub, sc.pcw = pub, pcw
	for j := range ts {
		pub[j+1] = pub[j] + ts[j].ub
		pcw[j+1] = pcw[j] + ts[j].cw
	}
	if s.Coord > 0 {
		b.base, b.share, b.perWeight = 1-s.CoordShare, s.CoordShare, b.slack/s.Coord
	}
	for j := range pub {
		pub[j] *= b.slack
	}
	b.pub, b.pcw = pub, pcw

	// theta is the score the k-th best reaches at least: that of the k-th
	// best so far once the heap is full, and before, that of the k-th best
	// document an earlier Top scored.
	theta := math.Inf(-1)
	if len(s.known) >= k {
		slices.Sort(s.known)
		theta = s.known[len(s.known)-k]
	}
	s.known = s.known[:0]
	w := half{ts: ts, theta: theta, h: topHeap{k: k, s: make(minHeap, 0, s.boundMatches(k))}, known: s.known}
	walking.Add(1)
	if sp := s.splitter(); sp.walk > 0 {
		w.split = &splitWalk{splitter: sp, b: &b, from: s.Stats.NextDoc / splitFrom}
	}
	s.walk(&b, &w)
	walking.Add(-1)
	if w.split != nil && w.split.other != nil {
		return s.join(&w)
	}
	s.known = w.known
	return w.h.sorted(), w.seen > k || w.ne > 0
}

// bounds are what a bounded search's walk bounds scores with (see
// topBounded), and how it sums them.
type bounds struct {
	byAdd                         []int
	pub, pcw                      []float64
	slack, base, share, perWeight float64
	wide                          bool
	dense                         byte
}

// walk offers w.h every document w's cursors hold from where they are to
// their end that can enter the k best, walking the postings of the
// essential terms; w.theta is a score the k-th best reaches at least.
// It appends the score of every document it scores in full to w.known,
// and sets w.seen and w.ne. When w.split is set, it may hand the last
// part of its documents to a walk on another goroutine (see trySplit).
func (s *Scorer) walk(b *bounds, w *half) {
	ts, theta := w.ts, w.theta
	m := len(ts)
	seen, ne := 0, 0
	byAdd, pub, pcw := b.byAdd, b.pub, b.pcw
	slack, base, share, perWeight := b.slack, b.base, b.share, b.perWeight
	wide, dense := b.wide, b.dense
	reach := func(j int, se, ce float64) float64 {
		c := (ce + pcw[j]) * perWeight
		if c > 1 {
			c = 1
		}
		return (se*slack + pub[j]) * (base + share*c)
	}
	// terms ts[:ne] are not essential
	for ne < m && reach(ne+1, 0, 0) < theta {
		ne++
	}
	dead, next := s.Dead, s.Stats.NextDoc
	for {
		doc := ts[ne].cur.doc
		for j := ne + 1; j < m; j++ {
			if d := ts[j].cur.doc; d < doc {
				doc = d
			}
		}
		if doc == endDoc {
			break
		}
		live := doc < next && (len(dead) == 0 || !dead.Has(doc))
		se, ce := 0.0, 0.0
		for j := ne; j < m; j++ {
			t := &ts[j]
			if t.cur.doc != doc {
				continue
			}
			if live {
				v, ok := t.kept()
				if !ok {
					v = t.fill()
				}
				t.at, t.score, t.dl = doc, v, t.cur.dl()
				t.cov = s.coverPart(t.cw, int(t.cur.tf()), t.dl, dense)
				se += t.score
				ce += t.cov
			}
			t.cur.next()
		}
		if !live {
			continue // dead, or written after the stats were read
		}
		seen++
		j := ne - 1
		for ; j >= 0 && reach(j+1, se, ce) >= theta; j-- {
			t := &ts[j]
			if t.cur.doc < doc {
				t.cur.seek(doc)
			}
			if t.cur.doc == doc {
				v, ok := t.kept()
				if !ok {
					v = t.fill()
				}
				t.at, t.score, t.dl = doc, v, t.cur.dl()
				t.cov = s.coverPart(t.cw, int(t.cur.tf()), t.dl, dense)
				se += t.score
				ce += t.cov
			}
		}
		if j >= 0 || reach(0, se, ce) < theta {
			continue // cannot enter the k best
		}
		sc := s.exact(doc, ts, byAdd, wide)
		w.known = append(w.known, sc.Score)
		w.h.offer(sc)
		th := theta
		if w.h.full() && w.h.s[0].Score > th {
			th = w.h.s[0].Score
		}
		if w.shared != nil {
			th = w.shared.raise(th)
		}
		if th > theta {
			theta = th
			for ne < m && reach(ne+1, 0, 0) < theta {
				ne++
			}
			if w.split != nil && w.split.other == nil && doc >= w.split.from {
				s.trySplit(w, ne, theta)
			}
		}
	}
	w.seen, w.ne = seen, ne
}

// half is a walk over a search's documents, or some of them (see walk):
// its terms from where their cursors are, the bound it starts from, and
// what it finds.
type half struct {
	ts    []bterm
	theta float64
	// h are the k best documents found, known the scores of those scored
	// in full, seen how many documents matched and ne how many terms were
	// not essential at the end.
	h        topHeap
	known    []float64
	seen, ne int
	shared   *sharedTheta // when not nil, shared with another walk
	split    *splitWalk   // when not nil, the walk may split (see trySplit)
}

// sharedTheta is the highest k-th best score of the walks of one search:
// each walk's own k best are of its documents only, so the k best of all
// score at least as high.
type sharedTheta struct{ bits atomic.Uint64 }

// raise makes the shared score v when it is lower, and returns the
// shared score.
func (t *sharedTheta) raise(v float64) float64 {
	for {
		old := t.bits.Load()
		if o := math.Float64frombits(old); o >= v {
			return o
		}
		if t.bits.CompareAndSwap(old, math.Float64bits(v)) {
			return v
		}
	}
}

// splitter says when a bounded search splits its walk in two and how the
// other part starts.
type splitter struct {
	walk  int64 // the walk left, in postings entries, from which it splits
	start func(other func())
	idle  func() bool // whether a core is free for the other part now
}

// split is how a scorer splits its walk unless it has its own (tests):
// when 60,000 entries of the essential terms' postings or more are left
// to walk, some 3 ms at 1,000,000 documents (a search there walks 33,000
// entries on average, its heaviest 100,000 to 250,000; at 100,000
// documents none is left that many); the other part on a goroutine of
// its own.
var split = splitter{
	walk:  60000,
	start: func(other func()) { go other() },
	idle:  func() bool { return int(walking.Load()) < runtime.GOMAXPROCS(0) },
}

// splitFrom is the share of the documents (1/splitFrom) a walk passes
// before it considers splitting: by then the k-th best has mostly risen,
// so that what is left to walk is known, and the other part starts from
// a bound near the final one.
const splitFrom = 16

// walking is how many bounded searches of the process are walking: a
// walk splits only while fewer than the cores the process may use are,
// so that the other part runs on a core that is otherwise idle, and
// searches that keep every core busy pay nothing for it.
var walking atomic.Int32

// splitWalk is the state of a walk that may split, and once split, of
// the other part.
type splitWalk struct {
	*splitter
	b    *bounds
	from int64 // the document from which the walk considers splitting
	// other walks the last part of the documents, in the scratch sc,
	// once the walk has split; claimed is set by the goroutine that walks
	// it, and done when it has.
	other   *half
	sc      *scratch
	claimed atomic.Bool
	done    sync.WaitGroup
	shared  sharedTheta
}

// trySplit hands the documents of the last half of what w has left to
// walk to another walk, started on another goroutine, when that is long
// enough (w.split.walk) and a core is free; ne and theta are w's own. The
// walk left is what the essential terms' postings hold past their
// cursors; the halves part at the middle of the longest. Once what is
// left is too short, w does not consider splitting again: it only
// shortens as the walk goes on.
func (s *Scorer) trySplit(w *half, ne int, theta float64) {
	sp := w.split
	ts := w.ts
	var left int64
	long, longLeft := -1, 0
	for j := ne; j < len(ts); j++ {
		c := &ts[j].cur
		if c.doc == endDoc {
			continue
		}
		n := (len(c.blocks)-c.blk-1)*blockSize + c.n - c.k
		left += int64(n)
		if n > longLeft {
			long, longLeft = j, n
		}
	}
	if left < sp.walk {
		w.split = nil
		return
	}
	if !sp.idle() {
		return // perhaps later
	}
	c := &ts[long].cur
	mb := (c.blk + len(c.blocks) + 1) / 2
	if mb <= c.blk || mb >= len(c.blocks) {
		return
	}
	mid := c.blocks[mb].prev + 1
	// The other walk's terms, cursors and part tables, in a scratch of
	// their own.
	sc := newScratch()
	sc.bm = *ts[0].bm
	sc.bm.tables = sc
	ts2 := grow(sc.ts, len(ts))
	sc.ts = ts2
	for j := range ts {
		t := &ts[j]
		ts2[j] = bterm{idf: t.idf, cw: t.cw, ub: t.ub, add: t.add, at: -1, bm: &sc.bm}
		ts2[j].cur.reset(s.terms[t.add].p)
		ts2[j].cur.seek(mid)
		t.cur.limit(mid)
	}
	sp.sc = sc
	sp.shared.raise(theta)
	w.shared = &sp.shared
	sp.other = &half{ts: ts2, theta: theta, h: topHeap{k: w.h.k, s: make(minHeap, 0, w.h.k)}, known: sc.known[:0], shared: &sp.shared}
	sp.done.Add(1)
	walking.Add(1)
	sp.start(func() {
		defer sp.done.Done()
		s.walkOther(sp)
	})
}

// walkOther walks the other part of a split walk, unless another
// goroutine has claimed it.
func (s *Scorer) walkOther(sp *splitWalk) {
	if sp.claimed.CompareAndSwap(false, true) {
		s.walk(sp.b, sp.other)
		walking.Add(-1)
	}
}

// join is the rest of topBounded for a walk w that split: it walks the
// other part itself when no goroutine has started to, waits for it, and
// takes the k best of both.
func (s *Scorer) join(w *half) ([]Scored, bool) {
	sp := w.split
	s.walkOther(sp)
	sp.done.Wait()
	o := sp.other
	for _, x := range o.h.s {
		w.h.offer(x)
	}
	s.known = append(w.known, o.known...)
	if cap(o.known) <= keptKnown {
		sp.sc.known = o.known[:0]
	}
	sp.sc.release()
	return w.h.sorted(), w.seen+o.seen > w.h.k || w.ne > 0 || o.ne > 0
}

// splitter is how s splits a walk.
func (s *Scorer) splitter() *splitter {
	if s.split != nil {
		return s.split
	}
	return &split
}

// kept is what t adds to the BM25 sum of the document its cursor is at,
// rounded as exhaustive scoring rounds it, when t.parts holds it; else
// fill makes it. kept makes no call, so that the compiler inlines it into
// the scorer's loop: a call there costs the spills of every value the
// loop holds in registers.
func (t *bterm) kept() (float64, bool) {
	td := t.cur.tds[t.cur.k&(blockSize-1)]
	if tf := byte(td); tf < byte(len(t.parts)) {
		if p := t.parts[tf]; p != nil {
			return p[byte(td>>8)], true
		}
	}
	return 0, false
}

// fill is what t adds to the BM25 sum of the document its cursor is at,
// when kept does not hold it: it makes the part table of the term
// frequency, or computes the part for a frequency without one.
func (t *bterm) fill() float64 {
	tf, dl := t.cur.tf(), t.cur.dl()
	k1, norm, wide := t.bm.k1, t.bm.norm, t.bm.wide
	if tf >= byte(len(t.parts)) {
		return round(part(t.idf, float64(tf), k1, norm[dl]), wide)
	}
	p := t.bm.tables.table()
	for l, n := range norm {
		p[l] = round(part(t.idf, float64(tf), k1, n), wide)
	}
	t.parts[tf] = p
	return p[dl]
}

// bm25 is what every term of a bounded search scores with.
type bm25 struct {
	k1   float64
	norm *[256]float64
	wide bool // sums in float64 (see maxDense)
	// tables hands out the part tables of the terms (bterm.parts).
	tables *scratch
}

// round rounds a part of a BM25 sum as exhaustive scoring does: to
// float32, unless the partition is summed in float64.
func round(v float64, wide bool) float64 {
	if !wide {
		return float64(float32(v))
	}
	return v
}

// exact is doc's score from the terms that hold it, summed in the order
// the terms were added and in the precision of exhaustive scoring. Every
// term has been looked up for doc: those whose at is doc hold it, and the
// others do not.
func (s *Scorer) exact(doc int64, ts []bterm, byAdd []int, wide bool) Scored {
	var held uint64
	var dl byte
	if wide {
		bm, c := 0.0, 0.0
		for i, j := range byAdd {
			if ts[j].at == doc {
				bm += ts[j].score
				c += ts[j].cov
				dl = ts[j].dl
				if i < HeldTerms {
					held |= 1 << i
				}
			}
		}
		return s.withLen(s.scored(doc, bm, c, held), dl)
	}
	var bm, c float32
	for i, j := range byAdd {
		if ts[j].at == doc {
			bm += float32(ts[j].score)
			c += float32(ts[j].cov)
			dl = ts[j].dl
			if i < HeldTerms {
				held |= 1 << i
			}
		}
	}
	return s.withLen(s.scored(doc, float64(bm), float64(c), held), dl)
}

// withLen sets sc's Len, when it holds a term with a bit in Held.
func (s *Scorer) withLen(sc Scored, dl byte) Scored {
	if sc.Held != 0 {
		sc.Len = dl
	}
	return sc
}

// scratch is the working memory of a bounded search: the terms' state
// and bounds, and the part tables they fill. It is kept by the scorer
// across TopMore calls and pooled between scorers (Scorer.Release), so
// that a search of a long-lived process allocates little of it: the
// part tables were the largest share of the bytes a search allocated.
type scratch struct {
	ts            []bterm
	ubs, pub, pcw []float64
	byAdd         []int
	norm          [256]float64
	bm            bm25
	// made are the part tables handed out since the last recycle, spare
	// those free to hand out again.
	made, spare []*[256]float64
	known       []float64 // the array of a released scorer's known
}

// scratchPool holds the scratch of released scorers.
var scratchPool sync.Pool

// scratch returns the scorer's scratch, taking one from the pool first.
func (s *Scorer) scratch() *scratch {
	if s.scr == nil {
		s.scr = newScratch()
		if s.known == nil {
			s.known, s.scr.known = s.scr.known, nil
		}
	}
	return s.scr
}

// newScratch takes a scratch from the pool, or makes one.
func newScratch() *scratch {
	if sc, ok := scratchPool.Get().(*scratch); ok {
		return sc
	}
	return &scratch{}
}

// table returns a part table to fill in full.
func (sc *scratch) table() *[256]float64 {
	var p *[256]float64
	if n := len(sc.spare); n > 0 {
		p, sc.spare = sc.spare[n-1], sc.spare[:n-1]
	} else {
		p = new([256]float64)
	}
	sc.made = append(sc.made, p)
	return p
}

// recycle makes every part table handed out free again.
func (sc *scratch) recycle() {
	sc.spare = append(sc.spare, sc.made...)
	clear(sc.made)
	sc.made = sc.made[:0]
}

// keptTerms is how many terms' state, keptTables how many part tables
// and keptKnown how many known scores a pooled scratch keeps at most: a
// query of many more terms, or for many more documents, does not leave
// that much memory in the pool.
const keptTerms, keptTables, keptKnown = 64, 128, 4096

// release pools sc, with nothing left pointing to a search's postings.
func (sc *scratch) release() {
	sc.recycle()
	clear(sc.ts[:cap(sc.ts)])
	if cap(sc.ts) > keptTerms {
		sc.ts, sc.ubs, sc.pub, sc.pcw, sc.byAdd = nil, nil, nil, nil, nil
	}
	if len(sc.spare) > keptTables {
		clear(sc.spare[keptTables:])
		sc.spare = sc.spare[:keptTables]
	}
	sc.bm = bm25{}
	scratchPool.Put(sc)
}

// grow returns v resized to n, reusing its array when large enough. The
// elements are not cleared.
func grow[T any](v []T, n int) []T {
	if cap(v) >= n {
		return v[:n]
	}
	return make([]T, n)
}

// boundMatches is a capacity for the k best of a bounded search: k, or
// fewer when the terms' postings hold fewer documents.
func (s *Scorer) boundMatches(k int) int {
	var n int64
	for _, t := range s.terms {
		if n += t.p.DF; n >= int64(k) {
			return k
		}
	}
	return int(n)
}
