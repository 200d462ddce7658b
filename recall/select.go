package recall

import (
	"fmt"
	"sort"

	"github.com/cairn-dev/cairn"
)

// The select stage of a context block: what is left out (written in the
// session, already shown in it, superseded, expired, below the floor or
// the threshold, over the limit) and what is kept, with its score.

// Item is a memory chosen for a block, with its score and why.
type Item struct {
	Memory  *cairn.Memory
	Tier    string // cairn.ContextPinned, ContextStatic, ContextDynamic or ContextRelevant
	Score   float64
	Reasons []Reason
	// Match is, for a relevant memory, its relevance on the scale that
	// means the same for every prompt: Hit.Relevance times the match
	// strength of the prompt's best memory (see choose), with what
	// its files, tags, hat and agent add.
	Match float64
	// Stale is set when a file the memory refers to changed after it was
	// written or verified (see MarkStale).
	Stale bool
}

// Reason is one component of a score.
type Reason struct {
	Name  string
	Value float64
}

// LeftOut is a memory considered and not chosen, and why.
type LeftOut struct {
	ID     string
	Reason string // "current session", "superseded by …", "expired", "below the relevance floor …" …
	Score  float64
}

// Selection is what the pipeline chose for a block, before packing.
type Selection struct {
	Items   []Item
	LeftOut []LeftOut
	Terms   []string // the search terms drawn from the prompt
	// Retrieval is how the relevant tier was searched (zero when it was
	// not).
	Retrieval cairn.Retrieval
}

// choose scores the candidates and selects the block's memories, in tier
// order: pinned, static, dynamic, then the relevant ones by match. The
// relevance floor (context.relevant.floor) and the threshold (the larger
// of scoring.threshold and context.relevant.min_relevance) choose the
// relevant ones: the tier is empty unless the prompt's best match has at
// least the floor's Strength (see cairn.Hit); a memory then passes on its
// words when its Relevance times that strength reaches a quarter of the
// floor, or on its files, tags, hat and agent together (structuredMatch)
// when they reach the floor, and its seed-000 score must reach the
// threshold unless it passed on its files. A prompt that matches nothing
// well gets nothing, rather than the best of weak matches.
func (q *query) choose(c *cairn.Candidates) *Selection {
	req := q.req
	sel := &Selection{Retrieval: c.Retrieval, Terms: q.terms()}
	seen := map[string]bool{}
	keep := func(m *cairn.Memory) bool {
		at, wasShown := c.Shown[m.ID]
		switch {
		case seen[m.ID]:
			return false
		case req.Session != "" && m.SessionID == req.Session:
			sel.LeftOut = append(sel.LeftOut, LeftOut{ID: m.ID, Reason: "current session"})
		case wasShown && !m.UpdatedAt.After(at):
			sel.LeftOut = append(sel.LeftOut, LeftOut{ID: m.ID, Reason: "already shown in this session"})
		case m.SupersededBy != "":
			sel.LeftOut = append(sel.LeftOut, LeftOut{ID: m.ID, Reason: "superseded by " + m.SupersededBy})
		case !m.Live(q.now):
			sel.LeftOut = append(sel.LeftOut, LeftOut{ID: m.ID, Reason: "expired"})
		case q.minConfidence > 0 && m.Confidence <= q.minConfidence && !m.Pinned:
			sel.LeftOut = append(sel.LeftOut, LeftOut{ID: m.ID,
				Reason: fmt.Sprintf("confidence %.2f, at or below context.min_confidence %.2f", m.Confidence, q.minConfidence)})
		default:
			seen[m.ID] = true
			return true
		}
		seen[m.ID] = true
		return false
	}
	for _, g := range c.Tiers {
		if g.Tier == cairn.ContextStatic && !q.staticShown {
			continue
		}
		n := 0
		for _, m := range g.Memories {
			if g.Limit > 0 && n >= g.Limit {
				break
			}
			if keep(m) {
				n++
				sel.Items = append(sel.Items, q.weights.item(m, g.Tier, 0, q.now))
			}
		}
	}
	if q.candidates.Search == nil {
		capCritical(sel)
		return sel
	}
	strength := 0.0
	elsewhere := "" // why the project's hits hold none of the prompt
	for _, h := range c.Hits {
		strength = max(strength, h.Strength)
		if x := h.Explain; x != nil && x.Typicality != 0 && h.Memory.Scope != cairn.ScopeGlobal {
			switch f := cairn.PromptBelongs(x.Typicality); {
			case x.Typicality < 0:
				elsewhere = fmt.Sprintf("; the prompt reads as another project's (typicality %.1f, strength × %.2f)", x.Typicality, f)
			case f < 0.995:
				elsewhere = fmt.Sprintf("; the prompt may be another project's (typicality %.1f, strength × %.2f)", x.Typicality, f)
			}
		}
	}
	if strength >= q.floor {
		matchStatic(sel, c.Hits, strength)
	}
	capCritical(sel)
	// Seed 000's candidates: a memory of the current hat, or tagged with
	// a keyword of the prompt, is a candidate without a word of it; it
	// passes as seed 000 passes its candidates, when its score (hat, tags,
	// confidence …) reaches the threshold.
	bySeed := map[string]bool{}
	for _, ms := range [][]*cairn.Memory{c.OfHat, c.Tagged} {
		for _, m := range ms {
			bySeed[m.ID] = true
		}
	}
	var rel []Item
	consider := func(m *cairn.Memory, relevance, by float64) {
		if seen[m.ID] || !keep(m) {
			return
		}
		it := q.weights.item(m, cairn.ContextRelevant, relevance, q.now)
		text := 0.0
		// A memory found only through a session neighbour passes on the
		// strength of that neighbour alone (by), which must clear the
		// floor itself.
		if strength >= q.floor && by >= q.floor {
			text = relevance * by
		}
		structured := q.weights.structuredMatch(m)
		it.Match = round3(min(1, text+structured))
		// It passes on its words (the prompt's best match clears the
		// floor and this one reaches a quarter of it) or on its files,
		// tags, hat and agent together; those also raise a passing match.
		seedPass := bySeed[m.ID] && it.Score >= q.minRelevance
		if q.floor > 0 && !(strength >= q.floor && text >= q.floor/4) && structured < q.floor && !seedPass {
			why := ""
			if m.Scope != cairn.ScopeGlobal {
				why = elsewhere
			}
			sel.LeftOut = append(sel.LeftOut, LeftOut{ID: m.ID, Reason: fmt.Sprintf("below the relevance floor (match %.2f%s)", it.Match, why), Score: it.Match})
			return
		}
		if it.Score < q.minRelevance && structured < q.floor && !seedPass {
			sel.LeftOut = append(sel.LeftOut, LeftOut{ID: m.ID, Reason: "below the relevance threshold", Score: it.Score})
			return
		}
		rel = append(rel, it)
	}
	for _, h := range c.Hits {
		consider(h.Memory, h.Relevance, lentStrength(h, c.Hits, strength))
	}
	for _, ms := range [][]*cairn.Memory{c.Files, c.OfHat, c.Tagged} {
		for _, m := range ms {
			consider(m, 0, 0)
		}
	}
	sort.SliceStable(rel, func(i, j int) bool {
		if rel[i].Match != rel[j].Match {
			return rel[i].Match > rel[j].Match
		}
		return rel[i].Score > rel[j].Score
	})
	var kept alikeSet
	for _, it := range rel {
		if kept.len() >= q.relevantLimit {
			sel.LeftOut = append(sel.LeftOut, LeftOut{ID: it.Memory.ID, Reason: "over the relevant limit", Score: it.Score})
			continue
		}
		if like := kept.add(it.Memory); like != "" {
			sel.LeftOut = append(sel.LeftOut, LeftOut{ID: it.Memory.ID, Reason: "like " + like + ", already in", Score: it.Score})
			continue
		}
		sel.Items = append(sel.Items, it)
	}
	return sel
}

