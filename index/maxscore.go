package index

import (
	"cmp"
	"math"
	"slices"
	"sync"
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
func (s *Scorer) topBounded(k int) ([]Scored, bool) {
	m := len(s.terms)
	if m == 0 {
		return nil, false
	}
	sc := s.scratch()
	norm := s.normsInto(&sc.norm)
	k1 := s.Params.K1
	dense := s.denseLen()
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
	bm := &sc.bm
	ts := grow(sc.ts, m)
	for j, i := range byAdd {
		t := s.terms[i]
		ts[j] = bterm{idf: s.idf(t), cw: t.cw, ub: ubs[i], add: i, at: -1, bm: bm}
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
	slack := 1 + 1e-6*float64(m+8)
	pub := grow(sc.pub, m+1)
	pcw := grow(sc.pcw, m+1)
	pub[0], pcw[0] = 0, 0
	sc.pub, sc.pcw = pub, pcw
	for j := range ts {
		pub[j+1] = pub[j] + ts[j].ub
		pcw[j+1] = pcw[j] + ts[j].cw
	}
	base, share, perWeight := 1.0, 0.0, 0.0
	if s.Coord > 0 {
		base, share, perWeight = 1-s.CoordShare, s.CoordShare, slack/s.Coord
	}
	for j := range pub {
		pub[j] *= slack
	}
	reach := func(j int, se, ce float64) float64 {
		c := (ce + pcw[j]) * perWeight
		if c > 1 {
			c = 1
		}
		return (se*slack + pub[j]) * (base + share*c)
	}

	h := topHeap{k: k, s: make(minHeap, 0, s.boundMatches(k))}
	// theta is the score the k-th best reaches at least: that of the k-th
	// best so far once the heap is full, and before, that of the k-th best
	// document an earlier Top scored.
	theta := math.Inf(-1)
	if len(s.known) >= k {
		slices.Sort(s.known)
		theta = s.known[len(s.known)-k]
	}
	s.known = s.known[:0]
	ne := 0 // terms ts[:ne] are not essential
	for ne < m && reach(ne+1, 0, 0) < theta {
		ne++
	}
	seen := 0 // documents that match, whether ranked or not
	// Blocks passed undecoded (s.passed grew) hold documents seen does
	// not count.
	passed := s.passed
	dead, next := s.Dead, s.Stats.NextDoc
	// The cursors stay on live documents (skipDead), so that the
	// documents of a search narrowed to types, most of those its words
	// hold, cost their entries' decoding only, not the walk's work for
	// each document; a document the walk comes to is dead only when
	// written after the statistics were read.
	for j := range ts {
		ts[j].cur.skipDead(dead, next)
	}
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
		live := doc < next
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
			if c := &t.cur; c.k+1 < c.n {
				// next within the block, the walk's common step.
				c.k++
				c.doc = c.docs[c.k&(blockSize-1)]
			} else {
				if j == m-1 && ne == j && theta > math.Inf(-1) {
					// The one essential term's block ends: the blocks
					// after it whose peaks cannot reach the k best are
					// passed without being decoded.
					for c.blk+1 < len(c.blocks) && reach(ne, t.blockBound(c.blk+1), t.cw) < theta {
						c.blk++
						s.passed++
					}
				}
				c.load()
			}
			if t.cur.doc < next && dead.Has(t.cur.doc) {
				t.cur.skipDead(dead, next)
			}
		}
		if !live {
			continue // written after the stats were read
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
		s.known = append(s.known, sc.Score)
		h.offer(sc)
		if h.full() && h.s[0].Score > theta {
			theta = h.s[0].Score
			for ne < m && reach(ne+1, 0, 0) < theta {
				ne++
			}
		}
	}
	return h.sorted(), seen > k || ne > 0 || s.passed > passed
}

// blockBound is the most t adds to the BM25 sum of a document of its
// postings' block b, by the block's peaks.
func (t *bterm) blockBound(b int) float64 {
	v := 0.0
	for _, e := range t.cur.blocks[b].peaks {
		if e.tf > 0 {
			v = max(v, part(t.idf, float64(e.tf), t.bm.k1, t.bm.norm[e.dl]))
		}
	}
	return v
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
		if sc, ok := scratchPool.Get().(*scratch); ok {
			s.scr = sc
		} else {
			s.scr = &scratch{}
		}
		if s.known == nil {
			s.known, s.scr.known = s.scr.known, nil
		}
	}
	return s.scr
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
