// Package recall decides what an agent sees. Every block an agent is
// shown, whatever asks for it, is made by one pipeline run with a named
// profile (Profiles):
//
//	candidates  what the store holds for the request, read where the data
//	            is (cairn.ContextService's ContextCandidates: the lasting
//	            tiers, a search, the memories about files), other
//	            sessions' news, a task's attempts            candidates.go
//	score       the profile's Weights                             score.go
//	select      floors, limits, what a session was already shown select.go
//	pack        sections packed into the budget by package contextpack
//	                                                              pack.go
//
// The entry points are named after what they answer: AnswerCall a
// context block for a request (`cairn context`, the MCP context tool, the
// Claude Code hooks), Lookup a lookup (`cairn recall --file/--error/
// --command`, the MCP recall_* tools, the hook after a failure),
// LoopBlock the next iteration of an agent loop. They run in the process
// that holds the data: a client of `cairn serve` asks the server, which
// runs them (package client).
//
// Nothing here records: the caller decides whether and how the use of the
// placed memories is recorded (Block.IDs), because a resident server
// batches those writes while a one-shot command writes them at once.
package recall

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/contextpack"
	"github.com/cairn-dev/cairn/engine"
	"github.com/cairn-dev/cairn/loop"
)

// profileOf is the request's profile, narrowed by its Tiers.
func profileOf(r *cairn.ContextRequest) (Profile, error) {
	name := r.Profile
	if name == "" {
		name = cairn.ProfileContext
	}
	p, err := ProfileOf(name)
	if err != nil {
		return p, &InvalidError{cairn.ErrorMessage(err)}
	}
	if !p.Weights.Seed000 {
		return p, &InvalidError{fmt.Sprintf("the %s profile answers a lookup or a loop, not a context block", name)}
	}
	if r.Tiers != nil {
		p.Tiers, p.Annotate = r.Tiers, false
	}
	return p, nil
}

// Block is a built block and what it was built from.
type Block struct {
	Text      string             // the rendered block; "" when nothing was placed
	Result    contextpack.Result // placement, omissions and the explanation
	Selection *Selection         // the candidates chosen, with their scores, and those left out
	Config    *cairn.Settings    // the effective configuration (mode and keywords applied)
	Keywords  []string           // keyword overrides the prompt matched

	annotateAt time.Time // the ages' clock when the block is annotated, else zero
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
// mode, format or profile, a negative budget). Callers show it as a usage
// error.
type InvalidError struct{ Msg string }

func (e *InvalidError) Error() string { return e.Msg }

// configure applies the request's profile, mode, keyword overrides and
// explicit limits to the configuration c (it is changed in place) and
// returns the keywords that matched and the format to render. Build has
// checked the request (cairn.ContextRequest.Validate) first.
func configure(c *cairn.Settings, req *cairn.ContextRequest, p Profile) (keywords []string, format string, err error) {
	mode := req.Mode
	if mode == "" {
		mode = c.Context.Mode
	}
	if err := c.ApplyMode(mode); err != nil {
		return nil, "", err
	}
	prompt := req.Prompt
	if len(req.Keywords) > 0 {
		prompt = strings.Join(req.Keywords, " | ") + " | " + prompt
	}
	keywords = c.ApplyKeywords(prompt)
	switch {
	case req.BudgetSet:
		c.Context.Budget = req.Budget
	case p.Budget > 0:
		c.Context.Budget = p.Budget
	case startBlock(*req, p) && c.Context.StartBudget > 0:
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
	return keywords, format, nil
}

// Service is what a block is built from: the candidates of its memories,
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

// Build runs the pipeline for req with the configuration c, which it
// changes in place (mode, keywords and limits applied). eng's clock is
// the request's now.
func Build(ctx context.Context, eng Service, c *cairn.Settings, req cairn.ContextRequest) (*Block, error) {
	p, err := profileOf(&req)
	if err != nil {
		return nil, err
	}
	// The format, the mode and the limits: the checks a command runs
	// before it opens the database.
	if err := req.Validate(c); err != nil {
		return nil, &InvalidError{cairn.ErrorMessage(err)}
	}
	keywords, format, err := configure(c, &req, p)
	if err != nil {
		return nil, err
	}
	now := eng.Now()
	q := contextQuery(c, searched(req, keywords), p, now)
	cands, err := eng.ContextCandidates(ctx, q.candidates)
	if err != nil {
		return nil, err
	}
	sel := q.choose(cands)
	sel.keepTiers(p)
	if err := mergeConflicts(ctx, eng, sel); err != nil {
		return nil, err
	}
	if req.Root != "" {
		MarkStale(sel, req.Root) // only the tiers kept: it reads the file system
	}
	sections, err := withParallel(ctx, eng, req, p, sel, Sections(sel))
	if err != nil {
		return nil, err
	}
	if sections, err = withAgentPatterns(ctx, eng, req, p, sel, sections); err != nil {
		return nil, err
	}
	if req.Task != "" {
		// A loop's task: its own attempts come first (seed 003).
		ts, err := taskSections(ctx, eng, req.Project, req.Task, c.Loop.Tiers, c.Loop.Policy())
		if err != nil {
			return nil, err
		}
		sections = append(ts, sections...)
	}
	if startBlock(req, p) {
		sections = append(sections, HowToRecord)
	}
	pr := contextpack.Request{
		Project: req.Project, Sections: sections, Budget: c.Context.Budget,
		MaxChars: c.Context.MaxChars, Format: format, Explain: req.Explain,
	}
	if p.Annotate {
		// Ages and relevance where they fit (seed 004), in the hooks'
		// blocks as in cairn context.
		pr.Now = now
	}
	if req.Index || c.Context.Index && startBlock(req, p) {
		if pr.Index, err = MemoryIndex(ctx, eng, req.Project); err != nil {
			return nil, err
		}
		pr.Conversations = req.Conversations
	}
	res := contextpack.Render(pr)
	return &Block{Text: res.Text, Result: res, Selection: sel, Config: c, Keywords: keywords, annotateAt: pr.Now}, nil
}

// searched is req as its memories are looked for: without the keyword
// phrases its prompt matched, which tell cairn how to build the block
// ("quick task") and are not what the prompt is about.
func searched(req cairn.ContextRequest, keywords []string) cairn.ContextRequest {
	if len(keywords) > 0 {
		req.Prompt = cairn.StripPhrases(req.Prompt, keywords)
	}
	return req
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
func startBlock(req cairn.ContextRequest, p Profile) bool {
	if strings.TrimSpace(req.Prompt) != "" || len(req.Files) > 0 || req.Task != "" {
		return false
	}
	return p.Tiers == nil || p.shows(cairn.ContextStatic) || p.shows(cairn.ContextPinned)
}
