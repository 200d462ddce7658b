package engine

import (
	"context"
	"fmt"
	"math"
	"path"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/lexical"
)

// pinnedCap and globalCap bound how many pinned and global-scope memories
// the static tier considers; the renderer's budget picks among them.
const (
	pinnedCap = 50
	globalCap = 50
)

// SelectContext chooses the memories for an agent's prompt: the static
// tier (pinned, global-scope, and the project's decisions, constraints,
// conventions and preferences), the dynamic tier (recent session
// summaries) and the relevant tier (a search for the prompt, scored by
// seed 000's formula; see cairn.ContextWeights). Memories written in the
// request's session, superseded or expired memories are left out. It
// records nothing; see RecordUse.
func (e *Engine) SelectContext(ctx context.Context, req cairn.ContextRequest) (*cairn.ContextSelection, error) {
	if !cairn.ValidProject(req.Project) {
		return nil, cairn.Errorf(cairn.EINVALID, "project %q is not valid", req.Project)
	}
	if req.Now.IsZero() {
		req.Now = e.Now()
	}
	sel := &cairn.ContextSelection{}
	sc := newContextScorer(req)
	seen := map[string]bool{}
	var shown map[string]time.Time // memories already put into this session
	if req.Session != "" {
		var err error
		if shown, err = e.sessionShownIn(ctx, req.Session); err != nil {
			return nil, err
		}
	}
	keep := func(m *cairn.Memory) bool {
		at, wasShown := shown[m.ID]
		switch {
		case seen[m.ID]:
			return false
		case req.Session != "" && m.SessionID == req.Session:
			sel.LeftOut = append(sel.LeftOut, cairn.ContextLeftOut{ID: m.ID, Reason: "current session"})
		case wasShown && !m.UpdatedAt.After(at):
			sel.LeftOut = append(sel.LeftOut, cairn.ContextLeftOut{ID: m.ID, Reason: "already shown in this session"})
		case m.SupersededBy != "":
			sel.LeftOut = append(sel.LeftOut, cairn.ContextLeftOut{ID: m.ID, Reason: "superseded by " + m.SupersededBy})
		case !m.Live(req.Now):
			sel.LeftOut = append(sel.LeftOut, cairn.ContextLeftOut{ID: m.ID, Reason: "expired"})
		default:
			seen[m.ID] = true
			return true
		}
		seen[m.ID] = true
		return false
	}
	groups, err := e.tierCandidates(ctx, req)
	if err != nil {
		return nil, err
	}
	for _, g := range groups {
		n := 0
		for _, m := range g.ms {
			if g.limit > 0 && n >= g.limit {
				break
			}
			if keep(m) {
				n++
				sel.Items = append(sel.Items, sc.item(m, g.tier, 0))
			}
		}
	}
	// Relevant: a search for the prompt, the files and the task.
	text := strings.TrimSpace(strings.Join(append([]string{req.Prompt, req.Task}, fileTerms(req.Files)...), " "))
	if req.RelevantLimit > 0 && text != "" {
		sel.Terms = lexical.QueryTerms(text)
		hits, r, err := e.searchMode(ctx, cairn.Query{
			Project: req.Project, Text: text, Limit: min(cairn.MaxLimit, req.RelevantLimit+2),
			Types: req.RelevantTypes, Now: req.Now, NoFeedback: true, Mode: req.SearchMode,
		}, e.vecs.PromptTimeout)
		if err != nil {
			return nil, err
		}
		sel.Retrieval = r
		strength := 0.0
		for _, h := range hits {
			strength = max(strength, h.Strength)
		}
		var rel []cairn.ContextItem
		consider := func(m *cairn.Memory, relevance float64) {
			if seen[m.ID] || !keep(m) {
				return
			}
			it := sc.item(m, cairn.ContextRelevant, relevance)
			text := 0.0
			if strength >= req.Floor {
				text = relevance * strength
			}
			structured := sc.structuredMatch(m)
			it.Match = round3(min(1, text+structured))
			// It passes on its words (the prompt's best match clears the
			// floor and this one reaches a quarter of it) or on its files,
			// tags, hat and agent together; those also raise a passing match.
			if req.Floor > 0 && !(strength >= req.Floor && text >= req.Floor/4) && structured < req.Floor {
				sel.LeftOut = append(sel.LeftOut, cairn.ContextLeftOut{ID: m.ID, Reason: fmt.Sprintf("below the relevance floor (match %.2f)", it.Match), Score: it.Match})
				return
			}
			if it.Score < req.MinRelevance && structured < req.Floor {
				sel.LeftOut = append(sel.LeftOut, cairn.ContextLeftOut{ID: m.ID, Reason: "below the relevance threshold", Score: it.Score})
				return
			}
			rel = append(rel, it)
		}
		for _, h := range hits {
			consider(h.Memory, h.Relevance)
		}
		if len(req.Files) > 0 {
			// Memories about the files being worked on, whatever their
			// words (of the relevant tier's types, when it has some).
			ms, err := e.fileRefCandidates(ctx, req.Project, req.Files, req.RelevantTypes)
			if err != nil {
				return nil, err
			}
			for _, m := range ms {
				consider(m, 0)
			}
		}
		sort.SliceStable(rel, func(i, j int) bool {
			if rel[i].Match != rel[j].Match {
				return rel[i].Match > rel[j].Match
			}
			return rel[i].Score > rel[j].Score
		})
		for i, it := range rel {
			if i >= req.RelevantLimit {
				sel.LeftOut = append(sel.LeftOut, cairn.ContextLeftOut{ID: it.Memory.ID, Reason: "over the relevant limit", Score: it.Score})
				continue
			}
			sel.Items = append(sel.Items, it)
		}
	}
	return sel, nil
}

