package engine

import (
	"context"
	"sort"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/index"
)

// Rerank configures the second stage of a search: the candidates the
// first pass scored are re-scored with the feedback words of its best
// matches and with their session's share of the query, and all but the
// first Keep hits of the plain ranking are ordered by that score. It
// reads no postings: the feedback words' scores come from the candidates'
// own text.
type Rerank struct {
	// Keep is how many of the plain ranking's first hits stay first.
	Keep int
	// Feedback is the feedback words' setting (see Feedback): Docs best
	// matches lend their Terms most telling words, weighted up to Weight.
	Feedback Feedback
	// SessionShare: each candidate gets this share of the best match
	// times the share of the query that the SessionMatches best matches
	// of its session hold together.
	SessionShare   float64
	SessionMatches int
	// Relend recomputes the neighbours' shares from the re-scored
	// matches, among the candidates.
	Relend bool
	// SessionByFB ranks a session's matches by their re-scored match.
	SessionByFB bool
	// LoadNeighbours loads the neighbours of the re-scored best matches
	// that are not candidates.
	LoadNeighbours bool
}

// fbWords are the feedback words of a partition and their weights
// (idf included).
type fbWords struct {
	terms []string
	w     []float64
}

// score is what the words add to the BM25 sum of a text.
func (f *fbWords) score(p index.Params, pivot float64, tc termCounts) float64 {
	if f == nil {
		return 0
	}
	norm := p.K1 * (1 - p.B + p.B*float64(tc.dl)/pivot)
	add := 0.0
	for j, t := range f.terms {
		if x := float64(tc.tf[t]); x > 0 {
			add += f.w[j] * x * (p.K1 + 1) / (x + norm)
		}
	}
	return add
}

func (r Rerank) on() bool {
	return r.Feedback.Weight > 0 && r.Feedback.Terms > 0 || r.SessionShare > 0
}

// rerankScores sets each kept hit's second-stage match (fbMatch) and
// session bonus (sessHeld, the share of the query its session holds).
func (e *Engine) rerankScores(ctx context.Context, tx cairn.Tx, memo docMemo, q cairn.Query, r *retrieved, stats map[string]*cairn.PartitionStats, terms []string) error {
	rr := e.rerank
	byPart := map[string][]int{}
	for i := range r.kept {
		p := partitionOf(r.kept[i].Memory)
		byPart[p] = append(byPart[p], i)
	}
	inQuery := map[string]bool{}
	for _, t := range terms {
		inQuery[t] = true
	}
	words := map[string]*fbWords{}
	shares := map[string]map[string]float64{}
	for part, idx := range byPart {
		sort.SliceStable(idx, func(a, b int) bool { return r.kept[idx[a]].Match > r.kept[idx[b]].Match })
		for _, i := range idx {
			h := &r.kept[i]
			h.fbMatch = h.Match
		}
		st := stats[part]
		if st != nil && rr.Feedback.Weight > 0 && rr.Feedback.Terms > 0 {
			f, err := e.rerankFeedback(ctx, tx, r, st, idx, inQuery)
			if err != nil {
				return err
			}
			words[part] = f
		}
		if rr.SessionShare > 0 {
			if rr.SessionByFB {
				sort.SliceStable(idx, func(a, b int) bool { return r.kept[idx[a]].fbMatch > r.kept[idx[b]].fbMatch })
			}
			shares[part] = r.sessionShares(part, idx)
		}
	}
	if !rr.Relend || !rr.LoadNeighbours {
		return nil
	}
	// The neighbours of the re-scored best matches that are not
	// candidates.
	order := make([]int, len(r.kept))
	best := 0.0
	for i := range r.kept {
		order[i] = i
		best = max(best, r.kept[i].fbMatch)
	}
	sort.SliceStable(order, func(a, b int) bool { return r.kept[order[a]].fbMatch > r.kept[order[b]].fbMatch })
	have := map[string]bool{}
	for _, h := range r.kept {
		have[h.Memory.ID] = true
	}
	wanted := map[string][]int64{}
	n := 0
	for _, i := range order {
		h := r.kept[i]
		if n >= e.ranking.NeighbourSources || h.fbMatch < neighbourStrong*best {
			break
		}
		if h.Memory.SessionID == "" && h.Memory.TaskID == "" {
			continue
		}
		n++
		part := partitionOf(h.Memory)
		for d := int64(1); d <= int64(e.ranking.NeighbourSpan); d++ {
			if h.Memory.DocNum-d >= 0 {
				wanted[part] = append(wanted[part], h.Memory.DocNum-d)
			}
			wanted[part] = append(wanted[part], h.Memory.DocNum+d)
		}
	}
	cs := e.ranking.Coverage
	for part, docs := range wanted {
		ms, err := memo.find(ctx, tx, part, docs)
		if err != nil {
			return err
		}
		pivot := r.params.Pivot
		if st := stats[part]; pivot <= 0 && st != nil {
			pivot = float64(st.TotalLen) / float64(max(st.Docs, 1))
		}
		for _, m := range ms {
			if have[m.ID] || !inPartition(m, part, q.Project) || !passes(m, q) {
				continue
			}
			have[m.ID] = true
			h := hit{Hit: cairn.Hit{Memory: m}}
			h.fbMatch = words[part].score(r.params, pivot, r.termsOf(m, wholeText)) * (1 - cs)
			h.sessHeld = shares[part][m.SessionID]
			r.kept = append(r.kept, h)
		}
	}
	return nil
}

