package recall

import (
	"math"
	"slices"
	"strings"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/lexical"
)

// The score stage: what a candidate is worth to the block.

// seed000 is seed 000's relevance score for one request, its weights
// those of the configuration:
//
//	score = Relevance·(lexical relevance, 0..1) + Confidence·confidence
//	      + SameHat (or RelatedHat) + PathOverlap + TagMatch + SameAgent + SameTask
//	      + max(0, RecencyMax − RecencyPerDay·days since last use)
//
// The words tags are matched against are found once, not once per memory.
type seed000 struct {
	c     cairn.ScoringSettings
	req   cairn.ContextRequest
	mode  string          // the mode in force: memories tagged mode:<mode> match
	words map[string]bool // terms of the prompt and the files
	// files matches memories against the request's files (nil without
	// files): each reference once, however many memories share it.
	files *cairn.FileMatcher
}

// The weights the configuration does not hold.
const (
	sameAgentWeight = 0.1
	sameTaskWeight  = 0.15
)

func seed000Of(c *cairn.Settings, r cairn.ContextRequest) seed000 {
	s := seed000{c: c.Scoring, req: r, mode: r.Mode, words: map[string]bool{}}
	if s.mode == "" {
		s.mode = c.Context.Mode
	}
	for _, t := range lexical.QueryTerms(r.Prompt + " " + strings.Join(r.Files, " ")) {
		s.words[t] = true
	}
	if len(r.Files) > 0 {
		s.files = cairn.NewFileMatcher(r.Files)
	}
	return s
}

// item scores m, a candidate of tier, whose lexical relevance is
// relevance (0 for a memory not found by the search).
func (s seed000) item(m *cairn.Memory, tier string, relevance float64, now time.Time) Item {
	req, w := s.req, s.c
	var rs []Reason
	addR := func(name string, v float64) {
		if v != 0 {
			rs = append(rs, Reason{Name: name, Value: round3(v)})
		}
	}
	addR("relevance", w.Relevance*relevance)
	addR("confidence", w.Confidence*m.Confidence)
	if req.Hat != "" && m.Hat != "" {
		if m.Hat == req.Hat {
			addR("same hat", w.SameHat)
		} else if slices.Contains(w.HatRelations[req.Hat], m.Hat) {
			addR("related hat", w.RelatedHat)
		}
	}
	if s.files != nil && s.files.Match(m) > 0 {
		addR("file overlap", w.PathOverlap)
	}
	if s.tagsMatch(m.Tags) {
		addR("tag match", w.TagMatch)
	}
	if req.Agent != "" && m.Agent == req.Agent {
		addR("same agent", sameAgentWeight)
	}
	if req.Task != "" && m.TaskID == req.Task {
		addR("same task", sameTaskWeight)
	}
	if !m.LastUsedAt.IsZero() {
		days := now.Sub(m.LastUsedAt).Hours() / 24
		addR("recently used", math.Max(0, w.RecencyMax-days*w.RecencyPerDay))
	}
	score := 0.0
	for _, r := range rs {
		score += r.Value
	}
	return Item{Memory: m, Tier: tier, Score: round3(score), Reasons: rs}
}

// Structured matches: what a memory's file references, tags, hat and agent
// add to its match, on the scale of the relevance floor. A memory about a
// file being worked on clears the default floor (0.3) on that alone; a tag,
// the hat or the agent alone do not, but add to a text or file match.
const (
	fileMatch  = 0.5
	tagMatch   = 0.25
	hatMatch   = 0.15
	agentMatch = 0.1
)

// structuredMatch is what m's file references, tags, hat and agent add to
// its match for the request.
func (s seed000) structuredMatch(m *cairn.Memory) float64 {
	req := s.req
	v := 0.0
	if s.files != nil && s.files.Match(m) > 0 {
		v += fileMatch
	}
	if s.tagsMatch(m.Tags) {
		v += tagMatch
	}
	if req.Hat != "" && m.Hat == req.Hat {
		v += hatMatch
	}
	if req.Agent != "" && m.Agent == req.Agent {
		v += agentMatch
	}
	return v
}

// tagsMatch reports whether a tag of the memory names a word of the
// prompt, the hat, the agent or a file (seed 000's keyword match).
func (s seed000) tagsMatch(tags []string) bool {
	req, words := s.req, s.words
	for _, tag := range tags {
		// Namespaced tags match on their value: "agent:claude" → claude.
		v := tag
		if i := strings.LastIndexByte(tag, ':'); i >= 0 {
			v = tag[i+1:]
		}
		if v == "" {
			continue
		}
		if v == req.Hat || v == req.Agent || s.mode != "" && tag == "mode:"+s.mode {
			return true
		}
		for _, t := range lexical.QueryTerms(v) {
			if words[t] {
				return true
			}
		}
	}
	return false
}

func round3(f float64) float64 { return math.Round(f*1000) / 1000 }

// value is what a candidate of a lookup or a loop is worth (see Weights):
// match is how well it answers (its file match, its strength, its
// relevance), age its age at now.
func (w Weights) value(m *cairn.Memory, match float64, now time.Time) float64 {
	if w.AgeSpan > 0 {
		age := math.Floor(now.Sub(m.CreatedAt).Hours() / 24) // whole days: the same block all day
		return max(match-min(age, w.AgeDays)/w.AgeSpan, w.MinValue)
	}
	return w.typeWeight(m.Type) * match * (1 - w.Confidence + w.Confidence*m.Confidence) * w.recency(m, now)
}

// recency is the share of its value m keeps for its age at now (since it
// was last changed): 1 without RecencyDays.
func (w Weights) recency(m *cairn.Memory, now time.Time) float64 {
	if w.RecencyDays <= 0 {
		return 1
	}
	age := max(0, now.Sub(m.UpdatedAt).Hours()/24)
	return 1 - w.RecencyShare + w.RecencyShare/(1+age/w.RecencyDays)
}

// typeWeight is the weight of type t: that of the first entry of ByFacet
// whose facets it has, else Other.
func (w Weights) typeWeight(t string) float64 {
	f := cairn.FacetsOf(t)
	for _, fw := range w.ByFacet {
		if f&fw.Facets != 0 {
			return fw.Weight
		}
	}
	return w.Other
}
