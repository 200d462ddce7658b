package client

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/cairn-dev/cairn/loop"
)

// Iteration memory for agent loops on the server: each method is one
// request, answered by the server's loop.Local with the policy and tiers
// given here (the caller's configuration). A request's clock is the
// project's (At), else the server's; Record.Now and ContextRequest.Now
// are not sent.

// LoopRecord implements loop.API. The memories of the answer carry their
// id and type only.
func (p *Project) LoopRecord(ctx context.Context, r loop.Record) (*loop.Recorded, error) {
	var out loop.RecordedJSON
	if err := p.do(ctx, http.MethodPost, p.path("/loop/iterations"), loop.RecordJSONOf(r), &out); err != nil {
		return nil, err
	}
	return out.Recorded(), nil
}

// LoopContext implements loop.API. The answer's Placed items carry their
// id only, and its Choice the task's counts without the iterations.
func (p *Project) LoopContext(ctx context.Context, req loop.ContextRequest) (*loop.Context, error) {
	var out loop.ContextJSON
	if err := p.do(ctx, http.MethodPost, p.path("/loop/context"), loop.ContextRequestJSONOf(req), &out); err != nil {
		return nil, err
	}
	return out.Context(), nil
}

func policyQuery(q url.Values, pol loop.Policy, tiers []string) {
	if len(tiers) > 0 {
		q.Set("tiers", strings.Join(tiers, ","))
	}
	for name, v := range map[string]int{"escalate_after": pol.EscalateAfter, "stuck_after": pol.StuckAfter, "review_after": pol.ReviewAfter} {
		if v > 0 {
			q.Set(name, strconv.Itoa(v))
		}
	}
}

// LoopModel implements loop.API.
func (p *Project) LoopModel(ctx context.Context, task string, tiers []string, pol loop.Policy) (*loop.Choice, error) {
	q := url.Values{"task": {task}}
	policyQuery(q, pol, tiers)
	var out loop.ChoiceJSON
	if err := p.do(ctx, http.MethodGet, p.path("/loop/model")+"?"+q.Encode(), nil, &out); err != nil {
		return nil, err
	}
	return out.Choice(), nil
}

// LoopStatus implements loop.API. The states carry no iterations.
func (p *Project) LoopStatus(ctx context.Context, pol loop.Policy) ([]loop.TaskState, error) {
	q := url.Values{}
	policyQuery(q, pol, nil)
	var out loop.StatusJSON
	if err := p.do(ctx, http.MethodGet, p.path("/loop/status")+"?"+q.Encode(), nil, &out); err != nil {
		return nil, err
	}
	return out.States(), nil
}

// LoopPrune implements loop.API.
func (p *Project) LoopPrune(ctx context.Context, opts loop.PruneOptions) (*loop.Pruned, error) {
	var out loop.PrunedJSON
	if err := p.do(ctx, http.MethodPost, p.path("/loop/prune"), loop.PruneJSONOf(opts), &out); err != nil {
		return nil, err
	}
	return out.Pruned(), nil
}

var _ loop.API = (*Project)(nil)
