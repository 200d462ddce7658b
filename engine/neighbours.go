package engine

import (
	"context"
	"sort"

	"github.com/cairn-dev/cairn"
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
// Lent scores are not lent again.

// neighbourStrong is how close to the best match a match must be to lend.
const neighbourStrong = 2.0 / 3

func (e *Engine) lendToNeighbours(ctx context.Context, tx cairn.Tx, memo docMemo, q cairn.Query, hits []hit) ([]hit, error) {
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
	sort.SliceStable(order, func(a, b int) bool { return hits[order[a]].Match > hits[order[b]].Match })
	byID := map[string]int{}
	for i, h := range hits {
		byID[h.Memory.ID] = i
	}
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
				if v > lent {
					lent, by = v, s.m.ID
				}
			}
			if lent == 0 {
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

// together reports whether two memories share a session or a task.
func together(a, b *cairn.Memory) bool {
	return a.SessionID != "" && a.SessionID == b.SessionID || a.TaskID != "" && a.TaskID == b.TaskID
}
