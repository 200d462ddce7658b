package engine

import (
	"cmp"
	"context"
	"slices"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/index"
)

// Memories written in one session or for one task belong together: a
// failure and the fix that followed, a question and the turn that
// answered it, a decision and its reason. A strong match lends a share of
// its score to its neighbours: the memories of its partition within
// Ranking.NeighbourSpan documents of it (memories are numbered as they are
// written) that share its session or its task. A neighbour gets
// NeighbourShare of the match's score, halved for each further step, from
// the match that lends it most; it is added to what the neighbour matches
// itself. Only the best NeighbourSources matches lend, and only those
// within a third of the best match's score: a weak match lends nothing.
// Lent scores are not lent again. A neighbour longer than the BM25
// length pivot (index.Params.Density) reaches, with its own match and
// what it is lent together, at most Ranking.NeighbourCap of its lender's
// match: lending lifts a short neighbour above the match it belongs with
// (the fix after a failure, the answer after a question), but never a
// long reply or log that repeats a statement's words above the
// statement.

// neighbourStrong is how close to the best match a match must be to lend.
const neighbourStrong = 2.0 / 3

// neighbourCap is the default Ranking.NeighbourCap: a neighbour lifted to
// 0.8 of its lender's match stays below it whatever their salience (the
// factor salience makes is within [0.9, 1.1], see rank.Factor, and 0.8 ×
// 1.1 < 0.9).
const neighbourCap = 0.8

func (e *Engine) lendToNeighbours(ctx context.Context, tx cairn.Tx, memo docMemo, q cairn.Query, hits []hit, held map[*cairn.Memory]heldTerms) ([]hit, error) {
	r := e.ranking
	if r.NeighbourShare <= 0 || r.NeighbourSpan <= 0 || r.NeighbourSources <= 0 || len(hits) == 0 {
		return hits, nil
	}
	order := make([]int, len(hits))
	best := 0.0
	for i := range hits {
		order[i] = i
		best = max(best, hits[i].Match)
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(hits[b].Match, hits[a].Match) }) // best first
	type source struct {
		m   *cairn.Memory
		lex float64
	}
	var sources []source
	wanted := map[string][]int64{} // partition → document numbers
	for _, i := range order {
		h := hits[i]
		if len(sources) >= r.NeighbourSources || h.Match < neighbourStrong*best {
			break
		}
		if h.Memory.SessionID == "" && h.Memory.TaskID == "" {
			continue
		}
		sources = append(sources, source{h.Memory, h.Match})
		part := partitionOf(h.Memory)
		for d := int64(1); d <= int64(r.NeighbourSpan); d++ {
			if h.Memory.DocNum-d >= 0 {
				wanted[part] = append(wanted[part], h.Memory.DocNum-d)
			}
			wanted[part] = append(wanted[part], h.Memory.DocNum+d)
		}
	}
	if len(sources) == 0 {
		return hits, nil // no match lends: nothing more to read or index
	}
	byID := make(map[string]int, len(hits))
	own := make(map[string]float64, len(hits)) // each hit's own match
	for i, h := range hits {
		byID[h.Memory.ID] = i
		own[h.Memory.ID] = h.Match
	}
	for part, docs := range wanted {
		ms, err := memo.find(ctx, tx, part, docs)
		if err != nil {
			return nil, err
		}
		for _, m := range ms {
			if !inPartition(m, part, q.Project) {
				continue // isolation is absolute, whatever the index says
			}
			lent, by := 0.0, ""
			for _, s := range sources {
				if partitionOf(s.m) != part || !together(s.m, m) {
					continue
				}
				dist := m.DocNum - s.m.DocNum
				share := r.NeighbourShare
				if dist < 0 {
					dist = -dist
					share *= r.NeighbourBack
				}
				if dist == 0 || dist > int64(r.NeighbourSpan) {
					continue
				}
				v := share * s.lex / float64(int64(1)<<(dist-1))
				if r.NeighbourCap > 0 && e.long(held, m) {
					v = min(v, r.NeighbourCap*s.lex-own[m.ID])
				}
				if v > lent {
					lent, by = v, s.m.ID
				}
			}
			if lent <= 0 {
				continue
			}
			if i, ok := byID[m.ID]; ok {
				if lent > hits[i].Lent {
					hits[i].Lent, hits[i].LentBy = lent, by
				}
				continue
			}
			if !passes(m, q) {
				continue
			}
			byID[m.ID] = len(hits)
			hits = append(hits, hit{Hit: cairn.Hit{Memory: m}, HitExplain: cairn.HitExplain{Lent: lent, LentBy: by}})
		}
	}
	return hits, nil
}

// long reports whether m, scored with the terms held records, is longer
// than the BM25 length pivot (see index.Params.Density). A memory that
// was not scored holds no word of the query and is never lent more than
// the cap allows.
func (e *Engine) long(held map[*cairn.Memory]heldTerms, m *cairn.Memory) bool {
	ht, ok := held[m]
	return ok && e.bm25.Density(1, index.DequantLen(ht.dl)) < 1
}

// together reports whether two memories share a session or a task.
func together(a, b *cairn.Memory) bool {
	return a.SessionID != "" && a.SessionID == b.SessionID || a.TaskID != "" && a.TaskID == b.TaskID
}