func (e *Engine) rerankFeedback(ctx context.Context, tx cairn.Tx, r *retrieved, st *cairn.PartitionStats, idx []int, inQuery map[string]bool) (*fbWords, error) {
	fb := e.rerank.Feedback
	best := r.kept[idx[0]].Match
	if best <= 0 {
		return nil, nil
	}
	weight := map[string]float64{}
	for n, i := range idx {
		if n >= fb.Docs || r.kept[i].Match <= 0 {
			break
		}
		m := r.kept[i].Memory
		tc := r.termsOf(m, wholeText)
		if tc.dl == 0 {
			continue
		}
		wd := r.kept[i].Match / best
		for t, c := range tc.tf {
			if inQuery[t] || !isWord(t) {
				continue
			}
			weight[t] += wd * float64(c) / float64(tc.dl)
		}
	}
	var cands []weightedTerm
	for t, w := range weight {
		cands = append(cands, weightedTerm{t, w})
	}
	sortWeighted(cands)
	if len(cands) > fb.Terms*2 {
		cands = cands[:fb.Terms*2]
	}
	names := make([]string, len(cands))
	for i, c := range cands {
		names[i] = c.t
	}
	dfs, err := e.docFreqs(ctx, tx, st, names)
	if err != nil {
		return nil, err
	}
	n := st.Docs
	for i := range cands {
		df := dfs[cands[i].t]
		if df < 2 || df > max(100, n/feedbackMaxDFShare) {
			cands[i].w = 0
			continue
		}
		cands[i].w *= index.IDF(n, df)
	}
	sortWeighted(cands)
	for len(cands) > 0 && cands[len(cands)-1].w <= 0 {
		cands = cands[:len(cands)-1]
	}
	if len(cands) > fb.Terms {
		cands = cands[:fb.Terms]
	}
	if len(cands) == 0 {
		return nil, nil
	}
	maxw := cands[0].w
	p := r.params
	pivot := p.Pivot
	if pivot <= 0 {
		pivot = float64(st.TotalLen) / float64(max(st.Docs, 1))
	}
	f := &fbWords{}
	for _, c := range cands {
		f.terms = append(f.terms, c.t)
		f.w = append(f.w, fb.Weight*c.w/maxw*index.IDF(n, dfs[c.t]))
	}
	cs := e.ranking.Coverage
	for _, i := range idx {
		h := &r.kept[i]
		if add := f.score(p, pivot, r.termsOf(h.Memory, wholeText)); add > 0 {
			h.fbMatch += add * (1 - cs + cs*h.Coverage)
		}
	}
	return f, nil
}

