package recall

import (
	"context"
	"math"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/contextpack"
	"github.com/cairn-dev/cairn/filestale"
)

// The pack stage: the chosen memories grouped into sections, each worth
// its value, for package contextpack to pack into the budget.

// The sections of the block, in the order they are shown. Pinned
// memories are packed first; every other memory competes for the rest of
// the budget by value per token (see itemValue), the static and recent
// sessions' sections within StaticShare of the budget when the block is
// for a prompt.
var sectionOrder = []struct {
	kind, title string
	priority    int
	grouped     bool
	static      bool
}{
	{"pinned", "Pinned", 0, false, false},
	{"constraints", "Critical Constraints", 1, false, true},
	{"preferences", "Preferences", 1, false, true},
	{"decisions", "Project Decisions", 1, false, true},
	{"conventions", "Conventions", 1, false, true},
	{"sessions", "Recent Sessions", 1, false, true},
	{"relevant", "Relevant Knowledge", 1, true, false},
}

// staticSections are the sections of the static tier by facet, the first
// that a memory's type has deciding; the other static memories are
// preferences.
var staticSections = []struct {
	facet cairn.Facet
	kind  string
}{
	{cairn.FacetCritical, "constraints"},
	{cairn.FacetRule, "decisions"},
	{cairn.FacetConvention, "conventions"},
}

// staticSection is the section of a static memory of type t.
func staticSection(t string) string {
	f := cairn.FacetsOf(t)
	for _, s := range staticSections {
		if f&s.facet != 0 {
			return s.kind
		}
	}
	return "preferences"
}

// StaticShare is the most of the budget that static memories (preferences,
// decisions, conventions, constraints) and recent sessions may take
// together when the block is for a prompt, so that they never crowd out
// the memories that match it; at session start (no prompt) they may take
// the whole budget.
const StaticShare = 0.3

// Sections groups the chosen memories into the block's sections. A
// selection made for a prompt (sel.Terms not empty) caps the static
// sections at StaticShare of the budget.
func Sections(sel *Selection) []contextpack.Section {
	items := map[string][]contextpack.Item{}
	for _, it := range sel.Items {
		m := it.Memory
		kind := "relevant"
		switch it.Tier {
		case cairn.ContextPinned:
			kind = "pinned"
		case cairn.ContextDynamic:
			kind = "sessions"
		case cairn.ContextStatic:
			kind = staticSection(m.Type)
		}
		reasons := make([]contextpack.Reason, 0, len(it.Reasons))
		for _, r := range it.Reasons {
			reasons = append(reasons, contextpack.Reason{Name: r.Name, Value: r.Value})
		}
		items[kind] = append(items[kind], contextpack.Item{
			ID: m.ID, Type: m.Type, Title: m.Title, Content: m.Content, Tags: m.Tags,
			FileRefs: m.FileRefs, CreatedAt: m.CreatedAt, Value: itemValue(it), Reasons: reasons, Flag: m.Flag, Stale: it.Stale,
			Relevance: relevanceOf(it),
		})
	}
	var out []contextpack.Section
	for _, so := range sectionOrder {
		if len(items[so.kind]) > 0 {
			sec := contextpack.Section{Kind: so.kind, Title: so.title, Priority: so.priority,
				GroupByType: so.grouped, Items: items[so.kind]}
			if so.static && len(sel.Terms) > 0 {
				sec.Share, sec.ShareGroup = StaticShare, "static"
			}
			out = append(out, sec)
		}
	}
	return out
}

// itemValue is what a memory is worth in the block; the packer places
// items by value per token. A relevant memory is worth its Match squared
// (0..1: a memory twice as relevant is worth four times as much, so that
// a long, strong match is not traded for short, weak ones), plus a tenth
// of its seed-000 score (hat, files, tags, agent, task, recency,
// confidence) to break ties. Other tiers are worth their seed-000 score
// plus confidence, as before.
//
// A static memory is worth 1, plus twice its relevance to the prompt to
// the hundredth, plus a hundredth of its confidence: the tier is packed,
// and shown, by relevance, then confidence.
func itemValue(it Item) float64 {
	v := it.Score + it.Memory.Confidence
	switch {
	case it.Tier == cairn.ContextRelevant && it.Match > 0:
		v = it.Match*it.Match + 0.1*it.Score
	case it.Tier == cairn.ContextStatic:
		v = 1 + 2*math.Round(it.Match*100)/100 + 0.01*it.Memory.Confidence
	}
	if it.Stale {
		v *= filestale.Value
	}
	return v
}

// relevanceOf is how well a relevant memory matches the prompt, in (0, 1]
// (Item.Match); 0 for the other tiers.
func relevanceOf(it Item) float64 {
	if it.Tier != cairn.ContextRelevant || it.Match <= 0 {
		return 0
	}
	return min(it.Match, 1)
}

// MarkStale sets Stale on the chosen memories that refer to a file under
// root that was modified after the memory was last updated or verified
// (`cairn verify`): what it says about that file may no longer hold.
// File references are paths or globs relative to root ("**" is not
// expanded); a reference that matches nothing is not a change.
func MarkStale(sel *Selection, root string) {
	c := &filestale.Checker{Root: root}
	for i := range sel.Items {
		if c.Stale(sel.Items[i].Memory) {
			sel.Items[i].Stale = true
		}
	}
}

// MemoryIndex is seed 001's memory index: each type with its count and its
// two newest titles.
func MemoryIndex(ctx context.Context, eng Service, project string) ([]contextpack.IndexType, error) {
	st, err := eng.Stats(ctx, project)
	if err != nil {
		return nil, err
	}
	var out []contextpack.IndexType
	for _, t := range cairn.TypeOrder() {
		n := st.ByType[t]
		if n == 0 {
			continue
		}
		it := contextpack.IndexType{Type: t, Count: n}
		ms, _, err := eng.FindMemories(ctx, cairn.MemoryFilter{Project: project, Types: []string{t}, Sort: cairn.SortCreatedDesc, Limit: 2})
		if err != nil {
			return nil, err
		}
		for _, m := range ms {
			it.Recent = append(it.Recent, contextpack.IndexEntry{Title: m.Title, Date: m.CreatedAt, By: m.Agent})
		}
		out = append(out, it)
	}
	// Seed 001's own types are listed when empty too, on the "(empty: …)"
	// branch, so an agent sees where things would go.
	for _, t := range cairn.TypesWith(cairn.FacetIndexed) {
		if st.ByType[t] == 0 {
			out = append(out, contextpack.IndexType{Type: t})
		}
	}
	return out, nil
}
