// Package recall builds the memory block an agent gets in its prompt: it
// maps the configuration and a request to the engine's tier selection and
// renders the chosen memories with package contextpack. The CLI's
// `cairn context`, the MCP context tool and the Claude Code hooks all build
// their blocks here, so the three give the same block for the same input.
//
// Build records nothing: the caller decides whether and how the use of the
// placed memories is recorded (Block.IDs), because a resident server batches
// those writes while a one-shot command writes them at once.
package recall

import (
	"context"
	"fmt"
	"strings"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/config"
	"github.com/cairn-dev/cairn/contextpack"
	"github.com/cairn-dev/cairn/engine"
	"github.com/cairn-dev/cairn/filestale"
	"github.com/cairn-dev/cairn/loop"
)

// Request is one block to build. Zero values take the configuration's
// defaults; Budget, Limit and MaxChars are used only when their Set flag is
// true, so that 0 can mean "nothing".
type Request struct {
	Project string
	Prompt  string
	Hat     string
	Agent   string
	Task    string
	Session string // memories written in this session are left out
	Files   []string

	Mode   string // a mode of the configuration; "" takes context.mode
	Format string // markdown, xml or json; "" takes context.format
	// SearchMode is the relevant tier's search mode (cairn.ModeLexical,
	// ModeVector, ModeHybrid); "" takes embeddings.mode when an endpoint
	// is configured, else lexical.
	SearchMode string

	Budget, Limit, MaxChars          int
	BudgetSet, LimitSet, MaxCharsSet bool

	// Tiers, when not nil, keeps only these tiers of the selection
	// (cairn.ContextPinned, ContextStatic, ContextDynamic, ContextRelevant).
	// Hooks use it to inject the lasting tiers at session start and the
	// relevant tier with each prompt.
	Tiers []string
	// Types, when not nil, narrows the relevant tier to these types
	// (instead of the configuration's context.relevant.types).
	Types []string

	// Root is the project's folder: memories whose referenced files there
	// changed after they were written or verified are marked stale and
	// count for less (see MarkStale). "" skips the check.
	Root string

	Explain bool // fill Result.Explain (see contextpack.Request)
	Index   bool // add seed 001's memory index
	// Conversations are the months of the project's conversation log,
	// newest first (ConversationMonths), shown in the index.
	Conversations []string
}

// Block is a built block and what it was built from.
type Block struct {
	Text      string                  // the rendered block; "" when nothing was placed
	Result    contextpack.Result      // placement, omissions and the explanation
	Selection *cairn.ContextSelection // the engine's candidates with their scores
	Config    *config.Config          // the effective configuration (mode and keywords applied)
	Keywords  []string                // keyword overrides the prompt matched
}

// IDs are the ids of the memories placed in the block, in block order.
func (b *Block) IDs() []string {
	ids := make([]string, 0, len(b.Result.Placed))
	for _, p := range b.Result.Placed {
		ids = append(ids, p.ID)
	}
	return ids
}

// InvalidError is a request the configuration cannot serve (an unknown
// mode or format, a negative budget). Callers show it as a usage error.
type InvalidError struct{ Msg string }

func (e *InvalidError) Error() string { return e.Msg }

// Configure applies the request's mode, keyword overrides and explicit
// limits to a copy-free configuration c (it is changed in place) and
// returns the keywords that matched and the format to render.
func Configure(c *config.Config, req *Request) (keywords []string, format string, err error) {
	mode := req.Mode
	if mode == "" {
		mode = c.Context.Mode
	}
	if err := c.ApplyMode(mode); err != nil {
		return nil, "", err
	}
	keywords = c.ApplyKeywords(req.Prompt)
	if req.BudgetSet {
		c.Context.Budget = req.Budget
	} else if startBlock(*req) && c.Context.StartBudget > 0 {
		c.Context.Budget = min(c.Context.Budget, c.Context.StartBudget)
	}
	if req.LimitSet {
		c.Context.Relevant.Limit = req.Limit
	}
	if req.MaxCharsSet {
		c.Context.MaxChars = req.MaxChars
	}
	format = req.Format
	if format == "" {
		format = c.Context.Format
	}
	switch format {
	case contextpack.FormatMarkdown, contextpack.FormatXML, contextpack.FormatJSON:
	default:
		return nil, "", &InvalidError{fmt.Sprintf("the format must be markdown, xml or json, not %q", format)}
	}
	if c.Context.Budget < 0 || c.Context.Relevant.Limit < 0 || c.Context.MaxChars < 0 {
		return nil, "", &InvalidError{"the budget, the limit and the character cap cannot be negative"}
	}
	return keywords, format, nil
}

// Service is what a block is built from: the selection of its memories,
// what parallel sessions wrote, the task sections of agent loops, the
// memory index, and the clock the block is built at. engine.Engine
// implements it; Build's clock is the service's (Now).
type Service interface {
	cairn.ContextService
	loop.Service // memories, search, iterations and the clock
	// Stats counts a project's memories by type, for the memory index.
	Stats(ctx context.Context, project string) (*cairn.Stats, error)
}

var _ Service = (*engine.Engine)(nil)