// sessionShares sets, for each hit of idx (one partition's, best match
// first), the share of the query's weight that the best SessionMatches
// hits of its session hold together.
func (r *retrieved) sessionShares(part string, idx []int) map[string]float64 {
	w := r.idfs[part]
	total := 0.0
	for _, q := range w {
		total += q.Weight
	}
	if total <= 0 {
		return nil
	}
	common := r.common[part]
	limit := r.sessMatches
	union := map[string]uint64{}
	count := map[string]int{}
	for _, i := range idx {
		h := &r.kept[i]
		s := h.Memory.SessionID
		if s == "" || h.Match <= 0 || count[s] >= limit {
			continue
		}
		count[s]++
		bits, slots, _, ok := r.heldBits(h.Memory)
		if !ok {
			tc := r.termsOf(h.Memory, wholeText)
			for j, q := range w {
				if tc.tf[q.Term] > 0 && j < 64 {
					union[s] |= 1 << j
				}
			}
			continue
		}
		for j := range w {
			if sl := slots[j]; sl >= 0 && bits&(1<<sl) != 0 && j < 64 {
				union[s] |= 1 << j
			}
		}
	}
	share := map[string]float64{}
	for s, u := range union {
		held := 0.0
		for j, q := range w {
			if j < 64 && u&(1<<j) != 0 {
				held += q.Weight * common[j]
			}
		}
		share[s] = held / total
	}
	for _, i := range idx {
		h := &r.kept[i]
		h.sessHeld = share[h.Memory.SessionID]
	}
	return share
}

// rerankHits orders all but the first Keep of hits (ranked by rankHits)
// by their second-stage relevance.
func (e *Engine) rerankHits(r *retrieved, hits []hit) {
	rr := e.rerank
	if len(hits) <= rr.Keep {
		return
	}
	best := 0.0
	for i := range hits {
		best = max(best, hits[i].fbMatch)
	}
	if best <= 0 {
		return
	}
	lent := make([]float64, len(hits))
	for i := range hits {
		lent[i] = hits[i].Lent
	}
	if rr.Relend {
		lent = e.relend(r, hits)
	}
	s2 := make([]float64, len(hits))
	for i := range hits {
		h := &hits[i]
		rel := (h.fbMatch + lent[i] + rr.SessionShare*best*h.sessHeld) * h.DateFactor
		s2[i] = rel
	}
	rest := hits[rr.Keep:]
	rs := s2[rr.Keep:]
	type pair struct {
		h hit
		s float64
	}
	ps := make([]pair, len(rest))
	for i := range rest {
		ps[i] = pair{rest[i], rs[i] * factorOf(rest[i])}
	}
	sort.SliceStable(ps, func(a, b int) bool { return ps[a].s > ps[b].s })
	for i := range ps {
		rest[i] = ps[i].h
	}
}

// factorOf is the salience factor a hit's score carries.
func factorOf(h hit) float64 {
	if h.Relevance <= 0 {
		return 1
	}
	return h.Score / h.Relevance
}

// relend is lendToNeighbours over the re-scored matches, among hits.
func (e *Engine) relend(rt *retrieved, hits []hit) []float64 {
	r := e.ranking
	out := make([]float64, len(hits))
	order := make([]int, len(hits))
	best := 0.0
	for i := range hits {
		order[i] = i
		best = max(best, hits[i].fbMatch)
	}
	sort.SliceStable(order, func(a, b int) bool { return hits[order[a]].fbMatch > hits[order[b]].fbMatch })
	type key struct {
		part string
		doc  int64
	}
	at := map[key]int{}
	for i, h := range hits {
		at[key{partitionOf(h.Memory), h.Memory.DocNum}] = i
	}
	n := 0
	for _, i := range order {
		s := hits[i]
		if n >= r.NeighbourSources || s.fbMatch < neighbourStrong*best {
			break
		}
		if s.Memory.SessionID == "" && s.Memory.TaskID == "" {
			continue
		}
		n++
		part := partitionOf(s.Memory)
		for d := -int64(r.NeighbourSpan); d <= int64(r.NeighbourSpan); d++ {
			j, ok := at[key{part, s.Memory.DocNum + d}]
			if !ok || d == 0 || !together(s.Memory, hits[j].Memory) {
				continue
			}
			dist, share := d, r.NeighbourShare
			if dist < 0 {
				dist, share = -dist, share*r.NeighbourBack
			}
			v := share * s.fbMatch / float64(int64(1)<<(dist-1))
			if r.NeighbourCap > 0 && e.long(rt.held, hits[j].Memory) {
				v = min(v, r.NeighbourCap*s.fbMatch-hits[j].fbMatch)
			}
			out[j] = max(out[j], v)
		}
	}
	return out
}