// matchStatic sets the Match of the static tier's memories that the
// prompt's search found, as a relevant memory's words would make it: the
// static tier is shown by relevance, then confidence.
func matchStatic(sel *Selection, hits []cairn.Hit, strength float64) {
	rel := make(map[string]float64, len(hits))
	for _, h := range hits {
		rel[h.Memory.ID] = h.Relevance
	}
	for i := range sel.Items {
		it := &sel.Items[i]
		if r, ok := rel[it.Memory.ID]; ok && it.Tier == cairn.ContextStatic {
			it.Match = round3(min(1, r*strength))
		}
	}
}

// capCritical keeps the CriticalCap memories of the Critical Constraints
// section that come first by relevance, then confidence, then age; the
// others are left out.
func capCritical(sel *Selection) {
	var critical []int
	for i, it := range sel.Items {
		if it.Tier == cairn.ContextStatic && staticSection(it.Memory.Type) == "constraints" {
			critical = append(critical, i)
		}
	}
	if len(critical) <= CriticalCap {
		return
	}
	sort.SliceStable(critical, func(a, b int) bool { return staticBefore(sel.Items[critical[a]], sel.Items[critical[b]]) })
	drop := map[int]bool{}
	for _, i := range critical[CriticalCap:] {
		drop[i] = true
		sel.LeftOut = append(sel.LeftOut, LeftOut{ID: sel.Items[i].Memory.ID,
			Reason: fmt.Sprintf("over the Critical Constraints cap of %d", CriticalCap)})
	}
	kept := sel.Items[:0]
	for i, it := range sel.Items {
		if !drop[i] {
			kept = append(kept, it)
		}
	}
	sel.Items = kept
}

// staticBefore orders the static tier: by relevance to the prompt, then
// confidence, then the newest first.
func staticBefore(a, b Item) bool {
	if a.Match != b.Match {
		return a.Match > b.Match
	}
	if a.Memory.Confidence != b.Memory.Confidence {
		return a.Memory.Confidence > b.Memory.Confidence
	}
	return a.Memory.CreatedAt.After(b.Memory.CreatedAt)
}

// keepTiers keeps the items of the tiers the profile shows.
func (sel *Selection) keepTiers(p Profile) {
	if p.Tiers == nil {
		return
	}
	kept := sel.Items[:0:0]
	for _, it := range sel.Items {
		if p.shows(it.Tier) {
			kept = append(kept, it)
		}
	}
	sel.Items = kept
}
