package client

import (
	"context"
	"net/http"
	"net/url"
	"strconv"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/wire"
)

// Search ranks the project's memories for q (q.Project is ignored). The
// scores come as the server computed them, with every part of each
// (exact): the same hits a local engine gives. q.Now, when set, is sent
// as the request's clock. ExcludeSuperseded and NoFeedback are not
// offered by the API (EINVALID).
func (p *Project) Search(ctx context.Context, q cairn.Query) ([]cairn.Hit, error) {
	hits, _, err := p.SearchRetrieval(ctx, q)
	return hits, err
}

// ExplainQuery implements cairn.SearchService: how the server weighs
// text's terms and scores its matches.
func (p *Project) ExplainQuery(ctx context.Context, text string) (*cairn.QueryExplanation, error) {
	var out wire.QueryExplanation
	if err := p.do(ctx, http.MethodGet, p.path("/search/terms?q="+url.QueryEscape(text)), nil, &out); err != nil {
		return nil, err
	}
	return out.Explanation(), nil
}

// SearchRetrieval is Search, and how the server ranked the hits (the
// mode used, and why it fell back to lexical ranking).
func (p *Project) SearchRetrieval(ctx context.Context, q cairn.Query) ([]cairn.Hit, cairn.Retrieval, error) {
	if q.ExcludeSuperseded || q.NoFeedback {
		return nil, cairn.Retrieval{}, cairn.Errorf(cairn.EINVALID, "the REST API's search has no exclude-superseded or no-feedback option")
	}
	v := url.Values{}
	v.Set("q", q.Text)
	if q.Limit != 0 {
		v.Set("limit", strconv.Itoa(q.Limit))
	}
	setList(v, "type", q.Types)
	setList(v, "tag", q.Tags)
	setTime(v, "after", q.After)
	setTime(v, "before", q.Before)
	if q.Agent != "" {
		v.Set("agent", q.Agent)
	}
	if q.ExcludeSession != "" {
		v.Set("exclude_session", q.ExcludeSession)
	}
	if q.NoGlobal {
		v.Set("no_global", "true")
	}
	if q.Mode != "" {
		v.Set("mode", q.Mode)
	}
	v.Set("exact", "true")
	pp := p
	if !q.Now.IsZero() {
		pp = p.At(q.Now)
	}
	var out []wire.Hit
	var hdr http.Header
	if err := pp.doHeader(ctx, http.MethodGet, p.path("/search?"+v.Encode()), nil, &out, &hdr); err != nil {
		return nil, cairn.Retrieval{}, err
	}
	hits := make([]cairn.Hit, 0, len(out))
	for _, h := range out {
		if h.Memory == nil {
			return nil, cairn.Retrieval{}, cairn.Errorf(cairn.EUNAVAILABLE, "the server's answer holds a hit without its memory")
		}
		hit := h.ToHit() // with its Strength, which the explanation carries
		if !q.Explain {
			hit.Explain = nil
		}
		hits = append(hits, hit)
	}
	return hits, wire.RetrievalOf(hdr), nil
}

// Context implements cairn.ContextBlockService: the server builds the
// block of call (call.Project is ignored) with the project's settings
// stored there, at call.Now when set, recording
// the use of what it shows when call.Record. The server marks stale
// memories against the project's folder its settings name (call.Root is
// not sent), when it needs no token. Errors the request's content causes
// are EINVALID.
func (p *Project) Context(ctx context.Context, call cairn.ContextCall) (*cairn.ContextBlock, error) {
	in := wire.ContextIn{Profile: call.Profile, Prompt: call.Prompt, Files: call.Files, Hat: call.Hat, Agent: call.Agent, Task: call.Task,
		Session: call.Session, Format: call.Format, Mode: call.Mode, SearchMode: call.SearchMode, DryRun: !call.Record, Tiers: call.Tiers,
		Types: call.Types, Index: call.Index, Conversations: call.Conversations, Explain: call.Explain, MaxJSONChars: call.MaxJSONChars,
		Keywords: call.Keywords}
	if call.BudgetSet {
		in.Budget = &call.Budget
	}
	if call.LimitSet {
		in.Limit = &call.Limit
	}
	if call.MaxCharsSet {
		in.MaxChars = &call.MaxChars
	}
	pp := p
	if !call.Now.IsZero() {
		pp = p.At(call.Now)
	}
	var out wire.ContextOut
	var hdr http.Header
	if err := pp.doHeader(ctx, http.MethodPost, p.path("/context"), in, &out, &hdr); err != nil {
		return nil, err
	}
	return &cairn.ContextBlock{Text: out.Block, IDs: out.IDs, Tokens: out.Tokens, Explain: out.Explain, Retrieval: wire.RetrievalOf(hdr)}, nil
}
