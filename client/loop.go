package client

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/wire"
)

// Iteration memory for agent loops on the server: each method is one
// request, answered by the server's local.Project with the policy and tiers
// given here (the caller's configuration). A request's clock is the
// project's (At), else the server's; Record.Now and ContextRequest.Now
// are not sent.

// LoopRecord implements cairn.LoopService. The memories of the answer carry their
// id and type only.
func (p *Project) LoopRecord(ctx context.Context, r cairn.LoopRecord) (*cairn.LoopRecorded, error) {
	var out wire.RecordedJSON
	if err := p.do(ctx, http.MethodPost, p.path("/loop/iterations"), wire.RecordJSONOf(r), &out); err != nil {
		return nil, err
	}
	return out.Recorded(), nil
}

// LoopContext implements cairn.LoopService. The answer's Placed items carry their
// id only, and its Choice the task's counts without the iterations.
func (p *Project) LoopContext(ctx context.Context, req cairn.LoopContextRequest) (*cairn.LoopContext, error) {
	var out wire.ContextJSON
	if err := p.do(ctx, http.MethodPost, p.path("/loop/context"), wire.ContextRequestJSONOf(req), &out); err != nil {
		return nil, err
	}
	return out.Context(), nil
}

func policyQuery(q url.Values, pol cairn.LoopPolicy, tiers []string) {
	if len(tiers) > 0 {
		q.Set("tiers", strings.Join(tiers, ","))
	}
	for name, v := range map[string]int{"escalate_after": pol.EscalateAfter, "stuck_after": pol.StuckAfter, "review_after": pol.ReviewAfter} {
		if v > 0 {
			q.Set(name, strconv.Itoa(v))
		}
	}
}

// LoopModel implements cairn.LoopService.
func (p *Project) LoopModel(ctx context.Context, task string, tiers []string, pol cairn.LoopPolicy) (*cairn.LoopChoice, error) {
	q := url.Values{"task": {task}}
	policyQuery(q, pol, tiers)
	var out wire.ChoiceJSON
	if err := p.do(ctx, http.MethodGet, p.path("/loop/model")+"?"+q.Encode(), nil, &out); err != nil {
		return nil, err
	}
	return out.Choice(), nil
}

// LoopStatus implements cairn.LoopService. The states carry no iterations.
func (p *Project) LoopStatus(ctx context.Context, pol cairn.LoopPolicy) ([]cairn.TaskState, error) {
	q := url.Values{}
	policyQuery(q, pol, nil)
	var out wire.StatusJSON
	if err := p.do(ctx, http.MethodGet, p.path("/loop/status")+"?"+q.Encode(), nil, &out); err != nil {
		return nil, err
	}
	return out.States(), nil
}

// LoopPrune implements cairn.LoopService.
func (p *Project) LoopPrune(ctx context.Context, opts cairn.LoopPruneOptions) (*cairn.LoopPruned, error) {
	var out wire.PrunedJSON
	if err := p.do(ctx, http.MethodPost, p.path("/loop/prune"), wire.PruneJSONOf(opts), &out); err != nil {
		return nil, err
	}
	return out.Pruned(), nil
}