// Build selects and renders the block for req with the configuration c,
// which it changes in place (mode, keywords and limits applied). eng's
// clock is the request's now.
func Build(ctx context.Context, eng Service, c *config.Config, req Request) (*Block, error) {
	keywords, format, err := Configure(c, &req)
	if err != nil {
		return nil, err
	}
	creq := ContextRequest(c, req)
	creq.Now = eng.Now()
	sel, err := eng.SelectContext(ctx, creq)
	if err != nil {
		return nil, err
	}
	if req.Tiers != nil {
		kept := sel.Items[:0:0]
		for _, it := range sel.Items {
			for _, t := range req.Tiers {
				if it.Tier == t {
					kept = append(kept, it)
					break
				}
			}
		}
		sel.Items = kept
	}
	if err := mergeConflicts(ctx, eng, sel); err != nil {
		return nil, err
	}
	if req.Root != "" {
		MarkStale(sel, req.Root) // only the tiers kept: it reads the file system
	}
	sections, err := withParallel(ctx, eng, req, sel, Sections(sel))
	if err != nil {
		return nil, err
	}
	if sections, err = withAgentPatterns(ctx, eng, req, sel, sections); err != nil {
		return nil, err
	}
	if req.Task != "" {
		// A loop's task: its own attempts come first (seed 003).
		ts, err := loop.TaskSections(ctx, eng, req.Project, req.Task, c.Loop.Tiers, loop.PolicyOf(c.Loop), 0)
		if err != nil {
			return nil, err
		}
		sections = append(ts, sections...)
	}
	if startBlock(req) {
		sections = append(sections, HowToRecord)
	}
	pr := contextpack.Request{
		Project: req.Project, Sections: sections, Budget: c.Context.Budget,
		MaxChars: c.Context.MaxChars, Format: format, Explain: req.Explain,
	}
	if req.Tiers == nil {
		// Ages and relevance where they fit (seed 004); the hooks' blocks,
		// capped for Claude Code, stay as they are.
		pr.Now = eng.Now()
	}
	if req.Index || c.Context.Index && startBlock(req) {
		if pr.Index, err = MemoryIndex(ctx, eng, req.Project); err != nil {
			return nil, err
		}
		pr.Conversations = req.Conversations
	}
	res := contextpack.Render(pr)
	return &Block{Text: res.Text, Result: res, Selection: sel, Config: c, Keywords: keywords}, nil
}

// HowToRecord is the paragraph a session-start block ends with: how the
// agent leaves memories for later sessions (the signals package capture
// reads). It is packed first, so it is always there.
var HowToRecord = contextpack.Section{Kind: "recording", Title: "Recording What You Learn", Priority: -1,
	Text: "To leave a memory for later sessions, write a line `MEMORY:type:what, and why` in your answer " +
		"(type: decision, convention, pattern, pitfall, fix or preference); cairn stores it when the session stops. " +
		"Cite a memory's id when it helped."}

// startBlock reports whether req is for a session's start: no prompt and
// no files, and the lasting tiers asked for.
func startBlock(req Request) bool {
	if strings.TrimSpace(req.Prompt) != "" || len(req.Files) > 0 || req.Task != "" {
		return false
	}
	if req.Tiers == nil {
		return true
	}
	for _, t := range req.Tiers {
		if t == cairn.ContextStatic || t == cairn.ContextPinned {
			return true
		}
	}
	return false
}

// ContextRequest maps the configuration and a request to the engine's
// request (weights, tiers, limits); Now is left for the caller.
func ContextRequest(c *config.Config, r Request) cairn.ContextRequest {
	req := cairn.DefaultContextRequest(r.Project) // for the weights the configuration does not hold
	req.Prompt, req.Hat, req.Agent, req.Task, req.Session, req.Files = r.Prompt, r.Hat, r.Agent, r.Task, r.Session, r.Files
	req.Mode = r.Mode
	if req.Mode == "" {
		req.Mode = c.Context.Mode
	}
	sc, cc := c.Scoring, c.Context
	req.Weights = cairn.ContextWeights{
		Relevance: sc.Relevance, Confidence: sc.Confidence, SameHat: sc.SameHat, RelatedHat: sc.RelatedHat,
		PathOverlap: sc.PathOverlap, TagMatch: sc.TagMatch, SameAgent: req.Weights.SameAgent,
		SameTask: req.Weights.SameTask, RecencyMax: sc.RecencyMax, RecencyPerDay: sc.RecencyPerDay,
		HatRelations: sc.HatRelations,
	}
	req.MinRelevance = max(sc.Threshold, cc.Relevant.MinRelevance)
	req.Floor = cc.Relevant.Floor
	req.SearchMode = r.SearchMode
	if req.SearchMode == "" && c.Embeddings.Enabled() {
		req.SearchMode = c.Embeddings.Mode
	}
	req.StaticTypes, req.CriticalTypes, req.DynamicTypes, req.DynamicCount, req.RelevantLimit = nil, nil, nil, 0, 0
	req.RelevantTypes = cc.Relevant.Types
	if r.Types != nil {
		req.RelevantTypes = r.Types
	}
	if cc.Static.Enabled {
		req.StaticTypes = cc.Static.Types
		// min_constraint_confidence 0 turns critical constraints off.
		if cc.Static.MinConstraintConfidence > 0 {
			req.CriticalTypes = cairn.DefaultContextRequest(r.Project).CriticalTypes
			req.CriticalConfidence = cc.Static.MinConstraintConfidence
		}
	}
	if cc.Dynamic.Enabled {
		req.DynamicTypes, req.DynamicCount = cc.Dynamic.Types, cc.Dynamic.Count
	}
	if cc.Relevant.Enabled {
		req.RelevantLimit = cc.Relevant.Limit
	}
	return req
}

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
func Sections(sel *cairn.ContextSelection) []contextpack.Section {
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
func itemValue(it cairn.ContextItem) float64 {
	v := it.Score + it.Memory.Confidence
	if it.Tier == cairn.ContextRelevant && it.Match > 0 {
		v = it.Match*it.Match + 0.1*it.Score
	}
	if it.Stale {
		v *= filestale.Value
	}
	return v
}

// relevanceOf is how well a relevant memory matches the prompt, in (0, 1]
// (ContextItem.Match); 0 for the other tiers.
func relevanceOf(it cairn.ContextItem) float64 {
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
func MarkStale(sel *cairn.ContextSelection, root string) {
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