// fileCandidates bounds the memories about the files being worked on that
// a context considers (the most recent; see fileRefCandidates).
const fileCandidates = 40

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
func (sc *contextScorer) structuredMatch(m *cairn.Memory) float64 {
	req := sc.req
	v := 0.0
	if len(req.Files) > 0 && m.FileMatch(req.Files) > 0 {
		v += fileMatch
	}
	if sc.tagsMatch(m.Tags) {
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

// contextScorer applies seed 000's formula (cairn.ContextWeights) for one
// request; the words tags are matched against are found once, not once
// per memory scored.
type contextScorer struct {
	req   cairn.ContextRequest
	words map[string]bool // terms of the prompt and the files
}

func newContextScorer(req cairn.ContextRequest) *contextScorer {
	sc := &contextScorer{req: req, words: map[string]bool{}}
	for _, t := range lexical.QueryTerms(req.Prompt + " " + strings.Join(req.Files, " ")) {
		sc.words[t] = true
	}
	return sc
}

func (sc *contextScorer) item(m *cairn.Memory, tier string, relevance float64) cairn.ContextItem {
	req := sc.req
	w := req.Weights
	var rs []cairn.ScoreReason
	addR := func(name string, v float64) {
		if v != 0 {
			rs = append(rs, cairn.ScoreReason{Name: name, Value: round3(v)})
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
	if len(req.Files) > 0 && m.FileMatch(req.Files) > 0 {
		addR("file overlap", w.PathOverlap)
	}
	if sc.tagsMatch(m.Tags) {
		addR("tag match", w.TagMatch)
	}
	if req.Agent != "" && m.Agent == req.Agent {
		addR("same agent", w.SameAgent)
	}
	if req.Task != "" && m.TaskID == req.Task {
		addR("same task", w.SameTask)
	}
	if !m.LastUsedAt.IsZero() {
		days := req.Now.Sub(m.LastUsedAt).Hours() / 24
		addR("recently used", math.Max(0, w.RecencyMax-days*w.RecencyPerDay))
	}
	score := 0.0
	for _, r := range rs {
		score += r.Value
	}
	return cairn.ContextItem{Memory: m, Tier: tier, Score: round3(score), Reasons: rs}
}

func round3(f float64) float64 { return math.Round(f*1000) / 1000 }

// fileTerms turns file paths into search words: each base name without
// its extension (seed 004's term extraction). Folder names would match
// every memory about the same tree; file overlap is scored on its own.
func fileTerms(files []string) []string {
	var out []string
	for _, f := range files {
		base := path.Base(f)
		out = append(out, strings.TrimSuffix(base, path.Ext(base)))
	}
	return out
}

// tagsMatch reports whether a tag of the memory names a word of the
// prompt, the hat, the agent or a file (seed 000's keyword match).
func (sc *contextScorer) tagsMatch(tags []string) bool {
	req, words := sc.req, sc.words
	for _, tag := range tags {
		// Namespaced tags match on their value: "agent:claude" → claude.
		v := tag
		if i := strings.LastIndexByte(tag, ':'); i >= 0 {
			v = tag[i+1:]
		}
		if v == "" {
			continue
		}
		if v == req.Hat || v == req.Agent || req.Mode != "" && tag == "mode:"+req.Mode {
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

// tierGroup is one query's worth of static or dynamic candidates.
type tierGroup struct {
	tier  string
	ms    []*cairn.Memory
	limit int // at most this many kept (0: all)
}

// tierCandidates runs the static and dynamic tiers' queries. In a
// long-lived process (a cache is configured) and on a store that reports
// its data version, the results are kept until the database changes.
func (e *Engine) tierCandidates(ctx context.Context, req cairn.ContextRequest) ([]tierGroup, error) {
	dv, versioned := e.store.(interface {
		DataVersion(context.Context) (int64, error)
	})
	var key string
	var version int64
	if e.cache != nil && versioned {
		key = fmt.Sprint(req.Project, req.StaticTypes, req.StaticPerType, req.CriticalTypes, req.CriticalConfidence, req.DynamicTypes, req.DynamicCount)
		v, err := dv.DataVersion(ctx)
		if err == nil {
			version = v
			if gs, ok := e.cache.tiers(key, v); ok {
				return gs, nil
			}
		} else {
			key = ""
		}
	}
	var groups []tierGroup
	err := e.store.View(ctx, func(tx cairn.Tx) error {
		find := func(tier string, limit int, f cairn.MemoryFilter) error {
			f.SkipTotal = true
			ms, _, err := tx.FindMemories(ctx, f)
			if err == nil {
				groups = append(groups, tierGroup{tier: tier, ms: ms, limit: limit})
			}
			return err
		}
		// Static: pinned first, then global scope, then the static types.
		if err := find(cairn.ContextPinned, 0, cairn.MemoryFilter{Project: req.Project, Pinned: true, Sort: cairn.SortCreatedDesc, Limit: pinnedCap}); err != nil {
			return err
		}
		if len(req.StaticTypes) > 0 {
			if err := find(cairn.ContextStatic, 0, cairn.MemoryFilter{GlobalScope: true, Sort: cairn.SortCreatedDesc, Limit: globalCap}); err != nil {
				return err
			}
		}
		for _, t := range req.StaticTypes {
			if err := find(cairn.ContextStatic, 0, cairn.MemoryFilter{Project: req.Project, Types: []string{t}, Sort: cairn.SortCreatedDesc, Limit: req.StaticPerType}); err != nil {
				return err
			}
		}
		for _, t := range req.CriticalTypes {
			if slices.Contains(req.StaticTypes, t) {
				continue
			}
			if err := find(cairn.ContextStatic, 0, cairn.MemoryFilter{Project: req.Project, Types: []string{t}, MinConfidence: req.CriticalConfidence, Sort: cairn.SortCreatedDesc, Limit: req.StaticPerType}); err != nil {
				return err
			}
		}
		// Dynamic: the newest session summaries.
		if req.DynamicCount > 0 {
			for _, t := range req.DynamicTypes {
				if err := find(cairn.ContextDynamic, req.DynamicCount, cairn.MemoryFilter{Project: req.Project, Types: []string{t}, Sort: cairn.SortCreatedDesc, Limit: req.DynamicCount + 2}); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err == nil && key != "" {
		e.cache.putTiers(key, version, groups)
	}
	return groups, err
}
